// The built-ins' registry, options and the driver options they run under.
#include "latchwork/check/builtin.h"

#include <map>

#include "builtin_internal.h"
#include "driver_internal.h"
#include "latchwork/structures/jasny/tuple_store.h"

namespace lw::check {
namespace {

// One line per scheme for --list; the correctness flag comes from the
// structure's own table, so the two cannot disagree.
const std::map<std::string, std::string>& tuple_descriptions() {
  static const std::map<std::string, std::string> d = {
      {"pessimistic-basic", "reader/writer latch word: CAS | READ | WRITE | FAA(-1); readers FAA | READ | FAA"},
      {"pessimistic-speculative", "as basic, the READ batched behind the latch atomic"},
      {"pessimistic-combining", "as speculative, WRITE and unlatch in one batch"},
      {"pessimistic-async", "as combining, the unlatch batch posted without waiting"},
      {"write-unlatch-faa", "one WRITE of data + free latch word, FAA readers: an FAA writes the latched word back"},
      {"write-unlatch-cas", "one WRITE of data + free latch word; readers CAS too (RCC-NOWAIT)"},
      {"versioning", "optimistic: READ word | READ data | READ word"},
      {"crc64", "optimistic: one READ checked by CRC64, then the word once more"},
      {"farm", "optimistic: one READ checked by per-line versions, then the word once more"},
      {"bookend", "optimistic: one READ accepted when head and tail versions match: lines come in any order"},
      {"crc64-relaxed", "crc64 without the final word READ (a consistent read, section 6)"},
      {"farm-relaxed", "farm without the final word READ (a consistent read, section 6)"},
      {"reversed-write-unlatch", "version word after the data: one WRITE of data + new word unlatches"},
      {"out-of-place", "slot word -> immutable records; writers mark the slot, write a fresh record"},
      {"in-place-marking", "mark word before data overwritten in place: a READ can fetch the mark late"},
      {"switch-optimistic", "versions on the programmable switch, which verifies reads (section 5.5)"},
      {"switch-optimistic-relaxed", "switch-optimistic without the final Read Version"},
  };
  return d;
}

std::vector<BuiltinInfo> make_registry() {
  std::vector<BuiltinInfo> v;
  for (const std::string& s : tuple_scheme_names()) {
    auto it = tuple_descriptions().find(s);
    v.push_back({"tuples", s, tuple_scheme_is_correct(s),
                 it == tuple_descriptions().end() ? std::string("(no description)") : it->second,
                 tuple_scheme_needs_silent_failed_cas(s)});
  }
  v.push_back({"btree", "btree-optimistic", true,
               "B+-tree, 256 B nodes: optimistic lock coupling on version words, splits racing lookups"});
  v.push_back({"btree", "btree-pessimistic", true,
               "B+-tree, 256 B nodes: latch coupling on reader/writer latch words"});
  v.push_back({"hash", "race", true,
               "RACE hashing: slots CASed to out-of-place key-value blocks, duplicate inserts resolved"});
  v.push_back({"hash", "smart-ht", true,
               "RACE under the SMART runtime: throttling, backoff, dynamic limit, coroutine throttling"});
  v.push_back({"hash", "unordered-publish", false,
               "RACE whose slot CAS does not wait for the key-value block's WRITE (another node)"});
  v.push_back({"locks", "alock", true,
               "ALock (Baran et al.): cohort MCS queues + Peterson; local workers use only CPU accesses"});
  v.push_back({"locks", "spin", true, "RDMA CAS spinlock, local workers through loopback; release by CAS 1 -> 0"});
  v.push_back({"locks", "mcs", true, "RDMA MCS: tail CAS by RDMA, waiters spin on their own descriptor"});
  v.push_back({"locks", "spin-local-cpu", false,
               "spinlock whose local workers CAS with the CPU: not atomic with NIC CAS (atomic_loses_cpu)"});
  v.push_back({"locks", "spin-write-unlock", false,
               "spinlock released by a WRITE of 0: a waiter's failed CAS writes 1 back over it "
               "(failed_cas_writes_back, as Soft-RoCE does)"});
  v.push_back({"locks", "alock-victim-after-check", false,
               "ALock whose Peterson tests before writing victim: enters beside the other cohort's holder"});
  v.push_back({"locks", "alock-no-victim", false,
               "ALock with Peterson's flags only: two cohort leaders wait on each other forever"});
  v.push_back({"sherman", "per-line", true,
               "Sherman+ B+Tree: HOCL, combination, a version in every 64-byte line (SMART 5.2)"});
  v.push_back({"sherman", "smart-bt", true, "SMART-BT: per-line versions, speculative lookup, SMART runtime"});
  v.push_back({"sherman", "fg+", true, "FG+: sorted nodes, whole-node write-back, CRC-64, host CAS locks"});
  v.push_back({"sherman", "two-level", false,
               "Sherman's 4-bit node and entry versions: trusts READs to fetch lines in address order"});
  v.push_back({"sherman", "early-handover", false,
               "per-line, but the lock is handed over before the write-back is posted (Fig. 6's order)"});
  return v;
}

}  // namespace

const std::vector<BuiltinInfo>& builtins() {
  static const std::vector<BuiltinInfo> all = make_registry();
  return all;
}

const BuiltinInfo* find_builtin(const std::string& structure, const std::string& scheme) {
  for (const BuiltinInfo& b : builtins())
    if (b.structure == structure && b.scheme == scheme) return &b;
  return nullptr;
}

std::vector<std::string> builtin_schemes(const std::string& structure) {
  std::vector<std::string> v;
  for (const BuiltinInfo& b : builtins())
    if (b.structure == structure) v.push_back(b.scheme);
  return v;
}

std::string builtin_schemes_message(const std::string& structure) {
  const std::vector<std::string> v = builtin_schemes(structure);
  std::string m = "the " + structure + " structure takes the scheme" + (v.size() == 1 ? " " : "s ");
  for (size_t i = 0; i < v.size(); ++i) m += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
  return m;
}

std::string BuiltinOptions::validate() const {
  if (structure != "tuples" && structure != "btree" && structure != "hash" && structure != "locks" &&
      structure != "sherman")
    return "structure must be tuples, btree, hash, locks or sherman";
  if (!find_builtin(structure, scheme)) {
    if (structure != "tuples") return builtin_schemes_message(structure);
    TupleStoreOptions t;
    if (std::string e = parse_tuple_scheme(scheme, &t); !e.empty()) return e;
    return "scheme " + scheme + " is not a tuples scheme";
  }
  if (read_percent > 100) return "read percent must be in [0, 100]";
  if (max_attempts == 0) return "max attempts must be positive";
  if (structure == "btree") return keys == 0 || keys > 100000 ? "keys must be in [1, 100000]" : "";
  if (structure == "hash") return keys == 0 || keys > 100000 ? "keys must be in [1, 100000]" : "";
  if (structure == "sherman") return keys == 0 || keys > 100000 ? "keys must be in [1, 100000]" : "";
  if (structure == "locks") {
    if (local_percent > 100) return "local percent must be in [0, 100]";
    return keys == 0 || keys > 4096 ? "keys must be in [1, 4096]" : "";
  }
  if (keys == 0 || keys > 4096) return "keys must be in [1, 4096]";
  TupleStoreOptions t;
  parse_tuple_scheme(scheme, &t);
  t.tuple_bytes = tuple_bytes;
  t.tuples = keys;
  t.writers = 1;
  t.records_per_writer = 1;
  return t.validate();
}

std::string BuiltinOptions::validate(const Options& o) const {
  if (std::string e = validate(); !e.empty()) return e;
  if (std::string e = o.validate(); !e.empty()) return e;
  const ClusterConfig c = detail::seed_cluster(o, plan_for(o, o.first_seed), o.shape);
  if (std::string e = c.check_queue_depth(ClusterConfig::kMaxBatchWrs); !e.empty()) return e;
  if (structure == "hash") return builtin_detail::hash_dry_run(c, *this);
  if (structure == "locks") return builtin_detail::locks_validate(c, *this);
  if (structure == "sherman") return builtin_detail::sherman_dry_run(c, *this);
  return structure == "btree" ? builtin_detail::btree_dry_run(c, *this)
                              : builtin_detail::tuples_dry_run(c, *this, o.shape.ops_per_worker);
}

Options builtin_check_options(const BuiltinOptions& b, const ClusterConfig& base) {
  Options o;
  o.cluster = base;
  o.cluster.memory_node_bytes = kBuiltinMemoryNodeBytes;
  o.cluster.budget.progress_seconds = 0;  // the command reports progress per seed
  if (b.structure == "tuples") tuple_scheme_prepare_cluster(b.scheme, &o.cluster);
  if (b.structure == "hash") builtin_detail::hash_prepare_cluster(b.scheme, &o.cluster);
  if (b.structure == "sherman") builtin_detail::sherman_prepare_cluster(b.scheme, &o.cluster);
  if (b.structure == "locks") {
    // Symmetric nodes: the workers are memory-node threads (two per node);
    // one compute worker (a remote-only client of the spinlocks).
    builtin_detail::locks_prepare_cluster(&o.cluster);
    lock_scheme_prepare_semantics(b.scheme, &o.cluster.semantics);
    o.shape.compute_nodes = 1;
    o.shape.threads_per_node = 1;
    o.shape.coroutines_per_thread = 1;
    o.shape.memory_node_threads = 2;
  }
  o.first_seed = base.seed;
  return o;
}

std::pair<RemoteAddr, uint64_t> builtin_key_range(const BuiltinOptions& b, const Options& o, const Finding& f,
                                                  uint64_t key) {
  if (b.structure != "tuples") return {};
  return builtin_detail::tuples_key_range(detail::seed_cluster(o, f.plan, f.shape), b, f.shape.ops_per_worker, key);
}

WorkloadExploreOptions builtin_explore_options(const BuiltinOptions& b, const ClusterConfig& base) {
  WorkloadExploreOptions x;
  x.cluster = builtin_check_options(b, base).cluster;
  x.shape = {.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1, .memory_node_threads = 0,
             .ops_per_worker = 2};
  if (b.structure == "sherman") {
    // HOCL's local lock table and the index cache are per compute node and
    // outside remote memory (not state): one worker per compute node keeps
    // them a function of that worker's results. One operation each: fg+
    // takes about a minute even so.
    x.shape.compute_nodes = 2;
    x.shape.threads_per_node = 1;
    x.shape.ops_per_worker = 1;
  }
  x.seeds = 4;
  return x;
}

WorkloadFactory builtin_workload(const BuiltinOptions& b) {
  LW_CHECK_MSG(b.validate().empty(), b.validate());
  if (b.structure == "hash") return builtin_detail::hash_workload(b);
  if (b.structure == "locks") return builtin_detail::locks_workload(b);
  if (b.structure == "sherman") return builtin_detail::sherman_workload(b);
  return b.structure == "btree" ? builtin_detail::btree_workload(b) : builtin_detail::tuples_workload(b);
}

}  // namespace lw::check
