// The control channel between a compute process and a memory node: JSON
// messages over TCP, each framed by a 4-byte big-endian length. It carries
// connection set-up (QP numbers, GIDs, rkeys), allocation and barriers; data
// never crosses it. Every wait is bounded by a timeout.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "latchwork/config/cluster_file.h"

namespace lw::rdma {

using nlohmann::json;

class TcpChannel {
 public:
  static constexpr uint32_t kMaxMessageBytes = 1u << 20;

  TcpChannel() = default;
  explicit TcpChannel(int fd) : fd_(fd) {}
  TcpChannel(TcpChannel&& o) noexcept : fd_(o.release()) {}
  TcpChannel& operator=(TcpChannel&& o) noexcept;
  TcpChannel(const TcpChannel&) = delete;
  TcpChannel& operator=(const TcpChannel&) = delete;
  ~TcpChannel() { close(); }

  // Connects, retrying refused or unreachable attempts until `timeout_ms`
  // passed (a memory node may still be starting). Error names the address.
  static std::string connect(const MemoryNodeAddress& to, uint32_t timeout_ms, TcpChannel* out);

  std::string send(const json& message, uint32_t timeout_ms);
  // Receives one whole message within `timeout_ms`. "closed" when the peer
  // closed cleanly; "receive: timed out" when nothing arrived. A deadline
  // that passes mid-frame loses the framing, so the channel is closed then.
  std::string receive(json* message, uint32_t timeout_ms);
  // True once a message has begun to arrive (or the peer closed), false after
  // `timeout_ms`; consumes nothing. Servers poll with it and then receive
  // with a generous timeout, so a slow peer never splits a frame.
  bool wait_readable(uint32_t timeout_ms);
  // send + receive; a reply {"ok": false, "error": E} becomes the error E.
  std::string call(const json& request, json* reply, uint32_t timeout_ms);

  bool valid() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void close();

 private:
  std::string write_all(const void* data, size_t bytes, uint64_t deadline_ms);
  // *got counts the bytes read, so a caller can tell a timeout mid-frame.
  std::string read_all(void* data, size_t bytes, uint64_t deadline_ms, size_t* got);

  int fd_ = -1;
};

// Listens on HOST:PORT (port 0 picks one; *bound_port tells which).
std::string listen_tcp(const MemoryNodeAddress& at, int* fd, uint16_t* bound_port);

// Milliseconds on the monotonic clock (deadlines of I/O, never simulation).
uint64_t monotonic_ms();

}  // namespace lw::rdma
