// Late-bound RPC handlers (memnode.h): a served stub per name, whose code is
// installed by bind_late_handler() from this process's VerbsBackend.
#include "late_handlers.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/rdma/memnode.h"

namespace lw {
namespace rdma {
namespace {

struct Slot {
  std::string name;
  const void* owner = nullptr;  // who bound the code (guarded by g_mu)
  // Written host-side before run() and read by the RPC polling threads:
  // atomic, so a caller sees no handler or a whole one.
  std::atomic<std::shared_ptr<const RpcHandlerFn>> fn;
};

std::mutex g_mu;
std::vector<std::weak_ptr<Slot>> g_slots;  // every stub alive in this process

}  // namespace

uint32_t bind_late_handler(const RpcHandler& h, const void* owner) {
  if (!h.fn) return 0;
  auto fn = std::make_shared<const RpcHandlerFn>(h.fn);
  std::lock_guard<std::mutex> lock(g_mu);
  uint32_t bound = 0;
  std::erase_if(g_slots, [](const std::weak_ptr<Slot>& w) { return w.expired(); });
  for (const auto& w : g_slots)
    if (auto s = w.lock(); s && s->name == h.name) {
      s->fn.store(fn);
      s->owner = owner;
      ++bound;
    }
  return bound;
}

void unbind_late_handlers(const void* owner) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (const auto& w : g_slots)
    if (auto s = w.lock(); s && s->owner == owner) {
      s->fn.store(nullptr);
      s->owner = nullptr;
    }
}

}  // namespace rdma

std::vector<RpcHandler> late_bound_handlers(const std::vector<std::string>& names) {
  std::vector<RpcHandler> out;
  std::lock_guard<std::mutex> lock(rdma::g_mu);
  for (const std::string& name : names) {
    auto slot = std::make_shared<rdma::Slot>();
    slot->name = name;
    rdma::g_slots.push_back(slot);
    RpcHandler h;
    h.name = name;
    // The stub owns its slot: the slot lives as long as a copy of the handler.
    h.fn = [slot](RpcServer& server, std::span<const std::byte> request, std::span<std::byte> reply,
                  uint32_t* reply_bytes) -> Status {
      const std::shared_ptr<const RpcHandlerFn> fn = slot->fn.load();
      if (!fn) return Status::kUnsupported;  // not registered yet in this process
      return (*fn)(server, request, reply, reply_bytes);
    };
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace lw
