// A scripted WorkerPort for unit tests of the SMART runtime's policies:
// requests complete at once (8-byte memory words in a map), sleeps are
// recorded and advance a settable clock, park/unpark go through a ready
// queue the test drains. Everything runs on the test's stack, synchronously.
#pragma once

#include <coroutine>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "latchwork/runtime/task.h"
#include "latchwork/verbs/worker.h"

namespace lw::test {

struct FakeEnv {
  Nanos now = 0;
  std::map<uint64_t, uint64_t> mem;  // raw address -> 8-byte word
  std::vector<Nanos> sleeps;
  std::deque<std::coroutine_handle<>> ready;
  uint64_t wrs = 0;
  // CAS requests fail this many times more (their expected never matches).
  uint64_t force_cas_failures = 0;
};

class FakePort final : public WorkerPort {
 public:
  explicit FakePort(FakeEnv* env) : env_(env) {}
  bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<>) override {
    for (uint32_t i = 0; i < n; ++i) {
      WorkRequest& wr = wrs[i];
      ++env_->wrs;
      uint64_t& word = env_->mem[wr.remote.raw()];
      wr.status = Status::kOk;
      if (wr.opcode == Opcode::kRead) {
        std::memcpy(wr.local, &word, std::min<uint32_t>(wr.length, 8));
      } else if (wr.opcode == Opcode::kWrite) {
        std::memcpy(&word, wr.local, std::min<uint32_t>(wr.length, 8));
      } else {
        wr.old_value = word;
        if (wr.opcode == Opcode::kCas && env_->force_cas_failures > 0) {
          --env_->force_cas_failures;
          wr.old_value = wr.compare + 1;  // looks as if someone else won
          continue;
        }
        uint64_t nv = 0;
        if (apply_atomic(wr, word, &nv)) word = nv;
      }
    }
    return false;  // completed: the caller does not suspend
  }
  bool sleep(Nanos ns, std::coroutine_handle<>) override {
    env_->sleeps.push_back(ns);
    env_->now += ns;
    return false;
  }
  bool cpu_access(CpuAccess* op, std::coroutine_handle<>) override {
    op->status = Status::kUnsupported;
    return false;
  }
  void charge_cpu(Nanos) override {}
  Nanos now() const override { return env_->now; }
  void park(std::coroutine_handle<> h) override { parked_ = h; }
  void unpark() override {
    LW_CHECK(parked_);
    env_->ready.push_back(parked_);
    parked_ = {};
  }
  bool parked() const { return static_cast<bool>(parked_); }

 private:
  FakeEnv* env_;
  std::coroutine_handle<> parked_;
};

// One coroutine: its port and worker.
struct FakeCoroutine {
  FakeCoroutine(FakeEnv* env, uint32_t slot, uint64_t seed)
      : port(env), worker(&port, Placement{Placement::Kind::kCompute, 0, 0, slot}, seed) {}
  FakePort port;
  Worker worker;
};

// Starts a task (it runs until it completes or parks).
inline void start(Task<void>& t) { t.handle().resume(); }
// Resumes unparked coroutines until none is ready (at most `limit`).
inline void drain(FakeEnv& env, int limit = 1000) {
  for (int i = 0; i < limit && !env.ready.empty(); ++i) {
    std::coroutine_handle<> h = env.ready.front();
    env.ready.pop_front();
    h.resume();
  }
}

}  // namespace lw::test
