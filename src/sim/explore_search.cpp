// The explorer's search: depth-first over the enabled steps, replaying the
// program from its start whenever it must back up (coroutines cannot be
// copied), pruning states seen before, and, with check_progress, a backward
// reachability pass over the recorded state graph from the terminal states.
#include <algorithm>
#include <chrono>
#include <exception>
#include <unordered_map>
#include <utility>

#include "explore_impl.h"
#include "explore_states.h"

namespace lw::explore {

std::string Spec::validate() const {
  if (nodes == 0 || nodes > 1024) return "nodes must be in 1..1024";
  if (workers.empty() || workers.size() > 4096) return "workers must name 1..4096 placements";
  if (!program) return "program is not set";
  if (node_bytes < 2 * NodeMemory::kReservedBytes || node_bytes > (uint64_t{1} << 30) || node_bytes % kWord != 0)
    return "node_bytes must be a multiple of 8 in 8 KiB..1 GiB";
  if (device_bytes > (uint64_t{1} << 30) || device_bytes % kWord != 0)
    return "device_bytes must be a multiple of 8, at most 1 GiB";
  if (max_states == 0) return "max_states must be at least 1";
  if (max_depth == 0) return "max_depth must be at least 1";
  for (size_t i = 0; i < workers.size(); ++i) {
    const Placement& p = workers[i];
    if (p.on_memory_node() && p.node >= nodes)
      return "worker " + std::to_string(i) + " runs on memory node " + std::to_string(p.node) +
             ", but there are " + std::to_string(nodes);
    for (size_t j = 0; j < i; ++j) {
      const Placement& q = workers[j];
      if (q.kind == p.kind && q.node == p.node && q.thread == p.thread && q.coroutine == p.coroutine)
        return "workers " + std::to_string(j) + " and " + std::to_string(i) + " share a coroutine slot";
    }
  }
  return "";
}

namespace {

using detail::H128;
using detail::Machine;
using detail::StateTable;
using detail::Step;

// The readable steps of `path`, and where every worker is at its end.
std::vector<std::string> trace_of(Machine& m, const std::vector<Step>& path, bool waits) {
  std::vector<std::string> lines;
  m.set_log(&lines);
  try {
    m.reset();
    for (const Step& s : path) m.apply(s);
    if (waits) {
      lines.push_back("--- where each worker is at the end:");
      for (std::string& w : m.waits()) lines.push_back(std::move(w));
    }
  } catch (const std::exception& e) {
    lines.push_back(std::string("(the trace's replay stopped: ") + e.what() + ")");
  }
  m.set_log(nullptr);
  return lines;
}

class Search {
 public:
  explicit Search(const Spec& s) : spec_(s), m_(s) {}

  void run(Result* r) {
    r_ = r;
    try {
      search();
      if (!violating_.empty()) report_shortest();
      if (r_->violation.empty() && r_->bound.empty() && spec_.check_progress) check_progress();
    } catch (const std::exception& e) {
      // A failed check in the explorer or in code the program runs outside a
      // coroutine (set-up, invariant, ghost hash).
      fail(std::string("invariant: ") + e.what(), path_, false);
    }
    r_->states = states_.size();
    r_->violating_states = violating_.size();
    r_->complete = r_->violation.empty() && r_->bound.empty();
  }

 private:
  struct Frame {
    uint32_t id;
    uint32_t begin, next, end;  // its enabled steps: steps_[begin, end)
  };

  void fail(std::string why, const std::vector<Step>& path, bool waits) {
    if (!r_->violation.empty()) return;
    r_->violation = std::move(why);
    r_->trace = trace_of(m_, path, waits);
  }

  std::string check_state() {
    if (!m_.failure().empty()) return m_.failure();
    if (spec_.invariant) {
      std::string v = spec_.invariant();
      if (!v.empty()) return "invariant: " + v;
    }
    return "";
  }

  void restart() {
    m_.reset();
    ++r_->replays;
  }

  // A state without enabled steps: the end of an execution, or a deadlock.
  void leaf(uint32_t id) {
    if (!m_.all_finished()) {
      violated(id, "stuck: deadlock: no step is enabled and not every worker has finished");
      return;
    }
    terminal_[id] = 1;
    ++r_->terminal_states;
    if (spec_.final_check) {
      std::string v = spec_.final_check(m_);
      if (!v.empty()) violated(id, "final check: " + v);
    }
  }

  // A violation in state `id` (the current one, reached by path_): the end
  // of the search, or with shortest_trace one candidate among others.
  void violated(uint32_t id, std::string why) {
    if (!spec_.shortest_trace) {
      fail(std::move(why), path_, why.rfind("stuck", 0) == 0);
      return;
    }
    // A violating state is final (not expanded), so it counts as "reaches
    // the end" for the progress check.
    terminal_[id] = 1;
    violating_.emplace(id, std::move(why));
  }

  // The violating state nearest the start, by a breadth-first pass over the
  // recorded edges, and its trace.
  void report_shortest() {
    std::vector<uint32_t> ids = shortest_path([this](uint32_t id) { return violating_.count(id) > 0; });
    LW_CHECK(!ids.empty());
    const std::string& why = violating_.at(ids.back());
    fail(why, steps_along(ids), why.rfind("stuck", 0) == 0);
  }

  // The state ids of a shortest path from the start to a state `target`
  // accepts (empty if none is reachable). Bounded by the states and edges.
  template <typename Target>
  std::vector<uint32_t> shortest_path(const Target& target) {
    const size_t n = states_.size();
    std::vector<uint32_t> first(n + 1, 0);
    for (const auto& e : edges_) ++first[e.first + 1];
    for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    std::vector<uint32_t> succ(edges_.size());
    {
      std::vector<uint32_t> fill(first.begin(), first.end() - 1);
      for (const auto& e : edges_) succ[fill[e.first]++] = e.second;
    }
    std::vector<uint32_t> parent(n, StateTable::kNone);
    std::vector<uint32_t> queue = {0};
    parent[0] = 0;
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      const uint32_t at = queue[qi];
      if (target(at)) {
        std::vector<uint32_t> ids;
        for (uint32_t x = at; x != 0; x = parent[x]) ids.push_back(x);
        ids.push_back(0);
        return {ids.rbegin(), ids.rend()};
      }
      for (uint32_t k = first[at]; k < first[at + 1]; ++k)
        if (parent[succ[k]] == StateTable::kNone) {
          parent[succ[k]] = at;
          queue.push_back(succ[k]);
        }
    }
    return {};
  }

  // The steps through the states `ids` (from the start). Op slots may differ
  // between paths to one state, so each step is found again: the enabled
  // step whose result has the next state's hash.
  std::vector<Step> steps_along(const std::vector<uint32_t>& ids) {
    std::vector<Step> path;
    restart();
    for (size_t i = 1; i < ids.size(); ++i) {
      m_.enabled(&enabled_);
      const std::vector<Step> candidates = enabled_;
      bool found = false;
      for (size_t c = 0; c < candidates.size() && !found; ++c) {
        if (c > 0) {
          restart();
          for (const Step& s : path) m_.apply(s);
        }
        m_.apply(candidates[c]);
        found = m_.state_hash() == states_.key(ids[i]);
        if (found) path.push_back(candidates[c]);
      }
      LW_CHECK_MSG(found, "explore: a recorded step could not be taken again (is the program deterministic?)");
    }
    return path;
  }

  // Inserts the current state; returns its id and whether it is new.
  std::pair<uint32_t, bool> visit(uint32_t parent, const Step& via) {
    bool inserted = false;
    const uint32_t id = states_.find_or_insert(m_.state_hash(), parent, via,
                                               static_cast<uint32_t>(path_.size()), &inserted);
    if (inserted) terminal_.push_back(0);
    if ((spec_.check_progress || spec_.shortest_trace) && parent != StateTable::kNone)
      edges_.emplace_back(parent, id);
    return {id, inserted};
  }

  // Lists the new state's steps: pushes a frame, or ends the execution here.
  void expand(uint32_t id) {
    m_.enabled(&enabled_);
    if (enabled_.empty()) {
      leaf(id);
      return;
    }
    if (path_.size() >= spec_.max_depth) {
      r_->bound = "max_depth (" + std::to_string(spec_.max_depth) + " steps in one execution)";
      return;
    }
    const uint32_t begin = static_cast<uint32_t>(steps_.size());
    steps_.insert(steps_.end(), enabled_.begin(), enabled_.end());
    stack_.push_back({id, begin, begin, static_cast<uint32_t>(steps_.size())});
  }

  void search() {
    restart();
    if (std::string v = check_state(); !v.empty()) return fail(v, path_, false);
    expand(visit(StateTable::kNone, {}).first);
    bool in_sync = true;  // the machine is in the state of the top frame
    // Bounded: every iteration takes a step or pops a frame, and the states
    // (hence frames pushed) are bounded by max_states.
    while (!stack_.empty() && r_->violation.empty()) {
      Frame& f = stack_.back();
      if (f.next == f.end) {
        steps_.resize(f.begin);
        stack_.pop_back();
        if (!path_.empty()) path_.pop_back();
        in_sync = false;
        continue;
      }
      if (!in_sync) {
        restart();
        for (const Step& s : path_) m_.apply(s);
        LW_CHECK_MSG(m_.state_hash() == states_.key(f.id),
                     "explore: the program is not deterministic: replaying the same steps reached a "
                     "different state (does it read a clock, or state its set-up does not reset?)");
        in_sync = true;
      }
      const Step step = steps_[f.next++];
      const uint32_t from = f.id;
      m_.apply(step);
      path_.push_back(step);
      ++r_->transitions;
      r_->max_depth = std::max(r_->max_depth, static_cast<uint32_t>(path_.size()));
      std::string v = check_state();
      if (!v.empty() && !spec_.shortest_trace) return fail(v, path_, false);
      const auto [id, inserted] = visit(from, step);
      if (inserted && states_.size() > spec_.max_states) {
        r_->bound = "max_states (" + std::to_string(spec_.max_states) + " states)";
        return;
      }
      const size_t frames = stack_.size();
      if (inserted && !v.empty()) violated(id, std::move(v));
      else if (inserted) expand(id);
      if (stack_.size() == frames) {  // nothing to explore below: back up
        path_.pop_back();
        in_sync = false;
      }
    }
  }

  // Every state must reach a terminal state: backward reachability over the
  // recorded edges from the terminal states; the shallowest state that
  // cannot is reported.
  void check_progress() {
    const size_t n = states_.size();
    std::vector<uint32_t> first(n + 1, 0);
    for (const auto& e : edges_) ++first[e.second + 1];
    for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    std::vector<uint32_t> preds(edges_.size());
    {
      std::vector<uint32_t> fill(first.begin(), first.end() - 1);
      for (const auto& e : edges_) preds[fill[e.second]++] = e.first;
    }
    std::vector<std::pair<uint32_t, uint32_t>> kept_edges;
    if (spec_.shortest_trace) kept_edges.swap(edges_);
    std::vector<std::pair<uint32_t, uint32_t>>().swap(edges_);
    std::vector<uint8_t> reaches(n, 0);
    std::vector<uint32_t> queue;
    for (uint32_t i = 0; i < n; ++i)
      if (terminal_[i]) {
        reaches[i] = 1;
        queue.push_back(i);
      }
    for (size_t qi = 0; qi < queue.size(); ++qi)  // each state enters once: bounded by n
      for (uint32_t k = first[queue[qi]]; k < first[queue[qi] + 1]; ++k)
        if (!reaches[preds[k]]) {
          reaches[preds[k]] = 1;
          queue.push_back(preds[k]);
        }
    uint32_t worst = StateTable::kNone;
    for (uint32_t i = 0; i < n; ++i)
      if (!reaches[i] && (worst == StateTable::kNone || states_.depth(i) < states_.depth(worst))) worst = i;
    if (worst == StateTable::kNone) return;
    // Every successor of a stuck state is stuck: follow successors from the
    // shallowest one until a state repeats, and report that one, where the
    // workers are seen going round their loop.
    std::vector<uint32_t> succ(n, StateTable::kNone);
    for (uint32_t to = 0; to < n; ++to)
      for (uint32_t k = first[to]; k < first[to + 1]; ++k)
        if (succ[preds[k]] == StateTable::kNone) succ[preds[k]] = to;
    std::vector<uint8_t> seen(n, 0);
    uint32_t at = worst;
    for (size_t walk = 0; walk < n && !seen[at] && succ[at] != StateTable::kNone; ++walk) {
      seen[at] = 1;
      at = succ[at];
    }
    LW_CHECK(!reaches[at]);
    std::vector<Step> path = states_.path_to(at);
    if (spec_.shortest_trace) {
      edges_ = std::move(kept_edges);
      path = steps_along(shortest_path([&](uint32_t id) { return id == at; }));
    }
    fail("stuck: from this state no execution finishes every worker (every path loops: a deadlock "
         "of spinning workers or a livelock); the first such state is " +
             std::to_string(states_.depth(worst)) + " steps deep",
         path, true);
  }

  const Spec& spec_;
  Machine m_;
  Result* r_ = nullptr;
  StateTable states_;
  std::vector<uint8_t> terminal_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::unordered_map<uint32_t, std::string> violating_;  // shortest_trace: state id -> why
  std::vector<Frame> stack_;
  std::vector<Step> steps_;    // the frames' enabled steps, stacked
  std::vector<Step> path_;     // the steps from the start to the current state
  std::vector<Step> enabled_;  // scratch
};

}  // namespace

Result run(const Spec& s) {
  const std::string err = s.validate();
  LW_CHECK_MSG(err.empty(), "explore::Spec: " + err);
  const auto start = std::chrono::steady_clock::now();  // reported only
  Result r;
  {
    ThrowOnInvariant throw_on_invariant;
    Search search(s);
    search.run(&r);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace lw::explore
