#include "tcp_channel.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace lw::rdma {

uint64_t monotonic_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Waits until `fd` is ready for `events` or the deadline passes.
std::string wait_ready(int fd, short events, uint64_t deadline_ms, const char* what) {
  for (int spins = 0; spins < 1'000'000; ++spins) {
    const uint64_t now = monotonic_ms();
    if (now >= deadline_ms) return std::string(what) + ": timed out";
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<uint64_t>(deadline_ms - now, 1000)));
    if (r > 0) return {};
    if (r < 0 && errno != EINTR) return errno_text(what);
  }
  return std::string(what) + ": gave up waiting";
}

std::string resolve(const MemoryNodeAddress& a, sockaddr_storage* out, socklen_t* len) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &res);
  if (rc != 0 || !res) return "cannot resolve " + a.host + ": " + gai_strerror(rc);
  std::memcpy(out, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  ::freeaddrinfo(res);
  return {};
}

}  // namespace

TcpChannel& TcpChannel::operator=(TcpChannel&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.release();
  }
  return *this;
}

void TcpChannel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string TcpChannel::connect(const MemoryNodeAddress& to, uint32_t timeout_ms, TcpChannel* out) {
  sockaddr_storage sa{};
  socklen_t len = 0;
  if (std::string e = resolve(to, &sa, &len); !e.empty()) return e;
  const uint64_t start = monotonic_ms(), deadline = start + timeout_ms;
  std::string last = "no attempt";
  for (uint32_t attempt = 1; attempt <= 100'000; ++attempt) {
    int fd = ::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return errno_text("socket");
    int r = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), len);
    if (r < 0 && errno == EINPROGRESS) {
      std::string e = wait_ready(fd, POLLOUT, deadline, "connect");
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      if (e.empty()) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
      r = e.empty() && soerr == 0 ? 0 : -1;
      errno = soerr;
      if (!e.empty()) last = e;
      else if (soerr) last = std::strerror(soerr);
    } else if (r < 0) {
      last = std::strerror(errno);
    }
    if (r == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      *out = TcpChannel(fd);
      return {};
    }
    ::close(fd);
    if (monotonic_ms() + 100 >= deadline) {
      return "cannot reach memory node " + to.to_string() + ": " + last + " (" +
             std::to_string(attempt) + " attempts over " +
             std::to_string((monotonic_ms() - start) / 1000.0).substr(0, 4) +
             " s; is `latchwork memnode --listen " + to.to_string() + "` running?)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return "cannot reach memory node " + to.to_string() + ": " + last;
}

std::string TcpChannel::write_all(const void* data, size_t bytes, uint64_t deadline_ms) {
  const auto* p = static_cast<const char*>(data);
  for (size_t done = 0, rounds = 0; done < bytes; ++rounds) {
    if (rounds > 1'000'000) return "send: no progress";
    ssize_t n = ::send(fd_, p + done, bytes - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return errno_text("send");
    if (std::string e = wait_ready(fd_, POLLOUT, deadline_ms, "send"); !e.empty()) return e;
  }
  return {};
}

std::string TcpChannel::read_all(void* data, size_t bytes, uint64_t deadline_ms, size_t* got) {
  auto* p = static_cast<char*>(data);
  size_t& done = *got;
  done = 0;
  for (size_t rounds = 0; done < bytes; ++rounds) {
    if (rounds > 1'000'000) return "receive: no progress";
    ssize_t n = ::recv(fd_, p + done, bytes - done, MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return "closed";
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return errno_text("receive");
    if (std::string e = wait_ready(fd_, POLLIN, deadline_ms, "receive"); !e.empty()) return e;
  }
  return {};
}

std::string TcpChannel::send(const json& message, uint32_t timeout_ms) {
  if (fd_ < 0) return "send: channel closed";
  const std::string body = message.dump();
  if (body.size() > kMaxMessageBytes) return "send: message too large";
  // Header and body in one buffer: one segment for small messages, so a
  // descheduled sender never leaves the peer holding half a frame.
  const uint32_t n = htonl(static_cast<uint32_t>(body.size()));
  std::string frame(reinterpret_cast<const char*>(&n), 4);
  frame += body;
  return write_all(frame.data(), frame.size(), monotonic_ms() + timeout_ms);
}

bool TcpChannel::wait_readable(uint32_t timeout_ms) {
  if (fd_ < 0) return true;  // receive() reports the closed channel
  return wait_ready(fd_, POLLIN, monotonic_ms() + timeout_ms, "receive").empty();
}

std::string TcpChannel::receive(json* message, uint32_t timeout_ms) {
  if (fd_ < 0) return "receive: channel closed";
  const uint64_t deadline = monotonic_ms() + timeout_ms;
  uint32_t n = 0;
  size_t got = 0;
  std::string e = read_all(&n, 4, deadline, &got);
  if (!e.empty() && got > 0) {
    close();
    return e == "closed" ? "receive: peer closed mid-message" : e + " mid-message";
  }
  if (!e.empty()) return e;
  n = ntohl(n);
  if (n > kMaxMessageBytes) return "receive: message of " + std::to_string(n) + " bytes is too large";
  std::string body(n, '\0');
  if (e = read_all(body.data(), n, deadline, &got); !e.empty()) {
    close();
    return e == "closed" ? "receive: peer closed mid-message" : e + " mid-message";
  }
  *message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message->is_discarded() || !message->is_object()) return "receive: malformed message";
  return {};
}

std::string TcpChannel::call(const json& request, json* reply, uint32_t timeout_ms) {
  if (std::string e = send(request, timeout_ms); !e.empty()) return e;
  if (std::string e = receive(reply, timeout_ms); !e.empty())
    return e == "closed" ? "the memory node closed the connection" : e;
  auto ok = reply->find("ok");
  if (ok == reply->end() || !ok->is_boolean()) return "malformed reply (no \"ok\")";
  if (!ok->get<bool>()) {
    auto err = reply->find("error");
    return err != reply->end() && err->is_string() ? err->get<std::string>() : "request refused";
  }
  return {};
}

std::string listen_tcp(const MemoryNodeAddress& at, int* fd_out, uint16_t* bound_port) {
  sockaddr_storage sa{};
  socklen_t len = 0;
  if (std::string e = resolve(at.port ? at : MemoryNodeAddress{at.host, 1}, &sa, &len); !e.empty())
    return e;
  if (at.port == 0) {  // resolve() needed a port; bind to any
    if (sa.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&sa)->sin_port = 0;
    else reinterpret_cast<sockaddr_in6*>(&sa)->sin6_port = 0;
  }
  int fd = ::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_text("socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), len) < 0 || ::listen(fd, 64) < 0) {
    std::string e = errno_text(("cannot listen on " + at.to_string()).c_str());
    ::close(fd);
    return e;
  }
  sockaddr_storage bound{};
  socklen_t bl = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bl);
  *bound_port = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                                 : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  *fd_out = fd;
  return {};
}

}  // namespace lw::rdma
