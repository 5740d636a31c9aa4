// Checks of the verbs backend that need an RDMA device, run inside the
// Soft-RoCE VM by tests/verbs/verbs_suite.sh (not a ctest: the host has no
// RDMA). One process of a run; several processes meet at barriers on memory
// node 0 and check shared counters exactly.
//
//   verbs_rpc_check --cluster FILE --shared NAME [--processes N] [--threads T]
//                   [--coroutines C] [--ops K] [--qp-policy P]
//
// Per coroutine: K echo calls (reply must equal the request), K pairs of
// echoes awaited together (call_all), K fetch_add
// calls and K (+ a flood of) one-way fetch_adds on counters shared by all processes, K
// chunk allocations from coroutine code (Backend::allocate and alloc_chunk
// by Worker::call; chunks filled with a tag and checked after a barrier, so
// overlap between processes is seen), K CAS-loop increments and K FAAs with
// READs (the qp_policy's resources carry one-sided verbs correctly), and the
// RPC error statuses. Prints "verbs_rpc_check: ok ..." and exits 0, or names
// each failed check and exits 1; 2 for bad arguments or no backend.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

struct Args {
  std::string cluster, shared = "rpc-check", policy = "per-thread-doorbell";
  uint32_t processes = 1, threads = 2, coroutines = 2, ops = 50;
};

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    auto num = [&](uint32_t* out, uint32_t hi) {
      char* end = nullptr;
      const unsigned long x = std::strtoul(v.c_str(), &end, 10);
      if (*end || x == 0 || x > hi) return false;
      *out = static_cast<uint32_t>(x);
      return true;
    };
    if (k == "--cluster") a->cluster = v;
    else if (k == "--shared") a->shared = v;
    else if (k == "--qp-policy") a->policy = v;
    else if (k == "--processes") { if (!num(&a->processes, 16)) return false; }
    else if (k == "--threads") { if (!num(&a->threads, 16)) return false; }
    else if (k == "--coroutines") { if (!num(&a->coroutines, 16)) return false; }
    else if (k == "--ops") { if (!num(&a->ops, 100000)) return false; }
    else return false;
  }
  return argc % 2 == 1 && !a->cluster.empty();
}

class Failures {
 public:
  void check(bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> l(mu_);
    if (list_.size() < 20) list_.push_back(what);
    ++count_;
  }
  uint64_t count() const { return count_; }
  void print() const {
    for (const auto& f : list_) std::printf("FAILED: %s\n", f.c_str());
  }

 private:
  std::mutex mu_;
  std::vector<std::string> list_;
  uint64_t count_ = 0;
};

std::string str(Status s) { return std::string(to_string(s)); }

constexpr uint64_t kChunk = 4096;
constexpr uint32_t kFlood = 40;  // one-way messages in a row per coroutine

}  // namespace
}  // namespace lw

int main(int argc, char** argv) {
  using namespace lw;
  Args a;
  if (!parse(argc, argv, &a)) {
    std::fprintf(stderr, "usage: verbs_rpc_check --cluster FILE [--shared NAME] [--processes N] "
                         "[--threads T] [--coroutines C] [--ops K] [--qp-policy P]\n");
    return 2;
  }
  ClusterConfig c;
  c.backend = "verbs";
  c.verbs.cluster_file = a.cluster;
  c.threads_per_node = a.threads;
  c.coroutines_per_thread = a.coroutines;
  c.verbs.op_timeout_ms = 20'000;
  if (!parse_qp_policy(a.policy, &c.nic.qp_policy)) {
    std::fprintf(stderr, "verbs_rpc_check: unknown qp policy %s\n", a.policy.c_str());
    return 2;
  }
  if (std::string e = c.load_cluster_file(); !e.empty()) {
    std::fprintf(stderr, "verbs_rpc_check: %s\n", e.c_str());
    return 2;
  }
  std::string err;
  std::unique_ptr<Backend> b = make_backend(c, &err);
  if (!b) {
    std::fprintf(stderr, "verbs_rpc_check: %s\n", err.c_str());
    return 2;
  }
  Failures f;
  const Capabilities caps = b->capabilities();
  std::printf("verbs_rpc_check: qp policy %s: thread resources: %s\n", a.policy.c_str(),
              caps.thread_resources.c_str());
  f.check(caps.rpc, "capabilities().rpc is false");
  f.check(!caps.thread_resources.empty(), "capabilities().thread_resources is empty");

  // register_handler resolves names against the node's table.
  RpcHandler echo{.name = "echo", .fn = nullptr};
  RpcHandler fa{.name = "fetch_add", .fn = nullptr};
  RpcHandler missing{.name = "no-such-handler", .fn = nullptr};
  const Result<HandlerId> he = b->register_handler(echo);
  f.check(he.status == Status::kOk && he.value == kEchoHandler, "register_handler(echo): " + str(he.status));
  const Result<HandlerId> hf = b->register_handler(fa);
  f.check(hf.status == Status::kOk && hf.value == kFetchAddHandler, "register_handler(fetch_add)");
  f.check(b->register_handler(missing).status == Status::kUnsupported,
          "register_handler of an unknown name is not kUnsupported");

  const RemoteAddr counter = b->allocate_shared(0, a.shared + "/rpc-counter", 64);
  const RemoteAddr one_way_counter = b->allocate_shared(0, a.shared + "/one-way-counter", 64);
  const RemoteAddr verbs_counter = b->allocate_shared(0, a.shared + "/verbs-counter", 64);
  if (counter.is_null() || one_way_counter.is_null() || verbs_counter.is_null()) {
    std::fprintf(stderr, "verbs_rpc_check: allocate_shared failed\n");
    return 1;
  }
  if (std::string e = b->barrier(a.shared + "/start", a.processes, 60'000); !e.empty()) {
    std::fprintf(stderr, "verbs_rpc_check: %s\n", e.c_str());
    return 1;
  }
  const uint64_t tag_base = static_cast<uint64_t>(::getpid()) << 32;
  std::mutex mu;
  std::vector<std::pair<RemoteAddr, uint64_t>> chunks;  // chunk, its tag
  std::vector<uint64_t> olds;                           // fetch_add results

  b->spawn_compute([&](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const uint64_t me = (uint64_t{p.thread} << 16) | p.coroutine;
    std::vector<uint64_t> my_olds;
    std::vector<std::pair<RemoteAddr, uint64_t>> my_chunks;
    for (uint32_t i = 0; i < a.ops; ++i) {
      // Echo: a request of varying length comes back unchanged.
      std::array<std::byte, 256> req{}, rep{};
      const uint32_t len = 1 + (i * 37 + static_cast<uint32_t>(me)) % 256;
      for (uint32_t k = 0; k < len; ++k) req[k] = static_cast<std::byte>(k * 7 + i + me);
      Result<uint32_t> r = co_await w.call(0, kEchoHandler, std::span(req.data(), len), rep);
      f.check(r.status == Status::kOk && r.value == len && std::memcmp(req.data(), rep.data(), len) == 0,
              "echo of " + std::to_string(len) + " bytes: " + str(r.status));
      // Two echoes awaited together (Worker::call_all): each its own reply.
      {
        std::array<std::byte, 256> rep2{};
        const uint32_t len2 = 1 + (len * 5) % 256;
        RpcCall a1{.node = 0, .handler = kEchoHandler, .request = std::span(req.data(), len), .reply = rep};
        RpcCall a2{.node = 0, .handler = kEchoHandler, .request = std::span(req.data(), len2), .reply = rep2};
        rep.fill(std::byte{0});
        RpcCall* both[] = {&a1, &a2};
        const Status s = co_await w.call_all(both);
        f.check(s == Status::kOk && a1.reply_bytes == len && a2.reply_bytes == len2 &&
                    std::memcmp(req.data(), rep.data(), len) == 0 && std::memcmp(req.data(), rep2.data(), len2) == 0,
                "call_all of two echoes: " + str(s));
      }
      // Counter by RPC, and a one-way increment of another.
      const uint64_t fa_req[2] = {counter.offset(), 1};
      uint64_t old = 0;
      r = co_await w.call(0, kFetchAddHandler, std::as_bytes(std::span(fa_req)),
                          std::as_writable_bytes(std::span(&old, 1)));
      f.check(r.status == Status::kOk && r.value == 8, "fetch_add call: " + str(r.status));
      my_olds.push_back(old);
      const uint64_t ow_req[2] = {one_way_counter.offset(), 1};
      f.check(w.send(0, kFetchAddHandler, std::as_bytes(std::span(ow_req))) == Status::kOk, "one-way send");
      // Chunks from coroutine code: Backend::allocate (served by RPC) and
      // alloc_chunk called directly, as the runtime's ChunkAllocator does.
      RemoteAddr chunk;
      if (i % 2 == 0) {
        chunk = b->allocate(0, kChunk, 64);
      } else {
        const uint64_t ac_req[2] = {kChunk, 64};
        uint64_t raw = 0;
        r = co_await w.call(0, kAllocChunkHandler, std::as_bytes(std::span(ac_req)),
                            std::as_writable_bytes(std::span(&raw, 1)));
        f.check(r.status == Status::kOk && r.value == 8, "alloc_chunk call: " + str(r.status));
        chunk = RemoteAddr::from_raw(raw);
      }
      f.check(!chunk.is_null() && chunk.node() == 0, "a chunk allocation from a coroutine failed");
      if (!chunk.is_null()) {
        std::vector<uint64_t> fill(kChunk / 8, tag_base | (me << 16) | i);
        Status s = co_await w.write(chunk, fill.data(), kChunk);
        f.check(s == Status::kOk, "writing a chunk: " + str(s));
        my_chunks.emplace_back(chunk, fill[0]);
      }
      // One-sided verbs on this policy's QPs: a CAS-loop increment and a FAA.
      uint64_t seen = 0;
      Status s = co_await w.read(&seen, verbs_counter, 8);
      f.check(s == Status::kOk, "READ: " + str(s));
      for (uint32_t tries = 0; tries < 100000; ++tries) {
        Result<uint64_t> cr = co_await w.cas(verbs_counter, seen, seen + 1);
        if (cr.status != Status::kOk) {
          f.check(false, "CAS: " + str(cr.status));
          break;
        }
        if (cr.value == seen) break;
        seen = cr.value;
      }
      Result<uint64_t> fr = co_await w.faa(verbs_counter, 1);
      f.check(fr.status == Status::kOk, "FAA: " + str(fr.status));
    }
    // A flood of one-way messages: more than a QP's credits, so they come
    // back in the node's credit messages (no reply to piggyback them on).
    for (uint32_t i = 0; i < kFlood; ++i) {
      const uint64_t ow_req[2] = {one_way_counter.offset(), 1};
      f.check(w.send(0, kFetchAddHandler, std::as_bytes(std::span(ow_req))) == Status::kOk, "one-way flood");
    }
    // Errors are statuses.
    std::array<std::byte, kMaxRpcBytes + 1> big{};
    std::array<std::byte, 8> small{};
    Result<uint32_t> r = co_await w.call(0, kEchoHandler, big, small);
    f.check(r.status == Status::kBadLength, "an oversized request: " + str(r.status));
    r = co_await w.call(0, kEchoHandler, std::span(big.data(), 64), small);
    f.check(r.status == Status::kBadLength, "a reply longer than its buffer: " + str(r.status));
    r = co_await w.call(0, kMaxRpcHandlers - 1, std::span(big.data(), 8), small);
    f.check(r.status == Status::kUnsupported, "an unknown handler: " + str(r.status));
    r = co_await w.call(0, kAllocChunkHandler, std::span(big.data(), 3), small);
    f.check(r.status == Status::kBadLength, "a malformed alloc_chunk: " + str(r.status));
    const uint64_t oob[2] = {uint64_t{1} << 40, 1};
    r = co_await w.call(0, kFetchAddHandler, std::as_bytes(std::span(oob)), small);
    f.check(r.status == Status::kUnregistered, "fetch_add out of bounds: " + str(r.status));
    r = co_await w.call(0, kNullHandler, {}, {});
    f.check(r.status == Status::kOk && r.value == 0, "null call: " + str(r.status));
    // The one-way messages before this call were served before it (in order per QP).
    std::lock_guard<std::mutex> l(mu);
    olds.insert(olds.end(), my_olds.begin(), my_olds.end());
    chunks.insert(chunks.end(), my_chunks.begin(), my_chunks.end());
  });
  const RunStats st = b->run();

  // Within this process: fetch_add results are distinct, chunks disjoint.
  std::sort(olds.begin(), olds.end());
  f.check(std::adjacent_find(olds.begin(), olds.end()) == olds.end(), "fetch_add returned a value twice");
  std::sort(chunks.begin(), chunks.end(),
            [](const auto& x, const auto& y) { return x.first.offset() < y.first.offset(); });
  for (size_t i = 1; i < chunks.size(); ++i)
    f.check(chunks[i - 1].first.offset() + kChunk <= chunks[i].first.offset(), "two chunks overlap");
  if (std::string e = b->barrier(a.shared + "/end", a.processes, 120'000); !e.empty()) {
    std::fprintf(stderr, "verbs_rpc_check: %s\n", e.c_str());
    return 1;
  }
  // Across processes: every chunk still holds only its own tag (an overlap
  // with another process's chunk would show the other tag), and the
  // counters are exact.
  for (const auto& [chunk, tag] : chunks) {
    std::vector<uint64_t> back(kChunk / 8);
    b->host_read(chunk, back.data(), kChunk);
    f.check(std::all_of(back.begin(), back.end(), [&](uint64_t v) { return v == tag; }),
            "chunk " + chunk.to_string() + " was written by someone else");
  }
  const uint64_t per_process = uint64_t{a.threads} * a.coroutines * a.ops;
  const uint64_t want = per_process * a.processes;
  const uint64_t got = b->host_load(counter), got_ow = b->host_load(one_way_counter),
                 got_verbs = b->host_load(verbs_counter);
  f.check(got == want, "RPC counter " + std::to_string(got) + ", want " + std::to_string(want));
  const uint64_t want_ow = want + uint64_t{kFlood} * a.threads * a.coroutines * a.processes;
  f.check(got_ow == want_ow, "one-way counter " + std::to_string(got_ow) + ", want " + std::to_string(want_ow));
  f.check(got_verbs == 2 * want,
          "CAS/FAA counter " + std::to_string(got_verbs) + ", want " + std::to_string(2 * want));
  // Barrier again so no process leaves (and no memory node session closes)
  // before every process has read the counters.
  if (std::string e = b->barrier(a.shared + "/checked", a.processes, 120'000); !e.empty())
    f.check(false, e);
  f.print();
  std::ostringstream os;
  os << "verbs_rpc_check: " << (f.count() ? "FAILED" : "ok") << " policy " << a.policy << ", "
     << a.processes << " process(es) x " << a.threads << " threads x " << a.coroutines
     << " coroutines x " << a.ops << " ops: RPC counter " << got << ", one-way counter " << got_ow
     << ", CAS/FAA counter " << got_verbs << " (want " << want << ", " << want_ow << ", " << 2 * want
     << "), " << chunks.size() << " chunks disjoint, " << olds.size() << " distinct fetch_add values, "
     << st.wall_seconds << " s";
  std::printf("%s\n", os.str().c_str());
  return f.count() ? 1 : 0;
}
