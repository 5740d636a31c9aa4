// The guide's example (examples/check_my_structure, docs/checking.md): a
// lock-protected record whose readers release the lock with a WRITE posted
// right after their READ. Unfenced, the release may overtake the READ and a
// writer tears it; fenced, it may not. Shared by the tests that check it.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "latchwork/check/driver.h"

namespace lw::check::guide {

class LockedRecord : public Workload {
 public:
  static constexpr uint32_t kPayloadOffset = 64, kPayloadWords = 32, kBytes = 64 + 32 * 8;
  explicit LockedRecord(bool fenced) : fenced_(fenced) {}

  void setup(SeedRun& run) override {
    base_ = run.backend().allocate(0, kBytes, kCacheLine);
    if (base_.is_null()) run.fail("setup", "the memory node is full");
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    const RemoteAddr lock = base_, payload = base_ + kPayloadOffset;
    std::array<uint64_t, kPayloadWords> buf{};
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      bool locked = false;
      for (int attempt = 0; attempt < 1000 && !locked; ++attempt) {
        Result<uint64_t> r = co_await w.cas(lock, 0, me + 1);
        locked = ok(r.status) && r.value == 0;
      }
      if (!locked) {
        run.gave_up(w, "lock never free");
        continue;
      }
      const bool reader = w.rng().below(2) == 0;
      HistoryOp op;
      op.key = 0;
      op.who = w.placement();
      op.start = start;
      if (reader) {
        op.kind = HistoryOp::Kind::kRead;
        Batch b;
        b.read(buf.data(), payload, sizeof buf);
        b.write(lock, &kFree, 8).fence = fenced_;
        co_await w.execute(b);
        op.whole = std::all_of(buf.begin(), buf.end(), [&](uint64_t v) { return v == buf[0]; });
        op.value = buf[0];
      } else {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);
        buf.fill(op.value);
        co_await w.write(payload, buf.data(), sizeof buf);
        co_await w.write(lock, &kFree, 8);
      }
      op.end = w.now();
      run.registers().record(op);
      run.op_done(w);
    }
  }

  std::string still_held(SeedRun& run) override {
    const uint64_t v = run.backend().host_load(base_);
    return v == 0 ? "" : "the lock word is " + std::to_string(v);
  }

 private:
  static constexpr uint64_t kFree = 0;
  bool fenced_;
  RemoteAddr base_;
};

inline WorkloadFactory factory(bool fenced) {
  return [fenced] { return std::make_unique<LockedRecord>(fenced); };
}

}  // namespace lw::check::guide
