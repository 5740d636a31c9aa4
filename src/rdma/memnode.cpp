#include "latchwork/rdma/memnode.h"

#include <sys/mman.h>

#include <algorithm>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latchwork/base/layout.h"
#include "verbs/node_memory.h"
#include "latchwork/verbs/rpc_builtin.h"
#include "local_region.h"
#include "memnode_protocol.h"
#include "memnode_region.h"
#include "rdma_device.h"
#include "rpc_server.h"

namespace lw {

std::string MemnodeOptions::validate() const {
  if (listen.port == 0) return "--listen needs a port (HOST:PORT)";
  if (bytes < (1u << 20) || bytes > (1ull << 40)) return "--size must be in [1 MiB, 1 TiB]";
  if (huge_pages != "auto" && huge_pages != "on" && huge_pages != "off")
    return "--huge-pages must be auto, on or off";
  const auto& builtins = builtin_rpc_handlers();
  if (builtins.size() + extra_handlers.size() > kMaxRpcHandlers)
    return "at most " + std::to_string(kMaxRpcHandlers - builtins.size()) + " extra RPC handlers";
  for (size_t i = 0; i < extra_handlers.size(); ++i) {
    const RpcHandler& h = extra_handlers[i];
    if (h.name.empty() || !h.fn) return "extra RPC handler " + std::to_string(i) + " has no name or no code";
    auto same = [&](const RpcHandler& o) { return o.name == h.name; };
    if (std::any_of(builtins.begin(), builtins.end(), same) ||
        std::any_of(extra_handlers.begin(), extra_handlers.begin() + static_cast<std::ptrdiff_t>(i), same))
      return "RPC handler name \"" + h.name + "\" is served twice";
  }
  return {};
}

namespace rdma {
namespace {

std::string map_memory(const MemnodeOptions& o, Region* r) {
  constexpr uint64_t kHuge = 2ull << 20;
  if (o.huge_pages != "off") {
    uint64_t len = align_up(o.bytes, kHuge);
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p != MAP_FAILED) {
      r->base = p;
      r->bytes = len;
      r->huge = true;
      return {};
    }
    if (o.huge_pages == "on")
      return "--huge-pages on: cannot map " + std::to_string(len) +
             " bytes of 2 MiB pages (reserve them in /proc/sys/vm/nr_hugepages)";
  }
  uint64_t len = align_up(o.bytes, 4096);
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return "cannot map " + std::to_string(len) + " bytes";
  r->base = p;
  r->bytes = len;
  return {};
}

// One compute process's connection: its queue pairs live as long as it, and
// a polling thread serves the RPCs that arrive on them (rpc_server.h).
class Session {
 public:
  Session(RdmaDevice& dev, Region& region, TcpChannel ch, const std::atomic<bool>& stop)
      : dev_(dev), region_(region), ch_(std::move(ch)), stop_(stop) {}

  void serve() {
    for (uint64_t n = 0; n < (1ull << 40) && !stop_.load(); ++n) {
      if (!ch_.wait_readable(500)) continue;  // idle client: check `stop`
      // A request's frame may trickle in slowly on a loaded host; once it
      // has begun, give it the whole request timeout (a split frame would
      // lose the framing and reset the client mid-set-up).
      json req;
      if (!ch_.receive(&req, kRequestTimeoutMs).empty()) return;  // closed or broken
      json reply = handle(req);
      if (!ch_.send(reply, 5000).empty()) return;
    }
  }

 private:
  static constexpr uint32_t kRequestTimeoutMs = 30'000;

  static json fail(const std::string& e) { return {{"ok", false}, {"error", e}}; }

  json handle(const json& req) {
    const std::string op = req.value("op", "");
    if (op == kOpHello) return hello();
    if (op == kOpConnect) return connect(req);
    if (op == kOpAlloc) return alloc(req);
    if (op == kOpAllocShared) return alloc_shared(req);
    if (op == kOpBarrier) return barrier(req);
    return fail("unknown request \"" + op + "\"");
  }

  json hello() {
    return {{"ok", true},
            {"version", kProtocolVersion},
            {"device", dev_.name()},
            {"node_bytes", region_.bytes},
            {"addr", reinterpret_cast<uint64_t>(region_.base)},
            {"rkey", region_.mr->rkey},
            {"dm_bytes", region_.dm_bytes},
            {"dm_rkey", region_.dm_mr ? region_.dm_mr->rkey : 0},
            {"handlers", handler_names()},
            {"instance", region_.instance}};
  }

  // What register_handler() on the compute side resolves names against.
  json handler_names() const {
    json names = json::array();
    for (const RpcHandler& h : region_.handlers) names.push_back(h.name);
    return names;
  }

  json connect(const json& req) {
    auto list = req.find("qps");
    if (list == req.end() || !list->is_array() || list->empty() || list->size() > 4096)
      return fail("connect needs 1 to 4096 queue-pair endpoints");
    if (rpc_) return fail("connect: this session's queue pairs are connected already");
    rpc_ = std::make_unique<RpcServerLoop>(dev_, region_, stop_);
    if (std::string e = rpc_->init(static_cast<uint32_t>(list->size())); !e.empty()) return fail(e);
    json mine = json::array();
    for (const json& j : *list) {
      QpEndpoint remote;
      if (std::string e = QpEndpoint::from_json(j, &remote); !e.empty()) return fail(e);
      ibv_qp* qp = nullptr;
      // One-sided verbs need nothing from the responder; its send queue
      // carries RPC replies (the loop owns the QP).
      if (std::string e = rpc_->create_qp(&qp); !e.empty()) return fail(e);
      const uint32_t psn = (qp->qp_num * 2654435761u) & 0xffffff;
      if (std::string e = dev_.connect_qp(qp, psn, remote); !e.empty()) return fail(e);
      mine.push_back(dev_.endpoint(qp, psn).to_json());
    }
    rpc_->start();
    return {{"ok", true}, {"qps", mine}};
  }

  json alloc(const json& req) {
    const uint64_t bytes = req.value("bytes", uint64_t{0});
    const uint64_t align = req.value("align", uint64_t{64});
    const bool device = req.value("device", false);
    if (bytes == 0 || align == 0 || (align & (align - 1)) != 0 || align > (1u << 20))
      return fail("alloc needs bytes > 0 and a power-of-two align up to 1 MiB");
    // The alloc_chunk RPC handler bumps the same pointer (Region::bump).
    return {{"ok", true}, {"offset", region_.bump(bytes, align, device)}};  // 0: full
  }

  json alloc_shared(const json& req) {
    const std::string name = req.value("name", "");
    const uint64_t bytes = req.value("bytes", uint64_t{0});
    const uint64_t align = req.value("align", uint64_t{64});
    if (name.empty() || bytes == 0) return fail("alloc_shared needs a name and bytes > 0");
    // An existing name answers its offset, or 0 and its size when the sizes differ.
    auto existing = [&](const std::pair<uint64_t, uint64_t>& e) -> json {
      if (e.second == bytes) return {{"ok", true}, {"offset", e.first}};
      return {{"ok", true}, {"offset", 0}, {"bytes", e.second}};
    };
    {
      std::lock_guard<std::mutex> lock(region_.mu);
      if (auto it = region_.shared.find(name); it != region_.shared.end()) return existing(it->second);
    }
    json r = alloc({{"bytes", bytes}, {"align", align}});
    if (!r.value("ok", false)) return r;
    std::lock_guard<std::mutex> lock(region_.mu);
    if (auto it = region_.shared.find(name); it != region_.shared.end())  // raced: first wins
      return existing(it->second);
    const uint64_t off = r.value("offset", uint64_t{0});
    if (off) region_.shared[name] = {off, bytes};  // fresh mmap memory is zero
    return {{"ok", true}, {"offset", off}};
  }

  json barrier(const json& req) {
    const std::string name = req.value("name", "");
    const uint32_t parties = req.value("parties", 0u);
    const uint64_t timeout_ms = std::min<uint64_t>(req.value("timeout_ms", uint64_t{10'000}), 3'600'000);
    if (name.empty() || parties == 0) return fail("barrier needs a name and parties > 0");
    std::unique_lock<std::mutex> lock(region_.mu);
    Region::Barrier& b = region_.barriers[name];
    if (b.arrived == 0) b.parties = parties;
    if (b.parties != parties)
      return fail("barrier \"" + name + "\" was entered with " + std::to_string(b.parties) +
                  " parties, now " + std::to_string(parties));
    const uint64_t gen = b.generation;
    if (++b.arrived == b.parties) {
      b.arrived = 0;
      ++b.generation;
      region_.cv.notify_all();
      return {{"ok", true}};
    }
    const bool released = region_.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
      return region_.barriers[name].generation != gen || stop_.load();
    });
    if (released && region_.barriers[name].generation != gen) return {{"ok", true}};
    Region::Barrier& still = region_.barriers[name];
    const uint32_t arrived = still.arrived;
    --still.arrived;
    return fail("barrier \"" + name + "\": only " + std::to_string(arrived) + " of " +
                std::to_string(parties) + " processes arrived within " +
                std::to_string(timeout_ms) + " ms");
  }

  RdmaDevice& dev_;
  Region& region_;
  TcpChannel ch_;
  const std::atomic<bool>& stop_;
  std::unique_ptr<RpcServerLoop> rpc_;  // after connect
};

}  // namespace
}  // namespace rdma

std::string run_memnode(const MemnodeOptions& o, const std::atomic<bool>& stop,
                        const std::function<void(const std::string&)>& log,
                        const std::function<void()>& serving) {
  using namespace rdma;
  if (std::string e = o.validate(); !e.empty()) return e;
  std::unique_ptr<RdmaDevice> dev;
  if (std::string e = RdmaDevice::open(o.device, o.ib_port, o.gid_index, &dev); !e.empty()) return e;
  Region region;
  if (std::string e = map_memory(o, &region); !e.empty()) return e;
  region.handlers = builtin_rpc_handlers();
  region.handlers.insert(region.handlers.end(), o.extra_handlers.begin(), o.extra_handlers.end());
  {
    std::random_device rd;
    region.instance = (uint64_t{rd()} << 32 | rd()) ^ (uint64_t(::getpid()) << 20) ^ monotonic_ms();
    if (region.instance == 0) region.instance = 1;
  }
  struct Cleanup {
    Region& r;
    ~Cleanup() {
      withdraw_local_region(r.instance);
      if (r.dm_mr) ibv_dereg_mr(r.dm_mr);
      if (r.dm) ibv_free_dm(r.dm);
      if (r.mr) ibv_dereg_mr(r.mr);
      if (r.base) ::munmap(r.base, r.bytes);
    }
  } cleanup{region};
  region.mr = ibv_reg_mr(dev->pd(), region.base, region.bytes, kRemoteAccess);
  if (!region.mr) return "cannot register " + std::to_string(region.bytes) + " bytes with " + dev->name() +
                         " (ibv_reg_mr failed; check `ulimit -l`)";
  std::string dm_note = "none on this device (fallback: latches in host memory)";
  if (o.device_memory_bytes > 0 && dev->device_memory_bytes() > 0) {
    ibv_alloc_dm_attr attr{};
    attr.length = std::min<uint64_t>(o.device_memory_bytes, dev->device_memory_bytes());
    region.dm = ibv_alloc_dm(dev->context(), &attr);
    if (region.dm) {
      region.dm_mr = ibv_reg_dm_mr(dev->pd(), region.dm, 0, attr.length,
                                   kRemoteAccess | IBV_ACCESS_ZERO_BASED);
      std::vector<uint8_t> zeros(attr.length);
      if (region.dm_mr && ibv_memcpy_to_dm(region.dm, 0, zeros.data(), attr.length) == 0) {
        region.dm_bytes = attr.length;
        dm_note = std::to_string(attr.length) + " bytes";
      }
    }
  }
  int lfd = -1;
  uint16_t port = 0;
  if (std::string e = listen_tcp(o.listen, &lfd, &port); !e.empty()) return e;
  log("memnode: serving " + std::to_string(region.bytes >> 20) + " MiB" +
      (region.huge ? " (2 MiB pages)" : "") + " on " + dev->name() + " port " +
      std::to_string(dev->port()) + " gid " + std::to_string(dev->gid_index()) + " at " +
      o.listen.host + ":" + std::to_string(port) + "; device memory: " + dm_note);
  publish_local_region({region.instance, static_cast<std::byte*>(region.base), region.bytes});
  if (serving) serving();

  std::list<std::thread> sessions;
  std::atomic<uint32_t> live{0};
  for (uint64_t n = 0; n < (1ull << 40) && !stop.load(); ++n) {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    live.fetch_add(1);
    sessions.emplace_back([&, fd] {
      Session s(*dev, region, TcpChannel(fd), stop);
      s.serve();
      live.fetch_sub(1);
    });
  }
  ::close(lfd);
  {
    // Wake barrier waiters under the lock, so none misses the stop.
    std::lock_guard<std::mutex> lock(region.mu);
    region.cv.notify_all();
  }
  for (auto& t : sessions) t.join();
  log("memnode: stopped");
  return {};
}

}  // namespace lw

namespace lw {

namespace rdma {
namespace {
std::mutex g_local_mu;
std::vector<LocalRegion> g_local;
}  // namespace

void publish_local_region(const LocalRegion& r) {
  std::lock_guard<std::mutex> lock(g_local_mu);
  g_local.push_back(r);
}

void withdraw_local_region(uint64_t instance) {
  std::lock_guard<std::mutex> lock(g_local_mu);
  std::erase_if(g_local, [&](const LocalRegion& r) { return r.instance == instance; });
}

bool find_local_region(uint64_t instance, LocalRegion* out) {
  std::lock_guard<std::mutex> lock(g_local_mu);
  for (const LocalRegion& r : g_local)
    if (r.instance == instance) {
      *out = r;
      return true;
    }
  return false;
}
}  // namespace rdma

std::string memnode_barrier(const MemoryNodeAddress& node, const std::string& name, uint32_t parties,
                            uint64_t timeout_ms, uint32_t connect_timeout_ms) {
  rdma::TcpChannel ch;
  if (std::string e = rdma::TcpChannel::connect(node, connect_timeout_ms, &ch); !e.empty()) return e;
  rdma::json reply;
  if (std::string e = ch.call({{"op", rdma::kOpBarrier}, {"name", name}, {"parties", parties},
                               {"timeout_ms", timeout_ms}},
                              &reply, static_cast<uint32_t>(std::min<uint64_t>(timeout_ms + 5000, UINT32_MAX)));
      !e.empty())
    return "barrier \"" + name + "\" at memory node " + node.to_string() + ": " + e;
  return {};
}

}  // namespace lw
