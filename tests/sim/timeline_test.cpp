// The timeline (timeline.h): a simulated run as Chrome trace-event JSON that
// follows the format (named tracks, non-overlapping slices per track), shows
// each verb from post to completion, the relaxations applied and the NIC's
// waits, stays within its event limit, and changes nothing in the run.
#include "latchwork/sim/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

using nlohmann::json;

struct Outcome {
  uint64_t hash = 0;
  RemoteAddr x, y;
};

// CAS increments of x (contended: atomics wait for the lock-table slot) and
// 2-line WRITEs and READs of y, on the calibrated NIC model.
Outcome contended(uint64_t seed, const std::string& profile, Timeline* tl) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  c.seed = seed;
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 2;
  c.memory_nodes = 1;
  c.memory_node_bytes = 1 << 16;
  c.nic.profile = "cx5-100g";
  SimBackend sim(c);
  Outcome r;
  r.x = sim.allocate(0, 8, 8);
  r.y = sim.allocate(0, 128, 64);
  if (tl) {
    EXPECT_TRUE(tl->attach(sim));
  }
  const RemoteAddr x = r.x, y = r.y;
  sim.spawn_compute([=](Worker& w) -> Task<void> {
    for (int i = 0; i < 6; ++i) {
      uint64_t seen = 0;
      for (;;) {
        auto got = co_await w.cas(x, seen, seen + 1);
        if (got.value == seen) break;
        seen = got.value;
      }
      uint64_t lines[16];
      std::fill(std::begin(lines), std::end(lines), seen);
      co_await w.write(y, lines, 128);
      co_await w.read(lines, y, 128);
      co_await w.sleep(w.rng().below(500));
    }
  });
  r.hash = sim.run().trace_hash;
  return r;
}

// Checks the trace-event format; returns the events.
json parse_and_validate(const std::string& text) {
  const json doc = json::parse(text);
  EXPECT_EQ(doc.at("displayTimeUnit"), "ns");
  const json& events = doc.at("traceEvents");
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  std::set<std::pair<int, int>> used;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const json& e : events) {
    for (const char* k : {"name", "ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(k)) << k << " in " << e.dump();
    const std::string ph = e.at("ph");
    EXPECT_TRUE(ph == "X" || ph == "i" || ph == "M") << ph;
    const std::pair<int, int> track{e.at("pid"), e.at("tid")};
    if (ph == "M") {
      if (e.at("name") == "thread_name") named_threads.insert(track);
      if (e.at("name") == "process_name") named_processes.insert(track.first);
      continue;
    }
    used.insert(track);
    if (ph == "X") {
      EXPECT_GE(e.at("dur").get<double>(), 0.0) << e.dump();
      slices[track].push_back({e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>()});
    }
  }
  for (const auto& t : used) {
    EXPECT_TRUE(named_threads.count(t)) << "pid " << t.first << " tid " << t.second << " has no thread_name";
    EXPECT_TRUE(named_processes.count(t.first)) << "pid " << t.first << " has no process_name";
  }
  // Slices of one tid are disjoint (the writer never nests them).
  for (auto& [track, s] : slices) {
    std::sort(s.begin(), s.end());
    for (size_t i = 1; i < s.size(); ++i)
      EXPECT_LE(s[i - 1].second, s[i].first + 1e-9) << "overlap on pid " << track.first << " tid " << track.second;
  }
  return events;
}

TEST(Timeline, FollowsTheTraceEventFormatAndShowsEveryVerb) {
  Timeline tl;
  const Outcome r = contended(3, "spec", &tl);
  ASSERT_FALSE(tl.verbs().records().empty());
  const json events = parse_and_validate(tl.to_json());

  // A known verb: the first CAS recorded, on its queue pair and its coroutine,
  // from its post to its completion.
  const VerbRecord* cas = nullptr;
  for (const VerbRecord& v : tl.verbs().records())
    if (v.opcode == Opcode::kCas && v.completed != VerbRecord::kNever) {
      cas = &v;
      break;
    }
  ASSERT_NE(cas, nullptr);
  int found = 0;
  for (const json& e : events) {
    if (e.at("ph") != "X" || e.value("cat", "") != "verb" || e.at("name") != "CAS") continue;
    if (e.at("args").at("posted_ns") != cas->posted || e.at("args").at("coroutine") != to_string(cas->who)) continue;
    EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), static_cast<double>(cas->posted) / 1000.0);
    EXPECT_NEAR(e.at("ts").get<double>() + e.at("dur").get<double>(), static_cast<double>(cas->completed) / 1000.0,
                1e-6);
    EXPECT_EQ(e.at("args").at("completed_ns"), cas->completed);
    EXPECT_EQ(e.at("args").at("address"), r.x.to_string());
    EXPECT_EQ(e.at("args").at("status"), to_string(cas->status));
    ++found;
  }
  EXPECT_EQ(found, 2);  // one slice on the queue pair's track, one on the coroutine's

  // Contended CASes queue for the lock-table slot of x; they show as waits.
  size_t slot_waits = 0;
  for (const NicWait& w : tl.waits()) slot_waits += std::string(w.resource) == "lock_table_slot";
  EXPECT_GT(slot_waits, 0u);
  size_t wait_events = 0;
  for (const json& e : events) wait_events += e.value("cat", "") == "nic_wait" && e.at("name") == "lock_table_slot";
  EXPECT_EQ(wait_events, slot_waits);
}

TEST(Timeline, RecordingChangesNoRun) {
  for (uint64_t seed : {1, 2, 3}) {
    for (const char* profile : {"spec", "connectx"}) {
      Timeline tl;
      EXPECT_EQ(contended(seed, profile, &tl).hash, contended(seed, profile, nullptr).hash)
          << profile << " seed " << seed;
    }
  }
}

TEST(Timeline, ShowsTheRelaxationsApplied) {
  // Under the spec profile some seed of this run reorders a READ's lines
  // (read_lines_unordered) or applies another relaxation; the first such
  // seed's events appear as instants named by their switch.
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Timeline tl;
    contended(seed, "spec", &tl);
    if (tl.relaxations().events().empty()) continue;
    const json events = parse_and_validate(tl.to_json());
    std::map<std::string, size_t> instants;
    for (const json& e : events)
      if (e.at("ph") == "i" && e.value("cat", "") == "relaxation") ++instants[e.at("name").get<std::string>()];
    for (const RelaxationEvent& ev : tl.relaxations().events())
      EXPECT_EQ(instants[ev.relaxation], tl.relaxations().count(ev.relaxation)) << ev.relaxation;
    return;
  }
  FAIL() << "no seed in 1..50 applied a relaxation";
}

TEST(Timeline, KeepsAtMostItsLimitAndCountsTheRest) {
  Timeline tl(40);
  contended(3, "spec", &tl);
  const json doc = json::parse(tl.to_json());
  size_t kept = 0;
  for (const json& e : doc.at("traceEvents")) kept += e.at("ph") != "M";
  EXPECT_EQ(kept, 40u);
  EXPECT_EQ(doc.at("otherData").at("events"), 40u);
  EXPECT_GT(doc.at("otherData").at("dropped_events").get<uint64_t>(), 0u);
  parse_and_validate(tl.to_json());
}

TEST(Timeline, RecordsOnlyTheFirstBackendAttached) {
  Timeline tl;
  contended(1, "spec", &tl);
  ClusterConfig c;
  SimBackend other(c);
  EXPECT_FALSE(tl.attach(other));
}

}  // namespace
}  // namespace lw
