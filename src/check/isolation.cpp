// Seeds in child processes (Options::isolate): the child runs the seed and
// writes its result as JSON into a pipe; the parent turns a child that died
// (a signal, an exit without a result) or outlived its wall-clock bound into
// a "crash" finding of that seed.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

#include "driver_internal.h"

namespace lw::check::detail {
namespace {

using nlohmann::json;

// The largest result a child may send: findings are capped per seed by the
// models, but a runaway workload calling fail() in a loop must not make the
// parent buffer without bound.
constexpr size_t kMaxResultBytes = 16u << 20;

json to_json(const SeedResult& r) {
  json fs = json::array();
  for (const Finding& f : r.findings)
    fs.push_back({{"kind", f.kind}, {"detail", f.detail}, {"failure", f.failure}, {"causes", f.causes},
                  {"blocked", f.blocked}, {"crash", f.crash}});
  return {{"ops", r.ops}, {"gave_up", r.gave_up}, {"trace_hash", r.trace_hash},
          {"virtual_ns", r.virtual_ns}, {"findings", fs}, {"crashed", r.crashed}, {"crash", r.crash},
          {"crash_left", r.crash_left}};
}

void from_json(const json& j, SeedResult* r) {
  r->ops = j.at("ops").get<uint64_t>();
  r->gave_up = j.at("gave_up").get<uint64_t>();
  r->trace_hash = j.at("trace_hash").get<uint64_t>();
  r->virtual_ns = j.at("virtual_ns").get<Nanos>();
  r->crashed = j.at("crashed").get<bool>();
  r->crash = j.at("crash").get<std::string>();
  r->crash_left = j.at("crash_left").get<std::vector<std::string>>();
  for (const json& f : j.at("findings")) {
    Finding x;
    x.kind = f.at("kind").get<std::string>();
    x.detail = f.at("detail").get<std::string>();
    x.failure = f.at("failure").get<bool>();
    x.causes = f.at("causes").get<std::vector<std::string>>();
    x.blocked = f.at("blocked").get<std::vector<std::string>>();
    x.crash = f.at("crash").get<std::string>();
    r->findings.push_back(std::move(x));
  }
}

void write_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    const ssize_t n = ::write(fd, s.data() + at, s.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing to report to
    at += static_cast<size_t>(n);
  }
}

// Reads until EOF, the size bound or the deadline; false on the deadline.
bool read_all(int fd, std::chrono::steady_clock::time_point deadline, std::string* out) {
  char buf[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out->size() + static_cast<size_t>(n) > kMaxResultBytes) return true;  // judged incomplete below
    out->append(buf, static_cast<size_t>(n));
  }
}

std::string how_it_died(int status) {
  if (WIFSIGNALED(status))
    return std::string("the seed's process was killed by signal ") + std::to_string(WTERMSIG(status)) +
           " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status))
    return "the seed's process exited with status " + std::to_string(WEXITSTATUS(status)) +
           " before reporting (a call to exit?)";
  return "the seed's process ended abnormally";
}

}  // namespace

SeedResult run_isolated(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                        const Shape& shape) {
  SeedResult r;
  r.seed = plan.seed;
  r.plan = plan;
  r.shape = shape;
  auto crash = [&](std::string detail) {
    Finding f;
    f.kind = kind::kCrash;
    f.detail = std::move(detail);
    f.seed = plan.seed;
    f.plan = plan;
    f.shape = shape;
    f.replay = replay_of(o, plan.seed, shape);
    r.findings.push_back(std::move(f));
    return r;
  };
  int fds[2];
  LW_CHECK_MSG(::pipe(fds) == 0, std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t pid = ::fork();
  LW_CHECK_MSG(pid >= 0, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    Options in_child = o;
    in_child.isolate = false;
    const SeedResult res = run_in_process(factory, in_child, plan, shape, {});
    write_all(fds[1], to_json(res).dump());
    ::close(fds[1]);
    ::_exit(0);  // no atexit handlers, no destructors of the parent's objects
  }
  ::close(fds[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.seed_wall_seconds);
  const bool in_time = read_all(fds[0], deadline, &text);
  ::close(fds[0]);
  if (!in_time) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!in_time)
    return crash("the seed ran longer than " + std::to_string(o.seed_wall_seconds) +
                 " wall seconds (a worker looping without awaiting?) and was killed");
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) return crash(how_it_died(status));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return crash("the seed's process sent an unreadable result");
  from_json(j, &r);
  for (Finding& f : r.findings) {
    f.seed = plan.seed;
    f.plan = plan;
    f.shape = shape;
    f.trace_hash = r.trace_hash;
    f.replay = replay_of(o, plan.seed, shape);
  }
  return r;
}

}  // namespace lw::check::detail
