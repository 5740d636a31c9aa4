// Failures inside a simulated run (sim_backend.h): a worker's exception or an
// invariant violated under ThrowOnInvariant leaves run() as an exception, with
// every request in flight freed (the ASan build checks for leaks) and the
// backend destructible.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

ClusterConfig small_config(uint64_t seed = 3) {
  ClusterConfig c;
  c.seed = seed;
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 2;
  return c;
}

// Every worker reads and writes its own word; the one at `thrower` posts an
// unsignaled WRITE (in flight for sure) and throws after `ops` operations.
void spawn_busy(SimBackend& sim, RemoteAddr base, const Placement& thrower, int ops,
                std::function<void(Worker&)> fail) {
  sim.spawn_compute([=](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const RemoteAddr mine = base + 64 * (p.node * 16 + p.thread * 4 + p.coroutine);
    const bool throws = p.node == thrower.node && p.thread == thrower.thread &&
                        p.coroutine == thrower.coroutine;
    for (int i = 0; i < 50; ++i) {
      uint64_t v = 0;
      co_await w.read(&v, mine, 8);
      uint64_t next = v + 1;
      co_await w.write(mine, &next, 8);
      if (throws && i == ops) {
        Batch b;
        b.write(mine, &next, 8);
        EXPECT_EQ(w.post(b), Status::kOk);
        fail(w);
      }
    }
  });
}

TEST(SimException, WorkerExceptionIsRethrownByRun) {
  auto sim = std::make_unique<SimBackend>(small_config());
  const RemoteAddr base = sim->allocate(0, 64 * 64, 64);
  spawn_busy(*sim, base, {Placement::Kind::kCompute, 1, 0, 1}, 10,
             [](Worker&) { throw std::runtime_error("the workload gave up"); });
  try {
    sim->run();
    ADD_FAILURE() << "run() returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the workload gave up");
  }
  // Memory can still be inspected, and the backend is destroyed cleanly.
  EXPECT_GE(sim->host_load(base + 64 * (16 + 1)), 10u);
  sim.reset();
}

TEST(SimException, ExceptionCaughtInsideTheWorkerChangesNothing) {
  auto run_once = [](bool throw_and_catch) {
    SimBackend sim(small_config());
    const RemoteAddr base = sim.allocate(0, 64 * 64, 64);
    sim.spawn_compute([=](Worker& w) -> Task<void> {
      auto inner = [&](int i) -> Task<int> {
        uint64_t v = 0;
        co_await w.read(&v, base, 8);
        if (throw_and_catch && i % 7 == 3) throw std::out_of_range("caught below");
        co_return static_cast<int>(v);
      };
      for (int i = 0; i < 20; ++i) {
        try {
          (void)co_await inner(i);
        } catch (const std::out_of_range&) {
        }
        co_await w.faa(base, 1);
      }
    });
    RunStats s = sim.run();
    EXPECT_EQ(sim.host_load(base), 8u * 20);
    return s.trace_hash;
  };
  EXPECT_EQ(run_once(true), run_once(false));
}

TEST(SimException, CheckInAWorkerUnderThrowOnInvariant) {
  ThrowOnInvariant scope;
  auto sim = std::make_unique<SimBackend>(small_config(4242));
  const RemoteAddr base = sim->allocate(0, 64 * 64, 64);
  spawn_busy(*sim, base, {Placement::Kind::kCompute, 0, 1, 0}, 5, [](Worker& w) {
    LW_CHECK_MSG(w.now() == 0, "the program under test saw an impossible value");
  });
  try {
    sim->run();
    ADD_FAILURE() << "run() returned";
  } catch (const InvariantViolation& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "impossible value")) << what;
    EXPECT_TRUE(contains(what, "seed=4242")) << what;
  }
  sim.reset();
  // The run's context ended with it.
  try {
    LW_CHECK(false);
  } catch (const InvariantViolation& e) {
    EXPECT_FALSE(contains(e.what(), "seed=4242")) << e.what();
  }
}

// Fails an invariant inside the event loop itself (on a completion), with
// requests of other workers in flight.
class FailingTiming final : public TimingModel {
 public:
  FailingTiming(const ClusterConfig& c, int fail_at) : inner_(make_timing_model(c)), fail_at_(fail_at) {}
  Nanos post_batch(const WrRoute& r, const WorkRequest* w, uint32_t n, Nanos cpu) override {
    return inner_->post_batch(r, w, n, cpu);
  }
  Nanos poll_cpu() override { return inner_->poll_cpu(); }
  Nanos cpu_access() override { return inner_->cpu_access(); }
  Nanos cpu_work(CpuWork k, uint64_t u) override { return inner_->cpu_work(k, u); }
  Nanos request_path(const WrRoute& r, const WorkRequest& w, Nanos p, Rng& g) override {
    return inner_->request_path(r, w, p, g);
  }
  AccessTimes access(const WrRoute& r, const WorkRequest& w, bool d, Nanos s) override {
    return inner_->access(r, w, d, s);
  }
  AccessTimes atomic(const WrRoute& r, const WorkRequest& w, bool d, Nanos s) override {
    return inner_->atomic(r, w, d, s);
  }
  void skip_write_back(const WrRoute& r, const WorkRequest& w, bool d, const AccessTimes& b) override {
    inner_->skip_write_back(r, w, d, b);
  }
  Nanos response_path(const WrRoute& r, const WorkRequest& w, Nanos d, Rng& g) override {
    return inner_->response_path(r, w, d, g);
  }
  Nanos switch_request(const WrRoute& r, const WorkRequest& w, Nanos p, Rng& g) override {
    return inner_->switch_request(r, w, p, g);
  }
  Nanos switch_response(const WrRoute& r, const WorkRequest& w, Nanos a, Rng& g) override {
    return inner_->switch_response(r, w, a, g);
  }
  Nanos smartnic_request(const WrRoute& r, const WorkRequest& w, Nanos p, Rng& g) override {
    return inner_->smartnic_request(r, w, p, g);
  }
  Nanos smartnic_response(const WrRoute& r, const WorkRequest& w, Nanos d, Rng& g) override {
    return inner_->smartnic_response(r, w, d, g);
  }
  void completed(const WrRoute& r) override {
    inner_->completed(r);
    LW_CHECK_MSG(++completions_ < fail_at_, "injected failure in the event loop");
  }

 private:
  std::unique_ptr<TimingModel> inner_;
  int fail_at_;
  int completions_ = 0;
};

TEST(SimException, InvariantInTheEventLoopUnderThrowOnInvariant) {
  ThrowOnInvariant scope;
  const ClusterConfig c = small_config();
  auto sim = std::make_unique<SimBackend>(c);
  sim->set_timing_model(std::make_unique<FailingTiming>(c, 100));
  const RemoteAddr base = sim->allocate(0, 64 * 64, 64);
  spawn_busy(*sim, base, {Placement::Kind::kCompute, 9, 9, 9}, 0, [](Worker&) {});
  EXPECT_THROW(
      {
        try {
          sim->run();
        } catch (const InvariantViolation& e) {
          EXPECT_TRUE(contains(e.what(), "injected failure")) << e.what();
          throw;
        }
      },
      InvariantViolation);
  sim.reset();
}

TEST(SimException, DeadlockUnderThrowOnInvariantThrows) {
  ThrowOnInvariant scope;
  SimBackend sim(small_config());
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [](Worker&) -> Task<void> {
    co_await std::suspend_always{};
  });
  try {
    sim.run();
    ADD_FAILURE() << "run() returned";
  } catch (const InvariantViolation& e) {
    EXPECT_TRUE(contains(e.what(), "deadlock: 1 of 1 coroutines")) << e.what();
  }
}

}  // namespace
}  // namespace lw
