#include "thread_resources.h"

#include <cerrno>
#include <cstring>
#include <sstream>

namespace lw::rdma {

ThreadResources::~ThreadResources() {
  // Parent domains before their thread domains; every QP in them is gone by
  // now (the engines are destroyed first).
  for (Slot& s : slots_) {
    if (s.parent) ibv_dealloc_pd(s.parent);
    if (s.td) ibv_dealloc_td(s.td);
  }
}

std::string ThreadResources::acquire(QpPolicy policy, RdmaDevice& shared, const ClusterFile& cluster,
                                     uint32_t threads) {
  slots_.assign(threads, Slot{&shared, nullptr, nullptr, nullptr});
  std::ostringstream d;
  switch (policy) {
    case QpPolicy::kSharedQp:
      return "qp_policy shared-qp is unsupported on the verbs backend (threads sharing one queue "
             "pair per memory node under a mutex is not built); use per-thread-qp, "
             "per-thread-context or per-thread-doorbell";
    case QpPolicy::kPerThreadQp:
      d << "per-thread-qp: " << threads << " CQs and QP sets in one shared context";
      break;
    case QpPolicy::kPerThreadContext:
      for (uint32_t t = 0; t < threads; ++t) {
        std::unique_ptr<RdmaDevice> dev;
        if (std::string e = RdmaDevice::open(cluster.device, cluster.ib_port, cluster.gid_index, &dev);
            !e.empty())
          return "per-thread-context: opening a context for thread " + std::to_string(t) + ": " + e;
        slots_[t].device = dev.get();
        own_devices_.push_back(std::move(dev));
      }
      d << "per-thread-context: " << threads << " device contexts, each with its own PD and MRs";
      break;
    case QpPolicy::kPerThreadDoorbell: {
      uint32_t got = 0;
      std::string refused;
      for (uint32_t t = 0; t < threads && refused.empty(); ++t) {
        ibv_td_init_attr ta{};
        ibv_td* td = ibv_alloc_td(shared.context(), &ta);
        if (!td) {
          refused = std::string("ibv_alloc_td: ") + std::strerror(errno);
          break;
        }
        ibv_parent_domain_init_attr pa{};
        pa.pd = shared.pd();
        pa.td = td;
        ibv_pd* parent = ibv_alloc_parent_domain(shared.context(), &pa);
        if (!parent) {
          refused = std::string("ibv_alloc_parent_domain: ") + std::strerror(errno);
          ibv_dealloc_td(td);
          break;
        }
        slots_[t].td = td;
        slots_[t].parent = parent;
        slots_[t].qp_pd = parent;
        ++got;
      }
      if (refused.empty()) {
        d << "per-thread-doorbell: " << got << " thread domains (per-thread CQ and QPs in a parent "
          << "domain; PD and MRs shared)";
      } else {
        // All or nothing: threads of one run get the same kind of resources.
        for (Slot& s : slots_) {
          if (s.parent) ibv_dealloc_pd(s.parent);
          if (s.td) ibv_dealloc_td(s.td);
          s = Slot{&shared, nullptr, nullptr, nullptr};
        }
        d << "per-thread-doorbell requested; " << shared.name() << " has no thread domains ("
          << refused << "): per-thread QPs and CQs in the shared context";
      }
      break;
    }
  }
  description_ = d.str();
  return {};
}

}  // namespace lw::rdma
