// Shared by the NIC model's analytic tests (nic_*_test.cpp): a cx5-100g
// profile without jitter and with every queueing mechanism off, so that a
// test switches on only the mechanism it checks and each time it expects is
// a sum of profile parameters.
#pragma once

#include <gtest/gtest.h>

#include "latchwork/config/nic_profile.h"
#include "nic_model.h"

namespace lw::sim::test {

// Off: link, message rate, PCIe, engines, QP and WQE caches, doorbells, CPU
// costs. The lock table and device memory keep their defaults.
inline void quiet_mechanisms(NicMechanisms* m) {
  m->link = m->message_rate = m->pcie = m->engines = false;
  m->qp_cache = m->wqe_cache = m->doorbells = m->cpu_costs = false;
}

inline NicParams cx5_without_jitter() {
  NicProfile profile;
  EXPECT_EQ(NicProfile::load("cx5-100g", &profile), "");
  NicParams p = profile.params;
  p.jitter_ns = 0;
  return p;
}

// An 8-byte verb to `offset` of memory node `node`.
inline WorkRequest verb8(Opcode op, NodeId node, uint64_t offset) {
  WorkRequest wr;
  wr.opcode = op;
  wr.length = 8;
  wr.remote = RemoteAddr(node, offset);
  return wr;
}

}  // namespace lw::sim::test
