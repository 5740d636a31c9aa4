// The direct serialization graph of committed transactions (Adya's DSG, as
// Elle builds it) from exact versions: see serializability.h.
//
// Cost: O(R log R) to index R recorded reads and writes, O(T + E) for
// Tarjan's SCCs, and per reported SCC at most kMaxCycleSearches BFS runs
// inside the SCC. Tarjan is iterative: a chain of thousands of
// transactions must not overflow the stack.
#include "latchwork/check/serializability.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

#include "latchwork/check/history.h"

namespace lw::check {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class EdgeKind : uint8_t { kWw, kWr, kRw };
const char* edge_name(EdgeKind k) { return k == EdgeKind::kWw ? "ww" : k == EdgeKind::kWr ? "wr" : "rw"; }

struct Edge {
  uint32_t to;
  EdgeKind kind;
  uint16_t table;
  uint64_t key;
  uint64_t version;  // ww/wr: the version written by the source; rw: the version read
  uint64_t next;     // rw: the version the target wrote
};

struct RecKey {
  uint16_t table;
  uint64_t key;
  bool operator==(const RecKey&) const = default;
};
struct RecKeyHash {
  size_t operator()(const RecKey& k) const { return std::hash<uint64_t>()(k.key * 0x9e3779b97f4a7c15ull ^ k.table); }
};

// Who wrote and who read each version of one record.
struct Access {
  uint64_t version;
  uint32_t txn;
  bool operator<(const Access& o) const { return version != o.version ? version < o.version : txn < o.txn; }
};
struct RecordAccesses {
  std::vector<Access> writes, reads;
};

// Caps each violation kind at kMaxPerKind, then says how many were left out.
class Sink {
 public:
  explicit Sink(std::vector<ModelViolation>* out) : out_(out) {}
  void add(ModelViolation v) {
    size_t& n = counts_[v.kind];
    if (n++ < SerializabilityModel::kMaxPerKind) out_->push_back(std::move(v));
  }
  void finish() {
    for (const auto& [kind, n] : counts_) {
      if (n <= SerializabilityModel::kMaxPerKind) continue;
      ModelViolation v;
      v.kind = kind;
      v.detail = std::to_string(n - SerializabilityModel::kMaxPerKind) + " more " + kind + " violation(s) not shown";
      out_->push_back(std::move(v));
    }
  }

 private:
  std::vector<ModelViolation>* out_;
  std::map<std::string, size_t> counts_;
};

class Checker {
 public:
  Checker(const std::vector<txn::CommitRecord>& txns, const std::vector<std::string>& names)
      : txns_(txns), names_(names), adj_(txns.size()) {}

  std::string table(uint16_t t) const {
    return t < names_.size() && !names_[t].empty() ? names_[t] : "table " + std::to_string(t);
  }
  std::string record(uint16_t t, uint64_t key) const { return table(t) + " key " + std::to_string(key); }

  // "T12 (coordinator 3 txn 5, compute 1/0/2, [1234, 5678] ns)"
  std::string txn(uint32_t i) const {
    const txn::CommitRecord& r = txns_[i];
    std::ostringstream o;
    o << "T" << i << " (coordinator " << r.coordinator << " txn " << (r.id & 0xffffffffu) << ", "
      << describe(r.who) << ", [" << r.start << ", " << r.end << "] ns" << (r.read_only ? ", read-only" : "")
      << ")";
    return o.str();
  }

  void index(Sink& sink) {
    for (uint32_t i = 0; i < txns_.size(); ++i) {
      for (const txn::WriteVersion& w : txns_[i].writes) recs_[{w.table, w.key}].writes.push_back({w.version, i});
      for (const txn::ReadVersion& r : txns_[i].reads) recs_[{r.table, r.key}].reads.push_back({r.version, i});
    }
    // Deterministic order of reports: by record.
    order_.reserve(recs_.size());
    for (auto& [k, acc] : recs_) {
      std::sort(acc.writes.begin(), acc.writes.end());
      std::sort(acc.reads.begin(), acc.reads.end());
      order_.push_back(k);
    }
    std::sort(order_.begin(), order_.end(),
              [](const RecKey& a, const RecKey& b) { return a.table != b.table ? a.table < b.table : a.key < b.key; });
    for (const RecKey& k : order_) edges_of(k, recs_[k], sink);
  }

  // The writer of version v of a record (the first if several), or kNone.
  static uint32_t writer(const RecordAccesses& acc, uint64_t v) {
    auto it = std::lower_bound(acc.writes.begin(), acc.writes.end(), Access{v, 0});
    return it != acc.writes.end() && it->version == v ? it->txn : kNone;
  }
  // The first write of a version after v: {version, txn} or txn kNone.
  static Access next_write(const RecordAccesses& acc, uint64_t v) {
    auto it = std::upper_bound(acc.writes.begin(), acc.writes.end(), Access{v, kNone});
    return it == acc.writes.end() ? Access{0, kNone} : *it;
  }

  // A violation by transaction `t` on record k.
  ModelViolation violation(const char* kind, const RecKey& k, uint32_t t, std::string detail) const {
    ModelViolation v;
    v.kind = kind;
    v.key = k.key;
    v.start = txns_[t].start;
    v.end = txns_[t].end;
    v.who = txns_[t].who;
    v.detail = std::move(detail);
    return v;
  }

  void edge(uint32_t from, Edge e) {
    if (from == e.to) return;  // a transaction reading what it then overwrites
    adj_[from].push_back(e);
  }

  void edges_of(const RecKey& k, const RecordAccesses& acc, Sink& sink) {
    const std::vector<Access>& ws = acc.writes;
    for (size_t i = 0; i < ws.size(); ++i) {
      const Access& w = ws[i];
      if (i > 0 && ws[i - 1].version == w.version) {
        sink.add(violation("lost-update", k, w.txn,
                           record(k.table, k.key) + ": version " + std::to_string(w.version) + " installed twice, by " +
                               txn(ws[i - 1].txn) + " and " + txn(w.txn) + ": one overwrote the other's update"));
        continue;
      }
      if (w.version == 0 || (w.version > 1 && (i == 0 || ws[i - 1].version != w.version - 1))) {
        sink.add(violation("version-gap", k, w.txn,
                           record(k.table, k.key) + ": " + txn(w.txn) + " installed version " +
                               std::to_string(w.version) + " but no committed transaction installed version " +
                               (w.version == 0 ? std::string("0 (loaded versions are 0: writes start at 1)")
                                               : std::to_string(w.version - 1))));
      }
      if (i > 0 && ws[i - 1].version + 1 == w.version)
        edge(ws[i - 1].txn, {w.txn, EdgeKind::kWw, k.table, k.key, ws[i - 1].version, w.version});
    }
    for (const Access& r : acc.reads) {
      if (r.version > 0) {
        const uint32_t wr = writer(acc, r.version);
        if (wr == kNone) {
          sink.add(violation("aborted-read", k, r.txn,
                             record(k.table, k.key) + ": " + txn(r.txn) + " read version " + std::to_string(r.version) +
                                 ", which no committed transaction installed"));
        } else {
          edge(wr, {r.txn, EdgeKind::kWr, k.table, k.key, r.version, r.version});
        }
      }
      const Access nx = next_write(acc, r.version);
      if (nx.txn != kNone) edge(r.txn, {nx.txn, EdgeKind::kRw, k.table, k.key, r.version, nx.version});
    }
  }

  // Iterative Tarjan: comp_[v] = its SCC's index; sccs_ lists members.
  void tarjan() {
    const uint32_t n = static_cast<uint32_t>(adj_.size());
    std::vector<uint32_t> idx(n, kNone), low(n, 0);
    std::vector<bool> on(n, false);
    std::vector<uint32_t> stack;
    struct Frame {
      uint32_t v;
      size_t next;
    };
    std::vector<Frame> call;
    comp_.assign(n, kNone);
    uint32_t counter = 0;
    for (uint32_t s = 0; s < n; ++s) {
      if (idx[s] != kNone) continue;
      call.push_back({s, 0});
      idx[s] = low[s] = counter++;
      stack.push_back(s);
      on[s] = true;
      while (!call.empty()) {
        Frame& f = call.back();
        const uint32_t v = f.v;
        if (f.next < adj_[v].size()) {
          const uint32_t w = adj_[v][f.next++].to;
          if (idx[w] == kNone) {
            idx[w] = low[w] = counter++;
            stack.push_back(w);
            on[w] = true;
            call.push_back({w, 0});
          } else if (on[w]) {
            low[v] = std::min(low[v], idx[w]);
          }
          continue;
        }
        if (low[v] == idx[v]) {
          std::vector<uint32_t> members;
          for (;;) {
            const uint32_t w = stack.back();
            stack.pop_back();
            on[w] = false;
            comp_[w] = static_cast<uint32_t>(sccs_.size());
            members.push_back(w);
            if (w == v) break;
          }
          std::sort(members.begin(), members.end());
          sccs_.push_back(std::move(members));
        }
        call.pop_back();
        if (!call.empty()) low[call.back().v] = std::min(low[call.back().v], low[v]);
      }
    }
  }

  // The shortest cycle through `start` inside its SCC (BFS), as edges from
  // `start`; empty if none.
  std::vector<std::pair<uint32_t, const Edge*>> shortest_through(uint32_t start) const {
    const uint32_t c = comp_[start];
    std::unordered_map<uint32_t, std::pair<uint32_t, const Edge*>> parent;  // node -> (from, edge)
    std::vector<uint32_t> queue{start};
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      const uint32_t v = queue[qi];
      for (const Edge& e : adj_[v]) {
        if (comp_[e.to] != c) continue;
        if (e.to == start) {
          std::vector<std::pair<uint32_t, const Edge*>> path{{v, &e}};
          for (uint32_t x = v; x != start;) {
            const auto& [from, pe] = parent.at(x);
            path.push_back({from, pe});
            x = from;
          }
          std::reverse(path.begin(), path.end());
          return path;
        }
        if (parent.count(e.to)) continue;
        parent[e.to] = {v, &e};
        queue.push_back(e.to);
      }
    }
    return {};
  }

  std::string describe_edge(const Edge& e) const {
    std::ostringstream o;
    o << " -" << edge_name(e.kind) << "(" << record(e.table, e.key) << ": ";
    if (e.kind == EdgeKind::kWw) o << "wrote v" << e.version << ", next v" << e.next;
    else if (e.kind == EdgeKind::kWr) o << "wrote v" << e.version << ", read";
    else o << "read v" << e.version << ", next v" << e.next;
    o << ")-> ";
    return o.str();
  }

  void cycles(std::vector<ModelViolation>* out) const {
    size_t reported = 0, cyclic = 0;
    for (const std::vector<uint32_t>& scc : sccs_) {
      if (scc.size() < 2) continue;
      ++cyclic;
      if (reported >= SerializabilityModel::kMaxCyclesReported) continue;
      std::vector<std::pair<uint32_t, const Edge*>> best;
      const size_t starts = std::min(scc.size(), SerializabilityModel::kMaxCycleSearches);
      for (size_t i = 0; i < starts; ++i) {
        auto c = shortest_through(scc[i]);
        if (!c.empty() && (best.empty() || c.size() < best.size())) best = std::move(c);
        if (best.size() == 2) break;  // no shorter cycle without self edges
      }
      if (best.empty()) continue;
      std::string d = "a cycle of " + std::to_string(best.size()) + " transactions (SCC of " +
                      std::to_string(scc.size()) + "): ";
      for (const auto& [from, e] : best) d += txn(from) + describe_edge(*e);
      d += "T" + std::to_string(best.front().first);
      ModelViolation v;
      v.kind = "cycle";
      v.key = best.front().second->key;
      const txn::CommitRecord& r = txns_[best.front().first];
      v.start = r.start;
      v.end = r.end;
      v.who = r.who;
      v.detail = std::move(d);
      out->push_back(std::move(v));
      ++reported;
    }
    if (cyclic > reported) {
      ModelViolation v;
      v.kind = "cycle";
      v.detail = std::to_string(cyclic - reported) + " more cyclic component(s) not shown";
      out->push_back(std::move(v));
    }
  }

  // The last committed write of a record: {version, txn} or txn kNone.
  Access last_write(uint16_t t, uint64_t key) const {
    auto it = recs_.find({t, key});
    if (it == recs_.end() || it->second.writes.empty()) return {0, kNone};
    return it->second.writes.back();
  }

 private:
  const std::vector<txn::CommitRecord>& txns_;
  const std::vector<std::string>& names_;
  std::vector<std::vector<Edge>> adj_;
  std::unordered_map<RecKey, RecordAccesses, RecKeyHash> recs_;
  std::vector<RecKey> order_;
  std::vector<uint32_t> comp_;
  std::vector<std::vector<uint32_t>> sccs_;
};

}  // namespace

void SerializabilityModel::committed(const txn::CommitRecord& r) {
  std::lock_guard<std::mutex> g(mu_);
  txns_.push_back(r);
}

void SerializabilityModel::final_state(uint16_t table, uint64_t key, uint64_t version, uint64_t payload_hash) {
  std::lock_guard<std::mutex> g(mu_);
  finals_.push_back({table, key, version, payload_hash});
}

void SerializabilityModel::set_table_names(std::vector<std::string> names) {
  std::lock_guard<std::mutex> g(mu_);
  table_names_ = std::move(names);
}

size_t SerializabilityModel::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return txns_.size();
}

void SerializabilityModel::check(std::vector<ModelViolation>* out) const {
  std::lock_guard<std::mutex> g(mu_);
  Checker c(txns_, table_names_);
  Sink sink(out);
  c.index(sink);
  c.tarjan();
  c.cycles(out);
  std::vector<Final> finals = finals_;
  std::sort(finals.begin(), finals.end(),
            [](const Final& a, const Final& b) { return a.table != b.table ? a.table < b.table : a.key < b.key; });
  for (const Final& f : finals) {
    const auto last = c.last_write(f.table, f.key);
    const uint64_t want = last.txn == kNone ? 0 : last.version;
    const bool hash_bad = last.txn != kNone && f.version == want && txns_[last.txn].writes.size() > 0 && [&] {
      for (const txn::WriteVersion& w : txns_[last.txn].writes)
        if (w.table == f.table && w.key == f.key && w.version == want) return w.payload_hash != f.payload_hash;
      return false;
    }();
    if (f.version == want && !hash_bad) continue;
    ModelViolation v;
    v.kind = "final-state";
    v.key = f.key;
    std::ostringstream o;
    o << c.record(f.table, f.key) << ": the store holds version " << f.version;
    if (hash_bad) o << " with payload hash 0x" << std::hex << f.payload_hash << std::dec;
    if (last.txn == kNone) {
      o << ", but no committed transaction wrote it (loaded as version 0)";
    } else {
      o << ", but the last committed write is version " << want << " by " << c.txn(last.txn);
      if (hash_bad) o << " (a different value: an aborted or lost write left its trace)";
      v.start = txns_[last.txn].start;
      v.end = txns_[last.txn].end;
      v.who = txns_[last.txn].who;
    }
    v.detail = o.str();
    sink.add(std::move(v));
  }
  sink.finish();
}

}  // namespace lw::check
