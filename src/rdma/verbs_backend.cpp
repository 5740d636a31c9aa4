// The verbs backend's set-up (device, memory nodes, queue pairs), its
// control-plane calls (allocation, barriers) and run().
#include "latchwork/rdma/verbs_backend.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "latchwork/base/assert.h"
#include "latchwork/verbs/rpc_builtin.h"
#include "late_handlers.h"
#include "local_region.h"
#include "memnode_protocol.h"
#include "verbs_impl.h"

namespace lw {

using rdma::json;

namespace {
// Symmetric backends created by this process so far: the names of their
// host-side allocations and barriers carry it, so a second backend in the
// same process (and its peers, which create theirs in the same order) never
// meets the first one's memory.
std::atomic<uint64_t> g_symmetric_backends{0};

std::string symmetric_prefix(uint64_t generation) {
  return "symmetric/" + std::to_string(generation) + "/";
}
}  // namespace

rdma::Engine& VerbsBackend::Impl::engine_for(const Placement& p) {
  const size_t t = thread_index(cfg, p);  // checks the slot exists
  if (!p.on_memory_node()) return *engines[t];
  LW_CHECK_MSG(symmetric() && p.node == static_cast<NodeId>(cfg.verbs.local_node),
               "the verbs backend runs coroutines on a memory node only in the `latchwork node` "
               "process that serves it (verbs.local_node " + std::to_string(cfg.verbs.local_node) +
                   "), not on node " + std::to_string(p.node));
  return *engines[cfg.total_compute_threads() + p.thread];
}

Status VerbsBackend::Impl::check(const WorkRequest& wr) const {
  const NodeId n = wr.remote.node();
  if (n >= nodes.size()) return Status::kWrongNode;
  const rdma::RemoteNode& r = *nodes[n];
  const bool atomic = is_atomic(wr.opcode);
  Status s = NodeMemory::check_access(r.node_bytes, r.dm_bytes, wr.remote.offset(),
                                      atomic ? 8 : wr.length, atomic);
  if (s != Status::kOk) return s;
  if (!atomic && wr.local == nullptr) return Status::kBadLength;
  if (wr.opcode == Opcode::kMaskedCas || wr.opcode == Opcode::kMaskedFaa) return Status::kUnsupported;
  // A transfer must fit the thread's bounce buffer.
  if (!atomic && wr.length > cfg.verbs.staging_bytes) return Status::kBadLength;
  return Status::kOk;
}

void VerbsBackend::Impl::transport_error(const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(error_mu);
    ++transport_errors;
    if (first_error.empty()) first_error = what;
  }
  if (cfg.verbs.exit_on_transport_error) {
    std::fflush(stdout);
    std::fprintf(stderr, "latchwork: verbs backend: %s; the run is aborted\n", what.c_str());
    std::fflush(stderr);
    std::_Exit(1);  // other threads may be mid-post: do not run destructors under them
  }
}

VerbsBackend::VerbsBackend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
// The handlers it bound run code whose state (a store) ends with this backend's user.
VerbsBackend::~VerbsBackend() { rdma::unbind_late_handlers(impl_.get()); }

std::unique_ptr<VerbsBackend> VerbsBackend::connect(const ClusterConfig& config, std::string* error) {
  auto fail = [&](const std::string& e) -> std::unique_ptr<VerbsBackend> {
    if (error) *error = e;
    return nullptr;
  };
  if (std::string e = config.validate(); !e.empty()) return fail(e);
  auto impl = std::make_unique<Impl>();
  Impl& s = *impl;
  s.cfg = config;
  const ClusterFile& cf = config.verbs.cluster;
  const uint32_t timeout = config.verbs.connect_timeout_ms;
  if (std::string e = rdma::RdmaDevice::open(cf.device, cf.ib_port, cf.gid_index, &s.device); !e.empty())
    return fail(e);
  for (size_t i = 0; i < cf.memory_nodes.size(); ++i) {
    auto node = std::make_unique<rdma::RemoteNode>();
    node->address = cf.memory_nodes[i];
    const std::string who = "memory node " + std::to_string(i) + " (" + node->address.to_string() + ")";
    if (std::string e = rdma::TcpChannel::connect(node->address, timeout, &node->channel); !e.empty())
      return fail(e);
    json reply;
    if (std::string e = node->channel.call({{"op", rdma::kOpHello}}, &reply, timeout); !e.empty())
      return fail(who + ": " + e);
    if (reply.value("version", 0u) != rdma::kProtocolVersion)
      return fail(who + " speaks protocol " + std::to_string(reply.value("version", 0u)) +
                  ", this build " + std::to_string(rdma::kProtocolVersion));
    node->base_addr = reply.value("addr", uint64_t{0});
    node->rkey = reply.value("rkey", 0u);
    node->node_bytes = reply.value("node_bytes", uint64_t{0});
    node->dm_bytes = reply.value("dm_bytes", uint64_t{0});
    node->dm_rkey = reply.value("dm_rkey", 0u);
    if (node->node_bytes <= NodeMemory::kReservedBytes || node->base_addr == 0)
      return fail(who + " announced no memory");
    // A node served by this very process (`latchwork node`): its threads
    // reach the memory with the CPU as well.
    if (rdma::LocalRegion local; find_local_region(reply.value("instance", uint64_t{0}), &local)) {
      if (local.bytes < node->node_bytes) return fail(who + ": its in-process region is smaller than announced");
      node->local_base = local.base;
    }
    if (config.verbs.local_node == static_cast<int64_t>(i) && node->local_base == nullptr)
      return fail(who + " is not served by this process, but verbs.local_node is " + std::to_string(i) +
                  " (`latchwork node --index " + std::to_string(i) +
                  "` serves the cluster file's entry " + std::to_string(i) + " itself)");
    // The node's RPC handler table, by name in id order (register_handler).
    if (auto h = reply.find("handlers"); h != reply.end() && h->is_array() && h->size() <= kMaxRpcHandlers) {
      for (const json& name : *h)
        if (name.is_string()) node->handlers.push_back(name.get<std::string>());
    }
    s.nodes.push_back(std::move(node));
  }
  // The config describes the cluster as it is: memory sizes come from the
  // memory nodes (the smallest, when they differ).
  s.cfg.memory_node_bytes = s.nodes[0]->node_bytes;
  s.cfg.device_memory_bytes = s.nodes[0]->dm_bytes;
  for (const auto& n : s.nodes) {
    s.cfg.memory_node_bytes = std::min(s.cfg.memory_node_bytes, n->node_bytes);
    s.cfg.device_memory_bytes = std::min(s.cfg.device_memory_bytes, n->dm_bytes);
  }
  // Handler ids must mean the same handler on every node.
  s.rpc_handlers = static_cast<uint32_t>(s.nodes[0]->handlers.size());
  for (const auto& n : s.nodes) {
    uint32_t same = 0;
    while (same < std::min<size_t>(s.rpc_handlers, n->handlers.size()) &&
           n->handlers[same] == s.nodes[0]->handlers[same])
      ++same;
    s.rpc_handlers = same;
  }
  // One engine per compute thread, one per thread of the memory node this
  // process serves (symmetric nodes), and one for host-side set-up; the QP
  // policy decides what the threads' engines are built on.
  if (s.symmetric()) {
    s.generation = g_symmetric_backends.fetch_add(1);
    s.host_allocs.assign(s.nodes.size(), 0);
  }
  const uint64_t engines =
      config.total_compute_threads() + (s.symmetric() ? config.memory_node_threads : 0) + 1;
  if (std::string e = s.resources.acquire(config.nic.qp_policy, *s.device, cf,
                                          static_cast<uint32_t>(engines - 1));
      !e.empty())
    return fail(e);
  for (uint64_t t = 0; t < engines; ++t) {
    auto e = std::make_unique<rdma::Engine>(&s, static_cast<uint32_t>(t));
    const bool host = t + 1 == engines;
    rdma::RdmaDevice& dev = host ? *s.device : s.resources.device(static_cast<uint32_t>(t));
    ibv_pd* qp_pd = host ? nullptr : s.resources.qp_pd(static_cast<uint32_t>(t));
    if (std::string err = e->init(dev, qp_pd, static_cast<uint32_t>(s.nodes.size()), config.queue_depth,
                                  config.verbs.staging_bytes);
        !err.empty())
      return fail(err);
    s.engines.push_back(std::move(e));
  }
  for (NodeId n = 0; n < s.nodes.size(); ++n) {
    json qps = json::array();
    // Every context of one device and port has the same GID and LID.
    for (auto& e : s.engines) qps.push_back(s.device->endpoint(e->queue(n).qp, e->queue(n).psn).to_json());
    json reply;
    const std::string who = "memory node " + std::to_string(n) + " (" + s.nodes[n]->address.to_string() + ")";
    if (std::string e = s.nodes[n]->channel.call({{"op", rdma::kOpConnect}, {"qps", qps}}, &reply, timeout);
        !e.empty())
      return fail(who + ": connecting queue pairs: " + e);
    const json& theirs = reply["qps"];
    if (!theirs.is_array() || theirs.size() != s.engines.size()) return fail(who + ": malformed connect reply");
    for (size_t i = 0; i < s.engines.size(); ++i) {
      rdma::QpEndpoint remote;
      if (std::string e = rdma::QpEndpoint::from_json(theirs[i], &remote); !e.empty()) return fail(who + ": " + e);
      rdma::SendQueue& q = s.engines[i]->queue(n);
      rdma::RdmaDevice& dev = i + 1 == s.engines.size() ? *s.device : s.resources.device(static_cast<uint32_t>(i));
      if (std::string e = dev.connect_qp(q.qp, q.psn, remote); !e.empty()) return fail(who + ": " + e);
    }
  }
  return std::unique_ptr<VerbsBackend>(new VerbsBackend(std::move(impl)));
}

const ClusterConfig& VerbsBackend::config() const { return impl_->cfg; }

Capabilities VerbsBackend::capabilities() const {
  bool dm = true;
  for (const auto& n : impl_->nodes) dm = dm && n->dm_bytes > 0;
  // Software RDMA (rxe, siw) copies with the CPU, byte ranges at a time.
  const std::string& dev = impl_->device->name();
  const bool software = dev.rfind("rxe", 0) == 0 || dev.rfind("siw", 0) == 0;
  Capabilities c;
  c.device_memory = dm;
  c.masked_atomics = false;
  // Only in a `latchwork node` process, for the node it serves.
  c.cpu_access = impl_->symmetric() && impl_->nodes[impl_->cfg.verbs.local_node]->local_base != nullptr;
  c.deterministic = false;
  c.line_atomic = !software;
  c.failed_cas_writes_back = true;  // rxe: yes; a hardware NIC: not known
  c.rpc = impl_->rpc_handlers > 0;
  c.thread_resources = impl_->resources.description();
  return c;
}

Result<HandlerId> VerbsBackend::register_handler(const RpcHandler& h) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "register_handler after run");
  if (h.name.empty()) return {Status::kBadLength, 0};
  // Code cannot travel to a memory node process: find the node's handler of
  // that name (the connect step checked that ids agree across nodes).
  for (uint32_t id = 0; id < s.rpc_handlers; ++id)
    if (s.nodes[0]->handlers[id] == h.name) {
      // A `latchwork node` process serves its node in-process: the node's
      // late-bound handler of this name runs this code (memnode.h).
      if (s.symmetric() && id >= kBuiltinRpcHandlers) rdma::bind_late_handler(h, &s);
      return {Status::kOk, static_cast<HandlerId>(id)};
    }
  return {Status::kUnsupported, 0};
}

namespace {

// One control-plane request to a memory node; a failure is a transport error.
json call(VerbsBackend::Impl& s, NodeId node, const json& request, uint64_t timeout_ms, std::string* err) {
  rdma::RemoteNode& r = *s.nodes[node];
  std::lock_guard<std::mutex> lock(r.channel_mu);
  json reply;
  *err = r.channel.call(request, &reply, static_cast<uint32_t>(timeout_ms));
  return reply;
}

}  // namespace

namespace {

// An allocation request; the memory node answers offset 0 when full.
RemoteAddr allocation(VerbsBackend::Impl& s, NodeId node, const json& request) {
  std::string err;
  json r = call(s, node, request, s.cfg.verbs.connect_timeout_ms, &err);
  if (!err.empty()) {
    s.transport_error("memory node " + std::to_string(node) + ": " + request.value("op", "") +
                      " failed: " + err);
    return {};
  }
  const uint64_t off = r.value("offset", uint64_t{0});
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

}  // namespace

namespace {

// Symmetric nodes: the k-th host-side allocation of this process on a node is
// the shared region "symmetric/<backend>/<node>/<k>", so every node process
// running the same set-up gets the same addresses (and the first to ask
// allocates). A size that differs from another process's means the set-ups
// diverged: that ends the run.
RemoteAddr symmetric_allocation(VerbsBackend::Impl& s, NodeId node, uint64_t bytes, uint64_t align) {
  uint64_t k = 0;
  {
    std::lock_guard<std::mutex> lock(s.host_alloc_mu);
    k = s.host_allocs[node]++;
  }
  const std::string name = symmetric_prefix(s.generation) + std::to_string(node) + "/" + std::to_string(k);
  std::string err;
  json r = call(s, node, {{"op", rdma::kOpAllocShared}, {"name", name}, {"bytes", bytes}, {"align", align}},
                s.cfg.verbs.connect_timeout_ms, &err);
  if (!err.empty()) {
    s.transport_error("memory node " + std::to_string(node) + ": allocation \"" + name + "\" failed: " + err);
    return {};
  }
  if (const uint64_t theirs = r.value("bytes", uint64_t{0}); theirs != 0 && theirs != bytes) {
    s.transport_error("the node processes' set-ups diverged: host-side allocation #" + std::to_string(k) +
                      " on memory node " + std::to_string(node) + " is " + std::to_string(bytes) +
                      " bytes here but " + std::to_string(theirs) +
                      " bytes in another process (every `latchwork node` process must allocate "
                      "the same sequence before run())");
    return {};
  }
  const uint64_t off = r.value("offset", uint64_t{0});
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

}  // namespace

RemoteAddr VerbsBackend::allocate(NodeId node, uint64_t bytes, uint64_t align) {
  if (node >= impl_->nodes.size() || bytes == 0) return {};
  // From a coroutine during run(): the node's alloc_chunk handler over RPC
  // on this thread's QP (the TCP control channel is host-side set-up).
  // (alloc_chunk takes alignments up to 4096; larger ones keep the channel.)
  rdma::Engine* e = rdma::Engine::current();
  if (e && impl_->rpc_handlers > kAllocChunkHandler && align > 0 && align <= 4096 &&
      (align & (align - 1)) == 0) {
    const uint64_t req[2] = {bytes, align};
    uint64_t raw = 0;
    RpcCall call{.node = node, .handler = kAllocChunkHandler,
                 .request = std::as_bytes(std::span(req)),
                 .reply = std::as_writable_bytes(std::span(&raw, 1))};
    const Status st = e->call_blocking(&call);
    if (st != Status::kOk || call.reply_bytes != 8) return {};
    return RemoteAddr::from_raw(raw);
  }
  if (!e && impl_->symmetric()) return symmetric_allocation(*impl_, node, bytes, align);
  return allocation(*impl_, node, {{"op", rdma::kOpAlloc}, {"bytes", bytes}, {"align", align}});
}

RemoteAddr VerbsBackend::allocate_device_memory(NodeId node, uint64_t bytes) {
  if (node >= impl_->nodes.size() || impl_->nodes[node]->dm_bytes == 0 || bytes == 0) return {};
  return allocation(*impl_, node,
                    {{"op", rdma::kOpAlloc}, {"bytes", bytes}, {"align", 8}, {"device", true}});
}

RemoteAddr VerbsBackend::allocate_shared(NodeId node, const std::string& name, uint64_t bytes) {
  if (node >= impl_->nodes.size() || bytes == 0) return {};
  return allocation(*impl_, node, {{"op", rdma::kOpAllocShared}, {"name", name}, {"bytes", bytes}});
}

std::string VerbsBackend::barrier(const std::string& name, uint32_t parties, uint64_t timeout_ms) {
  Impl& s = *impl_;
  std::string err;
  // Memory node 0 keeps the barriers; the reply may take the whole timeout.
  call(s, 0, {{"op", rdma::kOpBarrier}, {"name", name}, {"parties", parties}, {"timeout_ms", timeout_ms}},
       timeout_ms + 5000, &err);
  return err;
}

void VerbsBackend::host_write(RemoteAddr dst, const void* src, uint64_t bytes) {
  const uint64_t chunk = std::min<uint64_t>(impl_->cfg.verbs.staging_bytes / 2, 1u << 20);
  const auto* p = static_cast<const std::byte*>(src);
  for (uint64_t done = 0; done < bytes;) {
    const uint32_t len = static_cast<uint32_t>(std::min(chunk, bytes - done));
    WorkRequest wr{.opcode = Opcode::kWrite, .length = len, .remote = dst + done,
                   .local = const_cast<std::byte*>(p + done)};
    Status st = impl_->host_engine().post_and_wait(wr);
    LW_CHECK_MSG(st == Status::kOk, "host write of " + std::to_string(len) + " bytes at " +
                                        (dst + done).to_string() + ": " + std::string(to_string(st)));
    done += len;
  }
}

void VerbsBackend::host_read(RemoteAddr src, void* dst, uint64_t bytes) {
  const uint64_t chunk = std::min<uint64_t>(impl_->cfg.verbs.staging_bytes / 2, 1u << 20);
  auto* p = static_cast<std::byte*>(dst);
  for (uint64_t done = 0; done < bytes;) {
    const uint32_t len = static_cast<uint32_t>(std::min(chunk, bytes - done));
    WorkRequest wr{.opcode = Opcode::kRead, .length = len, .remote = src + done, .local = p + done};
    Status st = impl_->host_engine().post_and_wait(wr);
    LW_CHECK_MSG(st == Status::kOk, "host read of " + std::to_string(len) + " bytes at " +
                                        (src + done).to_string() + ": " + std::string(to_string(st)));
    done += len;
  }
}

void VerbsBackend::spawn(Placement p, WorkerMain main) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "spawn after run");
  rdma::Engine* e = &s.engine_for(p);
  auto co = std::make_unique<rdma::Coroutine>(e, p, worker_seed(s.cfg.seed, p), std::move(main));
  co->task = co->main(co->worker);
  co->resume_point = co->task.handle();
  e->add(co.get());
  s.coroutines.push_back(std::move(co));
}

RunStats VerbsBackend::run() {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "a VerbsBackend runs once");
  s.ran = true;
  RunStats stats;
  // Symmetric nodes: no process starts before every one has set up (they
  // initialise shared memory host-side), and run() returns only when all
  // are done (so that results read afterwards are final).
  auto symmetric_barrier = [&](const char* what) {
    if (!s.symmetric()) return true;
    const std::string name = symmetric_prefix(s.generation) + what;
    const std::string e = barrier(name, static_cast<uint32_t>(s.nodes.size()), s.cfg.verbs.barrier_timeout_ms);
    if (e.empty()) return true;
    s.transport_error("the node processes did not meet at \"" + name + "\": " + e);
    stats.stalled = "barrier " + name + ": " + e;
    return false;
  };
  if (!symmetric_barrier("run-start")) return stats;
  s.start = std::chrono::steady_clock::now();
  std::vector<std::thread> running;
  for (size_t i = 0; i + 1 < s.engines.size(); ++i)
    if (s.engines[i]->has_coroutines()) running.emplace_back([e = s.engines[i].get()] { e->run(); });
  for (auto& t : running) t.join();
  const auto wall = std::chrono::steady_clock::now() - s.start;
  stats.elapsed_ns = static_cast<Nanos>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count());
  stats.wall_seconds = std::chrono::duration<double>(wall).count();
  rdma::EngineStats sum;
  for (size_t i = 0; i + 1 < s.engines.size(); ++i) {
    const rdma::EngineStats& e = s.engines[i]->stats();
    sum.verbs += e.verbs;
    sum.doorbells += e.doorbells;
    sum.empty_polls += e.empty_polls;
    sum.room_waits += e.room_waits;
    sum.flushes += e.flushes;
    sum.fence_waits += e.fence_waits;
  }
  stats.verbs = sum.verbs;
  stats.counters["verbs.doorbells"] = static_cast<double>(sum.doorbells);
  stats.counters["verbs.empty_polls"] = static_cast<double>(sum.empty_polls);
  stats.counters["verbs.room_waits"] = static_cast<double>(sum.room_waits);
  stats.counters["verbs.flushes"] = static_cast<double>(sum.flushes);
  stats.counters["verbs.fence_waits"] = static_cast<double>(sum.fence_waits);
  stats.counters["verbs.transport_errors"] = static_cast<double>(s.transport_errors);
  symmetric_barrier("run-end");
  return stats;
}

}  // namespace lw
