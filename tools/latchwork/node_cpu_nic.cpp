// `latchwork node --workload cpu-nic` (node_cpu_nic.h).
//
// Every node process allocates, host-side and in the same order (so all get
// the same addresses: symmetric allocation, docs/verbs-backend.md), on every
// node n: a probe word, a "mixed" counter and a "nic" counter. Then:
//
//   1. Same memory. Worker 0 of node i: CPU store -> NIC READ through the
//      loopback sees it; NIC CAS (loopback) -> CPU load sees it; CPU CAS.
//      Then it waits for the next node's probe to reach that state and
//      NIC-CASes it from this process, and waits until its own CPU sees the
//      previous node's NIC CAS on its probe: CPU and remote NIC, both ways.
//   2. Atomicity. Every worker of every node increments each counter of
//      every node ops_per_worker times with CAS loops: the "nic" counters by
//      NIC CAS only (loopback on its own node), which must be exact; the
//      "mixed" counters by CPU CAS on the worker's own node and NIC CAS on
//      the others, whose lost updates (a NIC atomic reads, a CPU CAS lands,
//      the NIC writes back) are counted and reported.
#include "node_cpu_nic.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/runtime/task.h"

namespace lw::tool {
namespace {

constexpr uint64_t kMaxCasAttempts = 10'000'000;
// How long worker 0 waits for another node's step of the handshake.
constexpr Nanos kPollNs = 200'000;
constexpr uint64_t kMaxPolls = 300'000;  // x 200 us = 60 s

uint64_t magic(uint32_t node) { return 0x5157'0000'0000'0000ull | (uint64_t{node} << 16); }

struct Shared {
  std::mutex mu;
  std::vector<std::string> lines;  // handshake results, in order
  std::string error;               // the first failure
  uint64_t cas_retries = 0;

  void note(const std::string& l) {
    std::lock_guard<std::mutex> g(mu);
    lines.push_back(l);
  }
  void fail(const std::string& e) {
    std::lock_guard<std::mutex> g(mu);
    lines.push_back("FAIL " + e);
    if (error.empty()) error = e;
  }
};

// One increment by a CAS loop: by NIC (READ, then CAS until it swaps) or by
// the CPU. False (and *err set) on a failed verb or past kMaxCasAttempts.
Task<bool> increment(Worker& w, RemoteAddr a, bool cpu, uint64_t* retries, std::string* err) {
  uint64_t expect = 0;
  if (cpu) {
    const Result<uint64_t> r = co_await w.cpu_load(a);
    if (!ok(r.status)) {
      *err = "CPU load of " + a.to_string() + ": " + std::string(to_string(r.status));
      co_return false;
    }
    expect = r.value;
  } else if (Status s = co_await w.read(&expect, a, 8); !ok(s)) {
    *err = "READ of " + a.to_string() + ": " + std::string(to_string(s));
    co_return false;
  }
  for (uint64_t attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
    const Result<uint64_t> r = cpu ? co_await w.cpu_cas(a, expect, expect + 1) : co_await w.cas(a, expect, expect + 1);
    if (!ok(r.status)) {
      *err = std::string(cpu ? "CPU" : "NIC") + " CAS of " + a.to_string() + ": " + std::string(to_string(r.status));
      co_return false;
    }
    if (r.value == expect) co_return true;
    expect = r.value;
    ++*retries;
  }
  *err = "CAS increment of " + a.to_string() + " did not succeed in " + std::to_string(kMaxCasAttempts) + " attempts";
  co_return false;
}

// Step 1 (worker 0 of node `me`).
Task<void> handshake(Worker& w, uint32_t me, uint32_t nodes, const std::vector<RemoteAddr>& probe, Shared* sh) {
  const RemoteAddr mine = probe[me];
  const uint64_t m = magic(me);
  const std::string where = "node " + std::to_string(me) + " word " + mine.to_string();
  auto expect = [&](const char* step, uint64_t got, uint64_t want) {
    if (got == want) {
      sh->note("ok   " + std::string(step));
      return true;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, ": saw 0x%llx, want 0x%llx", static_cast<unsigned long long>(got),
                  static_cast<unsigned long long>(want));
    sh->fail(std::string(step) + " (" + where + ")" + buf);
    return false;
  };
  if (Result<uint64_t> r = co_await w.cpu_store(mine, m + 1); !ok(r.status)) {
    sh->fail("CPU store to " + where + ": " + std::string(to_string(r.status)));
    co_return;
  }
  uint64_t v = 0;
  if (Status s = co_await w.read(&v, mine, 8); !ok(s)) {
    sh->fail("NIC READ (loopback) of " + where + ": " + std::string(to_string(s)));
    co_return;
  }
  if (!expect("CPU store, then NIC READ through the loopback sees it", v, m + 1)) co_return;
  Result<uint64_t> r = co_await w.cas(mine, m + 1, m + 2);
  if (!ok(r.status) || !expect("NIC CAS through the loopback finds the CPU's value", r.value, m + 1)) co_return;
  r = co_await w.cpu_load(mine);
  if (!ok(r.status) || !expect("NIC CAS (loopback), then CPU load sees it", r.value, m + 2)) co_return;
  r = co_await w.cpu_cas(mine, m + 2, m + 3);
  if (!ok(r.status) || !expect("CPU CAS finds the NIC's value", r.value, m + 2)) co_return;

  // The next node's word, from this process's NIC; it moves to +3 when that
  // node's worker 0 got here.
  const uint32_t next = (me + 1) % nodes;
  const uint64_t mn = magic(next);
  uint64_t polls = 0;
  for (; polls < kMaxPolls; ++polls) {
    if (Status s = co_await w.read(&v, probe[next], 8); !ok(s)) {
      sh->fail("NIC READ of node " + std::to_string(next) + "'s word: " + std::string(to_string(s)));
      co_return;
    }
    if (v == mn + 3) break;
    co_await w.sleep(kPollNs);
  }
  if (!expect(("node " + std::to_string(next) + "'s CPU CAS, then this node's NIC READ sees it").c_str(), v, mn + 3))
    co_return;
  r = co_await w.cas(probe[next], mn + 3, mn + 4);
  if (!ok(r.status) || !expect(("NIC CAS of node " + std::to_string(next) + "'s word finds its CPU's value").c_str(),
                               r.value, mn + 3))
    co_return;
  // Our own word, moved by the previous node's NIC CAS.
  for (polls = 0; polls < kMaxPolls; ++polls) {
    r = co_await w.cpu_load(mine);
    if (!ok(r.status)) break;
    if (r.value == m + 4) break;
    co_await w.sleep(kPollNs);
  }
  expect(("node " + std::to_string((me + nodes - 1) % nodes) + "'s NIC CAS, then this node's CPU load sees it").c_str(),
         r.value, m + 4);
}

}  // namespace

int run_cpu_nic(const ClusterConfig& c, const CpuNicOptions& o) {
  std::string err;
  std::unique_ptr<Backend> b = make_backend(c, &err);
  if (!b) {
    std::fprintf(stderr, "latchwork node: cannot connect: %s\n", err.c_str());
    return 1;
  }
  const uint32_t nodes = c.memory_nodes;
  const uint32_t me = static_cast<uint32_t>(c.verbs.local_node);
  if (!b->capabilities().cpu_access) {
    std::fprintf(stderr, "latchwork node: this process has no CPU access to node %u\n", me);
    return 1;
  }
  // Symmetric set-up: the same sequence in every node process.
  std::vector<RemoteAddr> probe(nodes), mixed(nodes), nic(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    probe[n] = b->allocate(n, kCacheLine);
    mixed[n] = b->allocate(n, kCacheLine);
    nic[n] = b->allocate(n, kCacheLine);
    if (probe[n].is_null() || mixed[n].is_null() || nic[n].is_null()) {
      std::fprintf(stderr, "latchwork node: node %u is full\n", n);
      return 1;
    }
  }
  Shared sh;
  const WorkerMain main = [&](Worker& w) -> Task<void> {
    const Placement p = w.placement();
    if (p.thread == 0 && p.coroutine == 0) co_await handshake(w, me, nodes, probe, &sh);
    uint64_t retries = 0;
    std::string e;
    for (uint64_t op = 0; op < o.ops_per_worker && e.empty(); ++op) {
      for (uint32_t n = 0; n < nodes && e.empty(); ++n) {
        if (!co_await increment(w, nic[n], false, &retries, &e)) break;
        if (!co_await increment(w, mixed[n], n == me, &retries, &e)) break;
      }
    }
    std::lock_guard<std::mutex> g(sh.mu);
    sh.cas_retries += retries;
    if (!e.empty() && sh.error.empty()) sh.error = e;
  };
  for (uint32_t t = 0; t < c.memory_node_threads; ++t)
    for (uint32_t k = 0; k < c.coroutines_per_thread; ++k) b->spawn({Placement::Kind::kMemory, me, t, k}, main);
  const RunStats stats = b->run();  // starts and ends with a barrier of all nodes
  if (!stats.stalled.empty()) {
    std::fprintf(stderr, "latchwork node: %s\n", stats.stalled.c_str());
    return 1;
  }
  const uint64_t workers = uint64_t{nodes} * c.memory_node_threads * c.coroutines_per_thread;
  const uint64_t want = workers * o.ops_per_worker;
  std::printf("cpu-nic on node %u of %u: %u threads x %u coroutines per node, %llu increments per counter "
              "per worker, %.2f s\n",
              me, nodes, c.memory_node_threads, c.coroutines_per_thread,
              static_cast<unsigned long long>(o.ops_per_worker), stats.wall_seconds);
  std::printf("  same memory, CPU and NIC (node %u's worker 0):\n", me);
  for (const std::string& l : sh.lines) std::printf("    %s\n", l.c_str());
  int code = sh.error.empty() ? 0 : 1;
  for (uint32_t n = 0; n < nodes; ++n) {
    const uint64_t got_nic = b->host_load(nic[n]);
    const uint64_t got_mixed = b->host_load(mixed[n]);
    std::printf("  node %u, NIC CAS only (loopback from its own node): %llu of %llu increments (%s)\n", n,
                static_cast<unsigned long long>(got_nic), static_cast<unsigned long long>(want),
                got_nic == want ? "exact" : "NOT exact");
    if (got_nic != want) code = 1;
    std::printf("  node %u, CPU CAS by its own workers + NIC CAS by the others: %llu of %llu increments (%s)\n", n,
                static_cast<unsigned long long>(got_mixed), static_cast<unsigned long long>(want),
                got_mixed == want ? "no update lost"
                : got_mixed < want
                    ? ("lost " + std::to_string(want - got_mixed) + ": CPU and NIC atomics are not atomic together").c_str()
                    : "MORE than performed");
    if (got_mixed > want) code = 1;
  }
  std::printf("  CAS retries by this node's workers: %llu\n", static_cast<unsigned long long>(sh.cas_retries));
  if (!sh.error.empty()) std::fprintf(stderr, "latchwork node: cpu-nic: %s\n", sh.error.c_str());
  std::printf("cpu-nic on node %u: %s\n", me, code == 0 ? "ok" : "FAILED");
  std::fflush(stdout);
  return code;
}

}  // namespace lw::tool
