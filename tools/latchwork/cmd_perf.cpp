#include <cstdio>
#include <cstring>
#include <vector>

#include "cluster_flags.h"
#include "commands.h"
#include "runs/perf.h"
#include "list_flags.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

void print_header() {
  std::printf("%-5s %7s %7s %7s %6s %9s %8s %9s %9s %9s %9s\n", "op", "size", "threads", "workers",
              "depth", "Mops", "GB/s", "mean_us", "p50_us", "p99_us", "p999_us");
}

void print_row(const PerfResult& r, uint64_t size, uint64_t threads, uint64_t depth) {
  std::printf("%-5s %7llu %7llu %7llu %6llu %9.2f %8.2f %9.2f %9.2f %9.2f %9.2f\n", r.op.c_str(),
              static_cast<unsigned long long>(size), static_cast<unsigned long long>(threads),
              static_cast<unsigned long long>(r.workers), static_cast<unsigned long long>(depth),
              r.mops, r.gbps, r.latency_ns_mean / 1e3, r.latency_ns_p50 / 1e3,
              r.latency_ns_p99 / 1e3, r.latency_ns_p999 / 1e3);
}

}  // namespace

int cmd_perf(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork perf {read|write|cas|faa}",
                 "A perftest-style microbenchmark. Every coroutine (--depth per thread) of every "
                 "compute thread issues one verb at a time against its own target, --stride bytes "
                 "after the previous worker's (or all on one word with --contended), and the run "
                 "reports throughput (Mops, GB/s) and latency percentiles over a measurement "
                 "window. On the sim backend times are virtual and come from the NIC model named "
                 "by --nic; on the threads backend they are wall-clock times of real threads "
                 "(no NIC mechanisms). Comma lists in --threads and --size run a sweep. Limits: "
                 "--depth at most the queue pair's queue_depth (256 unless a --config file sets "
                 "it); compute nodes x threads x depth at most 65536 workers; workers x size at "
                 "most 1 GiB of buffers; stride + padding at most 2^30; the targets must fit in "
                 "a memory node. Exits 2 on bad input, 1 if a verb fails.");
  ClusterConfig defaults;
  defaults.nic.profile = "cx5-100g";
  defaults.set_profile("connectx");
  defaults.memory_node_bytes = 256ull << 20;
  ClusterFlagOptions opts;
  opts.threads_flag = false;
  ClusterFlags cluster(f, defaults, opts);
  TimelineFlags timeline(f);
  std::string threads_list = "1", size_list = "8";
  int64_t depth = 1, batch = 1;
  uint64_t stride = 64, padding = 0, random_region = 0, warmup_us = 100, measure_us = 500;
  bool contended = false, device = false, json = false;
  f.add_string("threads", &threads_list, "threads per compute node (with --symmetric: per memory node); a comma list runs a sweep");
  f.add_string("size", &size_list, "bytes per READ/WRITE (atomics are 8); a comma list runs a sweep");
  f.add_int("depth", &depth, "coroutines per thread, each with --batch verbs outstanding", 1, 1024);
  f.add_int("batch", &batch,
            "doorbell batch: work requests each coroutine posts with one doorbell and awaits "
            "together (SMART Fig. 13b); depth x batch must fit the queue pair. With the SMART "
            "runtime's --throttling the runtime's credits bound what a thread has in flight",
            1, PerfOptions::kMaxBatch);
  f.add_uint("stride", &stride, "bytes between consecutive workers' targets", 1, PerfOptions::kMaxStep);
  f.add_uint("padding", &padding, "extra bytes per stride (8 breaks lock-table collisions)", 0,
             PerfOptions::kMaxStep);
  f.add_uint("random-region", &random_region, "target a random address in this many bytes per op", 0,
             ClusterConfig::kMaxMemoryNodeBytes);
  f.add_bool("contended", &contended, "every worker targets the same word");
  f.add_bool("device-memory", &device, "targets in the memory node's on-chip device memory");
  std::string target = "memory";
  f.add_enum("target", &target, {"memory", "switch", "smartnic"},
             "where the targets live: the memory nodes; the programmable switch's registers (Jasny "
             "§5.4, half a round trip, no lock table); or a SmartNIC whose cores serve each verb as an "
             "RPC (§5.2). The device is added to the simulated cluster");
  f.add_uint("warmup-us", &warmup_us, "warm-up before measuring (microseconds)", 0, 1'000'000);
  f.add_uint("measure-us", &measure_us, "measurement window (microseconds)", 1, 1'000'000);
  uint64_t cas_flow_threads = 0;
  f.add_uint("cas-flow-threads", &cas_flow_threads,
             "Husky's experiment (NSDI'23 §3): the last N threads of every compute node send CAS to one "
             "word per memory node beside the measured read or write flow of the other threads; the "
             "CAS flow's rate is printed after the row (JSON: counters cas_flow.mops)",
             0, ClusterConfig::kMaxThreadsPerNode);
  bool symmetric = false;
  f.add_bool("symmetric", &symmetric,
             "all-to-all among symmetric nodes (DrTM+H Fig. 5's setting): the workers are the "
             "--memory-nodes' own threads (--threads per node, one coroutine each: use --batch for "
             "more in flight), each round to the next other node, so every NIC serves requests and "
             "responses at once; compute nodes take no part. The rate per node is printed after "
             "the row (JSON: counters symmetric.mops_per_node)");
  f.add_bool("json", &json, "one JSON object per result instead of a table");

  // The verb comes first, as in `latchwork perf cas --contended`.
  if (argc < 1 || std::strncmp(argv[0], "-", 1) == 0) {
    bool help = false;
    for (int i = 0; i < argc; ++i) help = help || !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
    if (help) {
      std::printf("%s", f.help_text().c_str());
      return kExitOk;
    }
    std::fprintf(stderr, "latchwork perf: name the verb first: read, write, cas or faa\n(see --help)\n");
    return kExitUsage;
  }
  PerfOptions o;
  if (!parse_perf_op(argv[0], &o.op)) {
    std::fprintf(stderr, "latchwork perf: unknown verb \"%s\" (read, write, cas or faa)\n", argv[0]);
    return kExitUsage;
  }
  if (int code; !parse_or_exit(f, argc - 1, argv + 1, &code)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  c.coroutines_per_thread = static_cast<uint32_t>(depth);
  std::vector<uint64_t> threads, sizes;
  if (std::string e = parse_uint_list("threads", threads_list, 1, ClusterConfig::kMaxThreadsPerNode, &threads); !e.empty())
    return usage_error(f, e);
  if (std::string e = parse_uint_list("size", size_list, 1, kMaxTransferBytes, &sizes); !e.empty())
    return usage_error(f, e);
  if (measure_us == 0 || measure_us > 1'000'000 || warmup_us > 1'000'000)
    return usage_error(f, "--measure-us must be in [1, 1000000] and --warmup-us at most 1000000");
  o.batch = static_cast<uint32_t>(batch);
  o.stride = stride;
  o.padding = padding;
  o.random_region = random_region;
  o.contended = contended;
  o.device_memory = device;
  o.target = target;
  o.warmup_ns = warmup_us * 1000;
  o.measure_ns = measure_us * 1000;
  o.timeline = timeline.recorder();  // records the first point's run
  o.cas_flow_threads = static_cast<uint32_t>(cas_flow_threads);
  o.symmetric = symmetric;

  auto point_of = [&](uint64_t t, uint64_t s, ClusterConfig* pc, PerfOptions* po) {
    *pc = c;
    if (symmetric) {
      pc->memory_node_threads = static_cast<uint32_t>(t);  // the workers
      pc->threads_per_node = 1;                             // idle
    } else {
      pc->threads_per_node = static_cast<uint32_t>(t);
    }
    *po = o;
    po->size = static_cast<uint32_t>(s);
  };
  // Validate every point before running any.
  for (uint64_t t : threads) {
    for (uint64_t s : sizes) {
      ClusterConfig point;
      PerfOptions po;
      point_of(t, s, &point, &po);
      if (std::string e = validate_perf(point, po); !e.empty()) return usage_error(f, e);
    }
  }
  if (!json) {
    std::printf("# %s backend, nic %s, qp policy %s, semantics %s, seed %llu\n",
                c.backend.c_str(), c.nic.profile.c_str(), to_string(c.nic.qp_policy),
                c.semantics_profile.c_str(), static_cast<unsigned long long>(c.seed));
    print_header();
  }
  int exit_code = kExitOk;
  const size_t points = threads.size() * sizes.size();
  size_t done = 0;
  Progress progress("latchwork perf", "points", points, kProgressSeconds);
  for (uint64_t t : threads) {
    for (uint64_t s : sizes) {
      ClusterConfig point;
      PerfOptions po;
      point_of(t, s, &point, &po);
      ++done;
      if (points > 1) std::fprintf(stderr, "[%zu/%zu] threads=%llu size=%llu\n", done, points,
                                   static_cast<unsigned long long>(t), static_cast<unsigned long long>(s));
      const PerfResult r = run_perf(point, po);
      progress.set(done);
      if (!r.ok()) {
        std::fprintf(stderr, "latchwork perf: %s\n", r.error.c_str());
        exit_code = kExitCheckFailed;
      }
      if (json) {
        std::printf("{\"threads\":%llu,\"size\":%llu,\"depth\":%lld,\"batch\":%lld,\"compute_nodes\":%u,"
                    "\"memory_nodes\":%u,\"nic\":\"%s\",\"qp_policy\":\"%s\",\"result\":%s}\n",
                    static_cast<unsigned long long>(t), static_cast<unsigned long long>(s),
                    static_cast<long long>(depth), static_cast<long long>(batch), c.compute_nodes, c.memory_nodes,
                    c.nic.profile.c_str(), to_string(c.nic.qp_policy), r.to_json().c_str());
      } else {
        print_row(r, is_atomic(o.op) ? 8 : s, t, static_cast<uint64_t>(depth * batch));
        if (auto it = r.counters.find("cas_flow.mops"); it != r.counters.end())
          std::printf("# beside it, a CAS flow of %llu threads per compute node: %.2f Mops\n",
                      static_cast<unsigned long long>(cas_flow_threads), it->second);
        if (auto it = r.counters.find("symmetric.mops_per_node"); it != r.counters.end())
          std::printf("# all-to-all among %u nodes: %.2f Mops per node\n", c.memory_nodes, it->second);
      }
      std::fflush(stdout);
    }
  }
  return timeline.finish("latchwork perf", exit_code);
}

}  // namespace lw::tool
