// 11. A buffer reused after an unsignaled WRITE.
//
// Each worker appends records to its own remote log. To save completions it
// post()s each record's WRITE unsignaled and awaits only every 4th (which
// completes the ones before it: completions arrive in posting order). It
// builds every record in one staging buffer, so the next record overwrites
// the buffer while the previous WRITE may not have executed yet. A NIC reads
// a WRITE's payload when it executes the request, not when it is posted:
// the log then holds a later record in an earlier record's slot.
//
// Expected: {write_payload_late} (the protocol is fine if the payload is
// taken at post time, which is what the other relaxations assume).
// Twin: a ring of 4 staging buffers, reused only after the signaled 4th
// WRITE completed -- wait for completion before reuse.
#include "bug_suite.h"

#include <array>

namespace lw::check::bugs {
namespace {

// A log record is one line; worker k's log is ops_per_worker records from
// base + k * ops_per_worker * 64:
//   0              8                                    64
//   +--------------+------------------------------------+
//   | record value | the same value repeated (payload)  |
//   +--------------+------------------------------------+
struct LogRecord {
  uint64_t words[8];
};
static_assert(sizeof(LogRecord) == kCacheLine);
constexpr uint32_t kSignalEvery = 4;

template <uint32_t kBuffers>
struct Logger : Workload {
  RemoteAddr base;
  uint32_t per_worker = 0;
  RemoteAddr slot(uint32_t worker, uint32_t i) const {
    return base + (uint64_t{worker} * per_worker + i) * sizeof(LogRecord);
  }

  void setup(SeedRun& run) override {
    per_worker = run.ops_per_worker();
    base = run.backend().allocate(0, uint64_t{run.workers()} * per_worker * sizeof(LogRecord), 64);
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    std::array<LogRecord, kBuffers> staging;  // the bug: kBuffers == 1
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      LogRecord& rec = staging[i % kBuffers];
      fill(&rec, sizeof rec, unique_value(me, i));
      if (i % kSignalEvery == kSignalEvery - 1 || i + 1 == run.ops_per_worker()) {
        (void)co_await w.write(slot(me, i), &rec, sizeof rec);  // completes the posted ones too
      } else {
        Batch b;
        b.write(slot(me, i), &rec, sizeof rec);
        (void)w.post(b);
      }
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override {
    for (uint32_t k = 0; k < run.workers(); ++k)
      for (uint32_t i = 0; i < per_worker; ++i) {
        LogRecord rec;
        run.backend().host_read(slot(k, i), &rec, sizeof rec);
        uint64_t v = 0;
        if (!whole(&rec, sizeof rec, &v) || v != unique_value(k, i)) {
          run.fail("log-record-overwritten", "worker " + std::to_string(k) + "'s record " +
                                                 std::to_string(i) + " holds " + std::to_string(v) +
                                                 ", not " + std::to_string(unique_value(k, i)));
          return;
        }
      }
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 1, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 12};

TEST(CheckBugs, BufferReusedAfterUnsignaledWrite) {
  expect_found(factory<Logger<1>>(), kShape, Expect::needs({"write_payload_late"}),
               {"log-record-overwritten"}, "buffer-reuse");
}
TEST(CheckBugs, BufferReuseTwinWaitsForCompletion) {
  expect_clean(factory<Logger<kSignalEvery>>(), kShape, "buffer-reuse");
}

}  // namespace
}  // namespace lw::check::bugs
