// What the verbs backend does when it cannot run: a clean error, never a
// crash or a hang. (Its behaviour on real verbs is tested by
// tests/verbs/verbs_suite.sh inside the Soft-RoCE VM: make test-verbs.)
#include <gtest/gtest.h>

#include "latchwork/backends.h"
#include "tcp_channel.h"

namespace lw {
namespace {

TEST(VerbsBackend, UnreachableClusterIsACleanErrorWithinTheTimeout) {
  ASSERT_TRUE(verbs_backend_available());
  ClusterConfig c;
  c.backend = "verbs";
  c.verbs.cluster.memory_nodes = {{"127.0.0.1", 1}};  // nothing listens on port 1
  c.memory_nodes = 1;
  c.verbs.connect_timeout_ms = 300;
  std::string err;
  const uint64_t start = rdma::monotonic_ms();
  auto b = make_backend(c, &err);
  EXPECT_EQ(b, nullptr);
  EXPECT_LT(rdma::monotonic_ms() - start, 5000u);
  // Without RDMA in the kernel the device is missing; with it, the node is unreachable.
  const bool no_device = err.find("RDMA") != std::string::npos || err.find("device") != std::string::npos;
  const bool unreachable = err.find("cannot reach memory node 127.0.0.1:1") != std::string::npos;
  EXPECT_TRUE(no_device || unreachable) << err;
}

TEST(VerbsBackend, ConfigWithoutClusterFileIsRejected) {
  ClusterConfig c;
  c.backend = "verbs";
  std::string err;
  EXPECT_EQ(make_backend(c, &err), nullptr);
  EXPECT_NE(err.find("needs a cluster file"), std::string::npos) << err;
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

TEST(VerbsBackend, MemoryNodeThreadsNeedTheNodeThisProcessServes) {
  ClusterConfig c;
  c.backend = "verbs";
  c.verbs.cluster.memory_nodes = {{"127.0.0.1", 7491}, {"127.0.0.1", 7492}};
  c.memory_nodes = 2;
  c.memory_node_threads = 2;
  EXPECT_NE(c.validate().find("only in a `latchwork node` process"), std::string::npos) << c.validate();
  c.verbs.local_node = 2;
  EXPECT_NE(c.validate().find("verbs.local_node is 2 but the cluster file lists 2"), std::string::npos)
      << c.validate();
  c.verbs.local_node = 1;
  EXPECT_EQ(c.validate(), "");
  c.verbs.barrier_timeout_ms = 0;
  EXPECT_NE(c.validate().find("verbs.barrier_timeout_ms"), std::string::npos) << c.validate();
  ClusterConfig sim;
  sim.verbs.local_node = 0;
  EXPECT_NE(sim.validate().find("is for the verbs backend"), std::string::npos) << sim.validate();
}

}  // namespace
}  // namespace lw
