// Thread-aware RDMA resources of a compute process (SMART §4.1, Fig. 6):
// what each compute thread's engine posts through, by NicConfig::qp_policy.
//
//   per-thread-doorbell  one device context; per thread a CQ and QPs created
//                        in a parent domain over a thread domain
//                        (ibv_alloc_td), so the provider can give each thread
//                        its own doorbell register and drop locks; PD and
//                        MRs are shared. Where the provider has no thread
//                        domains, the QPs go in the shared PD instead and
//                        the description says so.
//   per-thread-qp        one context and PD; per thread a CQ and QPs.
//   per-thread-context   per thread its own ibv_context, PD and MRs.
//   shared-qp            not built: refused at connect (see acquire()).
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "latchwork/config/cluster_file.h"
#include "latchwork/config/nic_profile.h"
#include "rdma_device.h"

namespace lw::rdma {

class ThreadResources {
 public:
  ThreadResources() = default;
  ~ThreadResources();
  ThreadResources(const ThreadResources&) = delete;
  ThreadResources& operator=(const ThreadResources&) = delete;

  // Sets up resources for `threads` compute threads. `shared` is the
  // process's device (host-side set-up always uses it). An error for
  // shared-qp or when a per-thread context cannot be opened.
  std::string acquire(QpPolicy policy, RdmaDevice& shared, const ClusterFile& cluster,
                      uint32_t threads);

  // The device (context, PD for MRs) and the PD to create QPs in for thread t.
  RdmaDevice& device(uint32_t t) const { return *slots_.at(t).device; }
  ibv_pd* qp_pd(uint32_t t) const { return slots_.at(t).qp_pd; }
  // What was obtained, for Capabilities::thread_resources.
  const std::string& description() const { return description_; }

 private:
  struct Slot {
    RdmaDevice* device = nullptr;
    ibv_pd* qp_pd = nullptr;  // null: the device's PD
    ibv_td* td = nullptr;
    ibv_pd* parent = nullptr;
  };
  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<RdmaDevice>> own_devices_;
  std::string description_;
};

}  // namespace lw::rdma
