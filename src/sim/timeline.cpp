#include "latchwork/sim/timeline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "latchwork/base/hex.h"
#include "latchwork/sim/sim_backend.h"

namespace lw {

namespace {

using nlohmann::json;

// Which of the recorded things a trace event shows.
enum class Source : uint8_t { kVerbOnQp, kVerbOnCoroutine, kFirstAccess, kLastAccess, kRelaxation, kWait };

struct Item {
  Nanos ts = 0, dur = 0;
  char ph = 'X';
  uint32_t pid = 0, tid = 0;
  Source source = Source::kVerbOnQp;
  size_t index = 0;  // into the verbs, relaxations or waits
};

// Requester nodes as processes: compute node n is pid n + 1, memory node m
// (its threads' verbs, symmetric nodes) is pid 1001 + m.
constexpr uint32_t kMemoryPidBase = 1001;
uint32_t pid_of(const Placement& p) { return p.on_memory_node() ? kMemoryPidBase + p.node : p.node + 1; }
std::string process_name(uint32_t pid) {
  return pid >= kMemoryPidBase ? "memory node " + std::to_string(pid - kMemoryPidBase)
                               : "compute node " + std::to_string(pid - 1);
}
std::string coroutine_track(const Placement& p) {
  return "thread " + std::to_string(p.thread) + " coroutine " + std::to_string(p.coroutine);
}
std::string qp_track(uint32_t thread, NodeId target) {
  return "QP thread " + std::to_string(thread) + " -> node " + std::to_string(target);
}

double micros(Nanos ns) { return static_cast<double>(ns) / 1000.0; }

// Tracks split into lanes (tids) so that slices on one tid never overlap:
// each slice goes to the first lane of its track free by its start.
class Lanes {
 public:
  // `order` fixes the tids' order in viewers: coroutines, then queue pairs, then waits.
  uint32_t place(uint32_t pid, int order, const std::string& track, Nanos start, Nanos end) {
    std::vector<Nanos>& ends = ends_[{pid, order, track}];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > start) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = std::max(end, start);
    return tid_of(pid, order, track, lane);
  }
  // The first lane (instants).
  uint32_t first(uint32_t pid, int order, const std::string& track) {
    std::vector<Nanos>& ends = ends_[{pid, order, track}];
    if (ends.empty()) ends.push_back(0);
    return tid_of(pid, order, track, 0);
  }
  // Names of every (pid, tid) handed out, in order.
  struct Named {
    uint32_t pid, tid;
    std::string name;
    int sort;
  };
  std::vector<Named> names() const {
    std::vector<Named> out;
    for (const auto& [key, tid] : tids_) {
      const auto& [pid, order, track, lane] = key;
      out.push_back({pid, tid, lane == 0 ? track : track + " #" + std::to_string(lane + 1),
                     static_cast<int>(tid)});
    }
    return out;
  }

 private:
  using Track = std::tuple<uint32_t, int, std::string>;
  using Lane = std::tuple<uint32_t, int, std::string, size_t>;
  uint32_t tid_of(uint32_t pid, int order, const std::string& track, size_t lane) {
    auto [it, added] = tids_.emplace(Lane{pid, order, track, lane}, 0);
    if (added) it->second = next_tid_++;
    return it->second;
  }
  std::map<Track, std::vector<Nanos>> ends_;
  std::map<Lane, uint32_t> tids_;
  uint32_t next_tid_ = 1;
};

}  // namespace

Timeline::Timeline(size_t max_events) : max_(max_events), verbs_(max_events), relaxations_(max_events) {}

bool Timeline::attach(SimBackend& sim) {
  if (attached_) return false;
  attached_ = true;
  compute_nodes_ = sim.config().compute_nodes;
  sim.set_verb_trace(&verbs_);
  sim.set_relaxation_log(&relaxations_);
  sim.set_wait_recorder(this);
  return true;
}

bool Timeline::attach(Backend& b) {
  auto* sim = dynamic_cast<SimBackend*>(&b);
  return sim != nullptr && attach(*sim);
}

void Timeline::record_wait(const char* resource, const WrRoute& r, Nanos start, Nanos end) {
  if (waits_.size() >= max_) {
    ++waits_dropped_;
    return;
  }
  waits_.push_back({resource, r, start, end});
}

std::string Timeline::to_json() const {
  const std::vector<VerbRecord>& verbs = verbs_.records();
  const std::vector<RelaxationEvent>& relax = relaxations_.events();
  // The run's end, for requests still in flight when it stopped.
  Nanos run_end = 0;
  for (const VerbRecord& v : verbs)
    run_end = std::max({run_end, v.posted, v.completed == VerbRecord::kNever ? 0 : v.completed,
                        v.last_access == VerbRecord::kNever ? 0 : v.last_access});
  for (const NicWait& w : waits_) run_end = std::max(run_end, w.end);
  for (const RelaxationEvent& e : relax) run_end = std::max(run_end, e.until);

  // Slices, in start order, so that each lane fills left to right.
  std::vector<Item> items;
  items.reserve(verbs.size() * 2 + waits_.size());
  for (size_t i = 0; i < verbs.size(); ++i) {
    const VerbRecord& v = verbs[i];
    const Nanos end = v.completed == VerbRecord::kNever ? std::max(run_end, v.posted) : v.completed;
    items.push_back({v.posted, end - v.posted, 'X', pid_of(v.who), 0, Source::kVerbOnQp, i});
    items.push_back({v.posted, end - v.posted, 'X', pid_of(v.who), 0, Source::kVerbOnCoroutine, i});
  }
  for (size_t i = 0; i < waits_.size(); ++i) {
    const NicWait& w = waits_[i];
    const Placement who{w.route.compute_node < compute_nodes_ ? Placement::Kind::kCompute : Placement::Kind::kMemory,
                        w.route.compute_node < compute_nodes_ ? w.route.compute_node
                                                              : w.route.compute_node - compute_nodes_,
                        w.route.thread_in_node, 0};
    items.push_back({w.start, w.end - w.start, 'X', pid_of(who), 0, Source::kWait, i});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.ts < b.ts; });
  Lanes lanes;
  std::vector<uint32_t> verb_qp_tid(verbs.size(), 0);
  for (Item& it : items) {
    const Nanos end = it.ts + it.dur;
    if (it.source == Source::kWait) {
      const NicWait& w = waits_[it.index];
      it.tid = lanes.place(it.pid, 2, qp_track(w.route.thread_in_node, w.route.memory_node) + ": NIC waits", it.ts, end);
    } else if (it.source == Source::kVerbOnQp) {
      const VerbRecord& v = verbs[it.index];
      it.tid = lanes.place(it.pid, 1, qp_track(v.who.thread, v.remote.node()), it.ts, end);
      verb_qp_tid[it.index] = it.tid;
    } else {
      it.tid = lanes.place(it.pid, 0, coroutine_track(verbs[it.index].who), it.ts, end);
    }
  }
  // Instants: memory accesses on their verb's queue-pair lane, relaxations
  // on the coroutine they affected.
  for (size_t i = 0; i < verbs.size(); ++i) {
    const VerbRecord& v = verbs[i];
    if (v.first_access == VerbRecord::kNever) continue;
    items.push_back({v.first_access, 0, 'i', pid_of(v.who), verb_qp_tid[i], Source::kFirstAccess, i});
    if (v.last_access != VerbRecord::kNever && v.last_access != v.first_access)
      items.push_back({v.last_access, 0, 'i', pid_of(v.who), verb_qp_tid[i], Source::kLastAccess, i});
  }
  for (size_t i = 0; i < relax.size(); ++i) {
    const uint32_t pid = pid_of(relax[i].who);
    items.push_back({relax[i].at, 0, 'i', pid, lanes.first(pid, 0, coroutine_track(relax[i].who)),
                     Source::kRelaxation, i});
  }
  // The limit keeps the earliest events.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.ts < b.ts; });
  const uint64_t cut = items.size() > max_ ? items.size() - max_ : 0;
  if (cut) items.resize(max_);

  std::ostringstream os;
  os << "{\"traceEvents\":[";
  bool first = true;
  auto emit = [&](const json& e) {
    os << (first ? "\n" : ",\n") << e.dump();
    first = false;
  };
  auto verb_args = [](const VerbRecord& v) {
    json a = {{"address", v.remote.to_string()},
              {"length", v.length},
              {"coroutine", to_string(v.who)},
              {"posted_ns", v.posted}};
    if (v.completed == VerbRecord::kNever) {
      a["status"] = "in flight when the run stopped";
    } else {
      a["status"] = to_string(v.status);
      a["completed_ns"] = v.completed;
      a["value"] = hex(v.value);
    }
    if (v.first_access != VerbRecord::kNever) a["first_access_ns"] = v.first_access;
    if (v.last_access != VerbRecord::kNever) a["last_access_ns"] = v.last_access;
    if (v.fence) a["fence"] = true;
    if (!v.signaled) a["signaled"] = false;
    return a;
  };
  for (const Item& it : items) {
    json e = {{"ph", std::string(1, it.ph)}, {"ts", micros(it.ts)}, {"pid", it.pid}, {"tid", it.tid}};
    if (it.ph == 'X') e["dur"] = micros(it.dur);
    if (it.ph == 'i') e["s"] = "t";
    switch (it.source) {
      case Source::kVerbOnQp:
      case Source::kVerbOnCoroutine: {
        const VerbRecord& v = verbs[it.index];
        e["name"] = to_string(v.opcode);
        e["cat"] = "verb";
        e["args"] = verb_args(v);
        break;
      }
      case Source::kFirstAccess:
      case Source::kLastAccess: {
        const VerbRecord& v = verbs[it.index];
        const bool one = v.last_access == v.first_access;
        e["name"] = one ? "access" : it.source == Source::kFirstAccess ? "first line access" : "last line access";
        e["cat"] = "memory";
        e["args"] = {{"verb", to_string(v.opcode)}, {"address", v.remote.to_string()}, {"length", v.length}};
        break;
      }
      case Source::kRelaxation: {
        const RelaxationEvent& r = relax[it.index];
        e["name"] = r.relaxation;
        e["cat"] = "relaxation";
        e["args"] = {{"what", r.what}, {"until_ns", r.until}, {"address", r.addr.to_string()},
                     {"length", r.length}};
        break;
      }
      case Source::kWait: {
        const NicWait& w = waits_[it.index];
        e["name"] = w.resource;
        e["cat"] = "nic_wait";
        e["args"] = {{"start_ns", w.start}, {"end_ns", w.end}};
        break;
      }
    }
    emit(e);
  }
  // Metadata: every process and thread named, and their order.
  std::map<uint32_t, bool> pids;
  for (const Lanes::Named& n : lanes.names()) {
    pids[n.pid] = true;
    emit({{"ph", "M"}, {"name", "thread_name"}, {"ts", 0}, {"pid", n.pid}, {"tid", n.tid},
          {"args", {{"name", n.name}}}});
    emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"ts", 0}, {"pid", n.pid}, {"tid", n.tid},
          {"args", {{"sort_index", n.sort}}}});
  }
  for (const auto& [pid, used] : pids)
    emit({{"ph", "M"}, {"name", "process_name"}, {"ts", 0}, {"pid", pid}, {"tid", 0},
          {"args", {{"name", process_name(pid)}}}});
  const uint64_t not_recorded = verbs_.dropped() + relaxations_.dropped() + waits_dropped_;
  const json other = {{"generator", "latchwork timeline"},
                      {"time", "virtual (simulator) time; ts in microseconds"},
                      {"event_limit", max_},
                      {"events", items.size()},
                      {"dropped_events", cut + not_recorded},
                      {"verbs", verbs.size()},
                      {"verbs_not_recorded", verbs_.dropped()},
                      {"relaxations", relax.size()},
                      {"relaxations_not_recorded", relaxations_.dropped()},
                      {"nic_waits", waits_.size()},
                      {"nic_waits_not_recorded", waits_dropped_}};
  os << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" << other.dump() << "}\n";
  return os.str();
}

}  // namespace lw
