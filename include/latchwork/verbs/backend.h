// A backend runs a cluster: memory nodes, and coroutines on compute (and
// memory-node) threads that use the verbs API.
//
// Life cycle: create, allocate and initialise remote memory from the host,
// spawn coroutines, run() until they all finish, then inspect memory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "latchwork/config/cluster_config.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/rpc.h"
#include "latchwork/verbs/switch_program.h"
#include "latchwork/verbs/worker.h"

namespace lw {

class HostImage;  // the toolkit's set-up reuse (src/verbs/host_image.h, not installed)

using WorkerMain = std::function<Task<void>(Worker&)>;

struct RunStats {
  Nanos elapsed_ns = 0;      // virtual time (sim) or wall time (threads)
  uint64_t verbs = 0;        // work requests executed
  uint64_t events = 0;       // simulator events processed (0 elsewhere)
  uint64_t trace_hash = 0;   // rolling hash of every decision (sim only)
  double wall_seconds = 0;   // real time the run took
  // Sim: non-empty when the run stopped at its budget (ClusterConfig::budget)
  // before every worker finished: the message says which flag or config field
  // to raise. Results of such a run are partial; commands exit with 1.
  std::string budget_exhausted;
  // Sim: non-empty when the run stopped because its workers stopped making
  // progress: the watchdog saw no progress for its span, or (with stall
  // reports on) a deadlock left nothing to wake them. The message says which;
  // SimBackend::blocked() says what each unfinished worker waits on. Results
  // of such a run are partial.
  std::string stalled;
  // Named counters of the backend's models (NIC cache misses, lock waits...).
  std::map<std::string, double> counters;
};

// Thrown by require_within_budget(): a run stopped at its budget. The
// latchwork command catches it, prints what() and exits with 1.
struct RunBudgetExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Experiments call this on the stats of every run whose results they use:
// partial results of a stopped run must not be reported as a result.
inline void require_within_budget(const RunStats& s) {
  if (!s.budget_exhausted.empty()) throw RunBudgetExhausted(s.budget_exhausted);
}

// Index of the thread a placement names: compute threads first, then
// memory-node threads. Fails an invariant if the cluster has no such slot.
size_t thread_index(const ClusterConfig& c, const Placement& p);
// The seed of a coroutine's random stream, derived from the run's seed and
// its place, identical on every backend.
uint64_t worker_seed(uint64_t run_seed, const Placement& p);

// What a backend can do. Code that needs a capability checks it and falls
// back (e.g. latches in host memory when there is no device memory).
struct Capabilities {
  bool device_memory = true;   // allocate_device_memory gives on-chip NIC memory
  bool masked_atomics = true;  // masked CAS/FAA execute (else they complete kUnsupported)
  bool cpu_access = true;      // coroutines may run on memory-node threads
  bool deterministic = false;  // the same seed replays the same run (sim)
  // An aligned 64-byte line is read and written atomically, as a PCIe NIC
  // does. Soft-RoCE copies in software and can tear a line: schemes that
  // rely on line atomicity (FaRM per-line versions) are not safe there.
  bool line_atomic = true;
  // A NIC CAS that fails may write back the value it read, so a WRITE to its
  // word landing in between is lost: a lock word freed by a WRITE while
  // waiters CAS it can stay taken. Soft-RoCE does (Linux 6.1 rdma_rxe); for
  // hardware NICs it is not known here, so the verbs backend says true; the
  // simulator follows its failed_cas_writes_back switch. Locks free such
  // words with a CAS where this is true, with the cheaper WRITE elsewhere.
  bool failed_cas_writes_back = false;
  // Smart network hardware (config/network_devices.h; simulator only).
  bool programmable_switch = false;  // node config().switch_node() exists
  bool switch_optimistic_latching = false;  // it runs the §5.5 program
  bool smartnic = false;             // node config().smartnic_node() exists
  // Two-sided RPC (Worker::call) reaches the memory nodes' handlers.
  bool rpc = false;
  // The thread-aware resources obtained for the configured QP policy (SMART
  // §4.1), e.g. "per-thread-doorbell: 8 thread domains" or, where the
  // provider refused, what was used instead. Empty where not applicable.
  std::string thread_resources;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  // The run's config; on verbs, memory sizes are those the memory nodes serve.
  virtual const ClusterConfig& config() const = 0;
  virtual Capabilities capabilities() const { return {}; }

  // Allocation is served by the memory node and may also be called from
  // coroutines during run() (see ChunkAllocator). Returns null when full.
  // Host memory comes zeroed: nodes serve anonymous mappings and never hand
  // out an address twice (conformance case allocate-zeroed), so set-up code
  // writes only the non-zero words of an initial image.
  virtual RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) = 0;
  // On-chip device memory; null when the node has none left.
  virtual RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) = 0;
  // Zeroed memory that every process of a run naming `name` on that node
  // gets at the same address (first caller allocates). Lets compute processes
  // of a multi-process verbs run share records; in-process backends keep a
  // map. Null when full, or when `name` exists with a different size.
  // Host-side, outside run() (the verbs backend also allows it during run()).
  virtual RemoteAddr allocate_shared(NodeId memory_node, const std::string& name, uint64_t bytes);
  // Waits until `parties` processes (this one included) reached the barrier
  // `name`, at most `timeout_ms`. Returns an error message or "". In-process
  // backends have one party.
  virtual std::string barrier(const std::string& name, uint32_t parties, uint64_t timeout_ms);

  // Makes `h` callable by coroutines (Worker::call) and returns its id.
  // In-process backends add it to the run's table (kQueueFull beyond
  // kMaxRpcHandlers; kBadLength for an empty or duplicate name). The verbs
  // backend cannot ship code to memory node processes: it returns the id
  // under which the nodes serve a handler of that name, or kUnsupported.
  // The built-ins (rpc_builtin.h) are registered by every backend already.
  // Host-side, before run().
  virtual Result<HandlerId> register_handler(const RpcHandler& h) {
    (void)h;
    return {Status::kUnsupported, 0};
  }

  // The switch's control plane: installs the rules of switch-assisted
  // optimistic latching for `map` (switch_program.h). kUnsupported without a
  // switch running that program; kBadLength / kOutOfBounds for a bad map.
  // Host-side, before run().
  virtual Status install_switch_tuples(const SwitchTupleMap& /*map*/) { return Status::kUnsupported; }

  // Host-side set-up and inspection, only outside run().
  virtual void host_write(RemoteAddr dst, const void* src, uint64_t bytes) = 0;
  virtual void host_read(RemoteAddr src, void* dst, uint64_t bytes) = 0;
  uint64_t host_load(RemoteAddr a) {
    uint64_t v;
    host_read(a, &v, 8);
    return v;
  }
  void host_store(RemoteAddr a, uint64_t v) { host_write(a, &v, 8); }
  // Makes memory node `node`'s [img.offset(), + img.bytes()) read as the
  // image, as host_write of its bytes would, into a range still as
  // allocate() handed it out. Only where can_install_host_images(): the
  // simulator. Only the toolkit makes images (set-up reuse, docs/api.md);
  // elsewhere write the bytes.
  virtual bool can_install_host_images() const { return false; }
  virtual void host_install_image(NodeId node, const HostImage& img);

  // Schedules `main` as a coroutine at `where`. A slot holds one coroutine.
  virtual void spawn(Placement where, WorkerMain main) = 0;
  // Spawns `main` on every coroutine slot of every compute thread.
  void spawn_compute(const WorkerMain& main);

  // Runs every spawned coroutine to completion.
  virtual RunStats run() = 0;

 private:
  std::map<std::pair<NodeId, std::string>, std::pair<RemoteAddr, uint64_t>> shared_;
};

}  // namespace lw
