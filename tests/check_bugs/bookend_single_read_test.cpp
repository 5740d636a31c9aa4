// 2. A single-READ bookend.
//
// Each worker owns one record and rewrites it with one WRITE that carries
// the record's new version at both ends. Readers fetch it with one READ and
// accept it when the two ends agree, trusting that "the lines of a READ
// arrive in order". They need not: with read_lines_unordered the middle line
// can be fetched after a WRITE landed and both ends before it.
//
// Expected: {read_lines_unordered}. Staggered WRITE lines alone cannot fool
// it: lines land in address order, so a one-instant snapshot of a half-landed
// WRITE has a new head and an old tail, which the reader rejects.
// Twin: the version at the start of every line (FaRM-style per-line
// versions; a line is read atomically), accepted when all lines agree.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// The buggy layout, 192 B (3 lines):
//   0      8                                        184    192
//   +------+-----------------------------------------+------+
//   | head | payload: 22 words, one value            | tail |
//   +------+-----------------------------------------+------+
struct Bookend {
  uint64_t head;
  uint64_t payload[22];
  uint64_t tail;
};
static_assert(sizeof(Bookend) == 3 * kCacheLine);

// The twin's layout, 192 B: every line opens with the version.
//   0      8            64     72           128    136          192
//   +------+------------+------+------------+------+------------+
//   | ver  | payload 7w | ver  | payload 7w | ver  | payload 7w |
//   +------+------------+------+------------+------+------------+
struct PerLine {
  struct Line {
    uint64_t version;
    uint64_t payload[7];
  } line[3];
};
static_assert(sizeof(PerLine::Line) == kCacheLine && sizeof(PerLine) == 3 * kCacheLine);

template <typename Layout>
struct OwnedRecords : Workload {
  RemoteAddr base;
  RemoteAddr at(uint64_t key) const { return base + key * sizeof(Layout); }

  void setup(SeedRun& run) override {
    base = run.backend().allocate(0, run.workers() * sizeof(Layout), kCacheLine);
  }

  // Stamps version `v` and payload `value`; accepts a read copy (payload out).
  static void stamp(Bookend* r, uint64_t v, uint64_t value) {
    r->head = r->tail = v;
    fill(r->payload, sizeof r->payload, value);
  }
  static bool accept(const Bookend& r, std::vector<uint64_t>* payload) {
    payload->assign(std::begin(r.payload), std::end(r.payload));
    return r.head == r.tail;
  }
  static void stamp(PerLine* r, uint64_t v, uint64_t value) {
    for (auto& l : r->line) {
      l.version = v;
      fill(l.payload, sizeof l.payload, value);
    }
  }
  static bool accept(const PerLine& r, std::vector<uint64_t>* payload) {
    payload->clear();
    for (const auto& l : r.line) payload->insert(payload->end(), std::begin(l.payload), std::end(l.payload));
    return r.line[0].version == r.line[1].version && r.line[1].version == r.line[2].version;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    uint64_t version = 0;
    Layout rec;
    std::vector<uint64_t> payload;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      if (w.rng().below(3) == 0) {  // rewrite my record with one WRITE
        stamp(&rec, ++version, unique_value(me, i));
        (void)co_await w.write(at(me), &rec, sizeof rec);
        record_write(run, w, me, start, unique_value(me, i));
      } else {  // read anyone's with one READ
        const uint64_t key = w.rng().below(run.workers());
        do (void)co_await w.read(&rec, at(key), sizeof rec);
        while (!accept(rec, &payload));
        record_read(run, w, key, start, payload.data(), payload.size() * 8);
      }
      run.op_done(w);
    }
  }
};

// One coroutine per thread: a reader and a writer on one queue pair would add
// a second way to tear (the WRITE overtaking the READ: read_overtaken).
const Shape kShape{.compute_nodes = 1, .threads_per_node = 4, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 30};

TEST(CheckBugs, SingleReadBookend) {
  expect_found(factory<OwnedRecords<Bookend>>(), kShape, Expect::needs({"read_lines_unordered"}),
               {"torn-read"}, "single-read-bookend");
}
TEST(CheckBugs, SingleReadBookendTwinPerLineVersions) {
  expect_clean(factory<OwnedRecords<PerLine>>(), kShape, "single-read-bookend");
}

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, SingleReadBookend) {
  expect_violated(factory<OwnedRecords<Bookend>>(), kSmall, 4, {"torn-read"}, "single-read-bookend");
}
TEST(CheckBugsExhaustive, SingleReadBookendTwinPerLineVersions) { expect_proved(factory<OwnedRecords<PerLine>>(), kSmall, 4, "single-read-bookend"); }

}  // namespace
}  // namespace lw::check::bugs
