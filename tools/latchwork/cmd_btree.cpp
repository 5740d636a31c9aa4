// latchwork btree: Sherman, Sherman+, SMART-BT and FG+ B+Trees under Sherman
// Table 3's and SMART §6.2.1's workloads (Sherman §5, SMART §6.2.3).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/base/assert.h"
#include "latchwork/base/zipf.h"
#include "runs/hash_run.h"
#include "runs/sherman_run.h"
#include "output_path.h"
#include "plot_json.h"
#include "process_flags.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

void print_result(const ShermanRunResult& r, const ShermanRunOptions& o, const ClusterConfig& c) {
  const sherman::TreeConfig& t = o.tree;
  std::printf("# %s (%s versions, combine=%d, HOCL on-chip=%d hierarchical=%d handover=%d, speculative "
              "lookup=%d), %s, zipf %.2f, %s backend, nic %s, qp policy %s, seed %llu\n",
              r.index.c_str(), sherman::to_string(t.scheme), t.combine, t.lock.on_chip, t.lock.hierarchical,
              t.lock.handover, t.speculative_lookup, r.mix.c_str(), o.zipf, c.backend.c_str(), c.nic.profile.c_str(),
              to_string(c.nic.qp_policy), static_cast<unsigned long long>(c.seed));
  std::printf("%-26s %llu (%u compute x %u threads x %u coroutines, %u memory nodes)\n", "workers",
              static_cast<unsigned long long>(r.workers), c.compute_nodes, c.threads_per_node,
              c.coroutines_per_thread, c.memory_nodes);
  std::printf("%-26s %llu loaded keys, %u-byte nodes, %u-byte keys, height %u\n", "tree",
              static_cast<unsigned long long>(o.keys), t.node_bytes, t.key_bytes, r.height);
  std::printf("%-26s %.3f (%llu ops: %llu lookups, %llu inserts (%llu fresh keys), %llu ranges)\n",
              "throughput (Mops)", r.mops, static_cast<unsigned long long>(r.ops),
              static_cast<unsigned long long>(r.lookups), static_cast<unsigned long long>(r.inserts),
              static_cast<unsigned long long>(r.fresh_inserts), static_cast<unsigned long long>(r.ranges));
  std::printf("%-26s p50 %.2f  p99 %.2f  mean %.2f\n", "latency (us)", r.latency_us_p50, r.latency_us_p99,
              r.latency_us_mean);
  if (r.inserts) {
    std::printf("%-26s 2: %.1f%%  3: %.1f%%  4: %.1f%%  5+: %.1f%%  (p99 %.0f)\n", "round trips per insert",
                100 * r.write_round_trip_share[2], 100 * r.write_round_trip_share[3],
                100 * r.write_round_trip_share[4],
                100 * (1 - r.write_round_trip_share[0] - r.write_round_trip_share[1] - r.write_round_trip_share[2] -
                       r.write_round_trip_share[3] - r.write_round_trip_share[4]),
                r.write_round_trips_p99);
    std::printf("%-26s median %.0f (lock CAS and release included), mean %.1f over all inserts, %.2f%% split\n",
                "bytes written per insert", r.write_bytes_no_split_median, r.write_bytes_mean,
                100.0 * static_cast<double>(r.splitting_writes) / static_cast<double>(r.inserts));
  }
  if (r.lookups)
    std::printf("%-26s %.3f%% without retry (1: %.3f%%, 2+: %.3f%%)\n", "lookup retries",
                100 * r.lookups_without_retry, 100 * r.lookup_retry_share[1],
                100 * (1 - r.lookup_retry_share[0] - r.lookup_retry_share[1]));
  if (r.ranges) std::printf("%-26s %.1f pairs per range query\n", "ranges", r.range_keys_mean);
  std::printf("%-26s %.1f%% (%llu hits, %llu misses, %llu invalidations, %llu evictions)", "index cache hit ratio",
              100 * r.cache_hit_ratio, static_cast<unsigned long long>(r.tree.cache_hits),
              static_cast<unsigned long long>(r.tree.cache_misses),
              static_cast<unsigned long long>(r.tree.cache_invalidations),
              static_cast<unsigned long long>(r.tree.cache_evictions));
  if (t.speculative_lookup) std::printf(", speculative lookups %.1f%% hit", 100 * r.speculative_hit_ratio);
  std::printf("\n%-26s %llu acquisitions, %llu handovers (%.1f%%), %llu GLT CAS (%llu failed), %llu local waits, "
              "%llu gave up; GLT %s\n",
              "HOCL", static_cast<unsigned long long>(r.tree.lock.acquisitions),
              static_cast<unsigned long long>(r.tree.lock.handovers),
              r.tree.lock.acquisitions ? 100.0 * static_cast<double>(r.tree.lock.handovers) /
                                             static_cast<double>(r.tree.lock.acquisitions)
                                       : 0.0,
              static_cast<unsigned long long>(r.tree.lock.global_cas),
              static_cast<unsigned long long>(r.tree.lock.global_cas_failed),
              static_cast<unsigned long long>(r.tree.lock.local_waits),
              static_cast<unsigned long long>(r.tree.lock.gave_up),
              r.lock_on_chip ? "on-chip (NIC device memory)" : "in host memory");
  if (!r.lock_fallback.empty()) std::printf("%-26s %s\n", "HOCL fell back", r.lock_fallback.c_str());
  std::printf("%-26s %llu leaf, %llu internal, %llu root splits; %llu torn reads, %llu wrap retries, %llu sibling "
              "hops, %llu restarts\n",
              "tree events", static_cast<unsigned long long>(r.tree.leaf_splits),
              static_cast<unsigned long long>(r.tree.internal_splits),
              static_cast<unsigned long long>(r.tree.root_splits), static_cast<unsigned long long>(r.tree.torn_reads),
              static_cast<unsigned long long>(r.tree.wrap_retries),
              static_cast<unsigned long long>(r.tree.sibling_hops), static_cast<unsigned long long>(r.tree.restarts));
  std::printf("%-26s %.2f round trips, %.1f bytes\n", "per operation", r.round_trips_per_op, r.bytes_per_op);
  std::printf("%-26s %llu verbs, %.3f ms elapsed (virtual on sim), %.2f s wall (+%.2f s load)\n", "run",
              static_cast<unsigned long long>(r.verbs), static_cast<double>(r.elapsed_ns) / 1e6, r.wall_seconds,
              r.load_wall_seconds);
  std::printf("%-26s 0x%016llx\n", "trace hash", static_cast<unsigned long long>(r.trace_hash));
  if (r.verified && o.processes > 1)
    std::printf("final state: exact check passed (process %u of %u, partitioned writes: %llu keys of this "
                "process's writers exact, the tree's structure checked)\n",
                o.process_index, o.processes, static_cast<unsigned long long>(r.keys_checked_exact));
  else if (r.verified)
    std::printf("final state: exact check passed (%llu keys exact)\n",
                static_cast<unsigned long long>(r.keys_checked_exact));
}

// Fig. 14 (a)-(b) as a repro-style JSON: the CDF of round trips per insert
// and the share of lookups by retries.
std::string fig14_json(const ShermanRunResult& r, const ShermanRunOptions& o) {
  using nlohmann::json;
  json series = json::object();
  double cum = 0;
  for (size_t i = 0; i < r.write_round_trip_share.size(); ++i) {
    cum += r.write_round_trip_share[i];
    series[r.index + " inserts"].push_back({{"x", static_cast<double>(i)}, {"y", cum}, {"panel", "round trips per insert (CDF)"}});
  }
  cum = 0;
  for (size_t i = 0; i < r.lookup_retry_share.size(); ++i) {
    cum += r.lookup_retry_share[i];
    series[r.index + " lookups"].push_back({{"x", static_cast<double>(i)}, {"y", cum}, {"panel", "retries per lookup (CDF)"}});
  }
  char title[256];
  std::snprintf(title, sizeof title, "%s, %s, zipf %.2f, %llu keys: Sherman Fig. 14 metrics", r.index.c_str(),
                r.mix.c_str(), o.zipf, static_cast<unsigned long long>(o.keys));
  json j = {{"name", "btree-fig14"},
            {"title", title},
            {"x_label", "round trips / retries"},
            {"y_label", "cumulative share of operations"},
            {"log_x", false},
            {"series", series},
            {"panels", json::array({"round trips per insert (CDF)", "retries per lookup (CDF)"})},
            {"paper", json::array()}};
  return j.dump(2);
}

}  // namespace

int cmd_btree(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork btree",
                 "A B+Tree on disaggregated memory (Sherman, SIGMOD'22 §4-5; SMART, EuroSys'24 §6.2.3) "
                 "under Sherman Table 3's or SMART's workloads. Bulk-loads --keys keys (8-byte values, "
                 "keys spread over [1, 2^63)) 80% full over the memory nodes host-side, then every compute "
                 "coroutine runs the workload for a warm-up and a measured window of virtual time "
                 "(--ops-per-worker: a fixed count instead, for real backends). Keys are drawn by Zipf "
                 "--zipf over the loaded keys (0 = uniform); Table 3's inserts update a loaded key 2/3 of "
                 "the time and insert a fresh key otherwise (Sherman §5.1.3); SMART's write-heavy and "
                 "read-heavy update loaded keys only; range queries start at a loaded key and cover "
                 "--range-size loaded keys; range-write: half the coroutines insert, half run ranges. "
                 "--index: sherman (two-level versions, command combination, HOCL on-chip + hierarchical "
                 "+ handover), sherman+ (per-cache-line versions, SMART §6.2.3), smart-bt (sherman+ with "
                 "speculative lookup and every SMART policy, its clocks divided by 16 as in latchwork "
                 "hash), fg+ (sorted nodes written whole, CRC, host-memory CAS locks: Sherman §5.1.2). "
                 "--no-combine, --no-onchip, --no-hierarchical and --no-handover switch single techniques "
                 "off (Sherman Fig. 10's breakdown). Reports throughput, p50/p99 latency, Sherman Fig. "
                 "14's metrics (the share of inserts needing 2, 3 and 4 round trips, the median bytes an "
                 "insert writes when it does not split, the share of lookups without retry), the index "
                 "cache's hit ratio, HOCL's handovers and whether its lock tables fell back to host "
                 "memory. --verify partitions the writes (every key has one writer) and checks the final "
                 "tree exactly. --png F draws Fig. 14's CDFs. Exits 2 on bad input, 1 if an operation or "
                 "the check fails.");
  ClusterConfig d;
  d.set_profile("connectx");
  d.nic.profile = "cx5-100g";
  d.compute_nodes = 2;
  d.threads_per_node = 4;
  d.coroutines_per_thread = 1;
  d.memory_nodes = 2;
  d.memory_node_bytes = 1ull << 30;
  ClusterFlagOptions opts;
  ClusterFlags cluster(f, d, opts);
  TimelineFlags timeline(f);
  std::string index = "sherman", workload = "write-intensive", wrap_rule = "check", png;
  double zipf = 0.99;
  uint64_t keys = 1u << 18, range_size = 100, node_bytes = 1024, key_bytes = 8, cache_mb = 500;
  uint64_t warmup_us = 500, measure_us = 1000, ops_per_worker = 0, wrap_ns = 8000, chunk_kb = 8192;
  bool no_combine = false, no_onchip = false, no_hier = false, no_handover = false, verify = false, json = false;
  f.add_enum("index", &index, {"sherman", "sherman+", "smart-bt", "fg+"},
             "the tree: Sherman, Sherman+ (per-line versions), SMART-BT, or the FG+ baseline");
  f.add_enum("workload", &workload,
             {"write-only", "write-intensive", "read-intensive", "range-only", "range-write", "write-heavy",
              "read-heavy", "read-only", "all-ops"},
             "Sherman Table 3 (insert/lookup/range: 100/0/0, 50/50/0, 5/95/0, 0/0/100, half inserting and half "
             "ranging coroutines) or SMART §6.2.1 (update/lookup: 50/50, 5/95, 0/100); all-ops (a check, not "
             "a paper's: lookup/insert/remove/range 30/30/15/25)");
  f.add_double("zipf", &zipf, "Zipf theta over the loaded keys (0 = uniform; the papers' skewed runs use 0.99)", 0,
               9.99);
  f.add_uint("keys", &keys, "keys bulk-loaded 80% full before the run (the papers: 10^9)", 1, ZipfKeys::kMaxKeys);
  f.add_uint("range-size", &range_size, "loaded keys per range query (Sherman Fig. 12: 100 or 1000)", 1, 1u << 20);
  f.add_uint("node-bytes", &node_bytes, "tree node size, a multiple of 64 (Sherman: 1024)", 256,
             sherman::TreeConfig::kMaxNodeBytes);
  f.add_uint("key-bytes", &key_bytes, "bytes each key occupies in a node, a multiple of 8 (Sherman Fig. 15a)", 8,
             1024);
  f.add_bool("no-combine", &no_combine, "post write-backs and the lock release one by one (Sherman §4.5 off)");
  f.add_bool("no-onchip", &no_onchip, "global lock tables in host memory, 64-bit words (HOCL's on-chip part off)");
  f.add_bool("no-hierarchical", &no_hier, "no local lock tables: every coroutine spins on the global lock by CAS");
  f.add_bool("no-handover", &no_handover, "never hand a held global lock to a local waiter");
  f.add_uint("cache-mb", &cache_mb, "level-1 index cache per compute node, MiB (Sherman: 500; Fig. 15c)", 0,
             1u << 20);
  f.add_enum("wrap-rule", &wrap_rule, {"check", "bounded"},
             "two-level versions: when a reader distrusts an image whose versions agree (a 4-bit version may have "
             "wrapped around during the READ). check: never, the version checks alone decide (Sherman's "
             "artifact); bounded: a READ slower than --version-wrap-ns retries (Sherman §4.4's text)");
  f.add_uint("version-wrap-ns", &wrap_ns,
             "with --wrap-rule bounded: a READ slower than this retries (Sherman §4.4: 2^4 x 0.5 us = 8 us; on "
             "Soft-RoCE a READ alone takes longer, so scale it with the backend's write time)",
             1, 10'000'000'000ull);
  f.add_uint("chunk-kb", &chunk_kb, "the chunks threads take from a memory node by RPC and carve nodes from, KiB "
             "(Sherman §4.2.4: 8 MiB)", 1, 4u << 20);
  f.add_uint("warmup-us", &warmup_us, "warm-up before measuring (virtual microseconds)", 0, 1'000'000);
  f.add_uint("measure-us", &measure_us, "measurement window (virtual microseconds)", 1, 1'000'000);
  f.add_uint("ops-per-worker", &ops_per_worker,
             "run exactly this many operations per coroutine and measure them all (real backends)", 0, 10'000'000);
  f.add_bool("verify", &verify, "partition the writes (one writer per key) and check the final tree exactly");
  ProcessFlags procs;
  procs.add(f, "tree", "bulk-loads the tree");
  f.add_bool("json", &json, "one JSON object instead of the report");
  f.add_string("png", &png, "draw Fig. 14's CDFs (round trips per insert, retries per lookup) to this PNG (and FILE.json)");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  if (f.was_set("ops-per-worker") && ops_per_worker == 0)
    return usage_error(f, "--ops-per-worker 0 would run no operation: give at least 1, or leave it out to "
                          "measure the --measure-us window");
  if (f.was_set("png"))
    if (std::string e = check_output_file(png, "png"); !e.empty()) return usage_error(f, e);
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  if (std::string e = procs.check(c); !e.empty()) return usage_error(f, e);
  ShermanRunOptions o;
  o.processes = static_cast<uint32_t>(procs.processes);
  o.process_index = static_cast<uint32_t>(procs.process_index);
  o.shared_name = procs.shared_name;
  o.barrier_timeout_ms = procs.barrier_timeout_ms;
  ClusterConfig preset = c;
  if (!apply_sherman_index(index, &o, &preset)) return usage_error(f, "unknown --index " + index);
  // Explicit SMART switches and QP policy override the preset's.
  if (f.was_set("qp-policy")) preset.nic.qp_policy = c.nic.qp_policy;
  if (f.was_set("throttling")) preset.smart.throttling = c.smart.throttling;
  if (f.was_set("backoff")) preset.smart.backoff = c.smart.backoff;
  if (f.was_set("dynamic-limit")) preset.smart.dynamic_limit = c.smart.dynamic_limit;
  if (f.was_set("coroutine-throttling")) preset.smart.coroutine_throttling = c.smart.coroutine_throttling;
  if (std::string e = preset.validate(); !e.empty()) return usage_error(f, e);
  if (no_combine) o.tree.combine = false;
  if (no_onchip) o.tree.lock.on_chip = false;
  if (no_hier) o.tree.lock.hierarchical = false;
  if (no_handover) o.tree.lock.handover = false;
  o.tree.node_bytes = static_cast<uint32_t>(node_bytes);
  o.tree.key_bytes = static_cast<uint32_t>(key_bytes);
  o.tree.cache_bytes = cache_mb << 20;
  LW_CHECK(sherman::parse_wrap_rule(wrap_rule, &o.tree.wrap_rule));  // add_enum allowed only known names
  if (f.was_set("version-wrap-ns") && o.tree.wrap_rule != sherman::WrapRule::kBounded)
    return usage_error(f, "--version-wrap-ns applies only with --wrap-rule bounded");
  o.tree.version_wrap_ns = static_cast<Nanos>(wrap_ns);
  o.tree.chunk_bytes = chunk_kb << 10;
  if (std::string e = o.tree.validate(); !e.empty()) return usage_error(f, e);
  if (!parse_tree_mix(workload, &o.mix)) return usage_error(f, "unknown --workload " + workload);
  o.zipf = zipf;
  o.keys = keys;
  o.range_size = range_size;
  o.warmup_ns = static_cast<Nanos>(warmup_us) * 1000;
  o.measure_ns = static_cast<Nanos>(measure_us) * 1000;
  o.ops_per_worker = ops_per_worker;
  o.verify = verify;
  o.workload_seed = preset.seed;
  if (std::string e = o.validate(preset); !e.empty()) return usage_error(f, e);
  o.timeline = timeline.recorder();
  ShermanRunResult r;
  {
    Progress progress("latchwork btree", "runs", 1, kProgressSeconds);
    r = run_sherman(preset, o);
  }
  const int written = timeline.finish("latchwork btree", kExitOk);
  if (json) std::printf("%s\n", r.to_json().c_str());
  else print_result(r, o, preset);
  const bool drew = png.empty() || draw_png("btree", fig14_json(r, o), png, json);
  if (!r.ok()) {
    std::fprintf(stderr, "latchwork btree: %s\n", r.error.c_str());
    return kExitCheckFailed;
  }
  if (written != kExitOk) return written;
  return drew ? kExitOk : kExitCheckFailed;
}

}  // namespace lw::tool
