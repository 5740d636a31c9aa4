// The calibrated NIC model: each mechanism of docs/nic-model.md as resources
// booked in virtual time. Parameters come from a NIC profile
// (configs/nic/*.json); every mechanism has its own switch (NicMechanisms).
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "calendar.h"
#include "flat_map.h"
#include "latchwork/sim/timing_model.h"

namespace lw::sim {

// Least-recently-used set of ids with a fixed capacity (a NIC context cache):
// entries in arrays (grown up to the capacity as ids arrive), found through a
// direct table for small ids (QP numbers) and a flat map for the rest.
// Until the cache is first full nothing is evicted, so recency is only a
// stamp per entry (a hit is one store); the first eviction links the entries
// by stamp into the recency list that exact LRU needs from then on.
class LruCache {
 public:
  explicit LruCache(size_t capacity);
  // Touches `id`; returns true on a hit.
  bool touch(uint64_t id) {
    const uint32_t e = lookup(id);
    if (e == kNil) return miss(id);
    if (!listed_) {
      stamp_[e] = ++tick_;
    } else if (e != head_) {
      unlink(e);
      push_front(e);
    }
    return true;
  }
  uint64_t misses() const { return misses_; }
  size_t size() const { return used_; }

 private:
  static constexpr uint32_t kNil = ~uint32_t{0};
  static constexpr uint64_t kDirect = uint64_t{1} << 16;  // ids below: direct_
  uint32_t lookup(uint64_t id) {
    if (id < kDirect) return id < direct_.size() ? direct_[id] : kNil;
    const uint32_t* e = where_.find(id);
    return e == nullptr ? kNil : *e;
  }
  bool miss(uint64_t id);
  void remember(uint64_t id, uint32_t e);
  void forget(uint64_t id);
  void link_by_stamp();
  void unlink(uint32_t e);
  void push_front(uint32_t e);

  size_t capacity_;
  std::vector<uint64_t> id_;              // entry -> id
  std::vector<uint64_t> stamp_;           // entry -> last touch, until listed_
  uint64_t tick_ = 0;
  bool listed_ = false;                   // the recency list is in use (the cache was full)
  std::vector<uint32_t> prev_, next_;     // recency list, most recent first
  uint32_t head_ = kNil, tail_ = kNil;
  size_t used_ = 0;                       // entries in use (<= capacity)
  std::vector<uint32_t> direct_;          // id < kDirect -> entry, kNil none
  FlatMap<uint32_t> where_;               // other ids -> entry
  uint64_t misses_ = 0;
};

// The atomic lock table's slots, indexed by slot number. Chunks, and the
// chunk index itself, are made on first use, so a 2^24-slot table costs only
// what its atomics touch.
class SlotTable {
 public:
  explicit SlotTable(uint32_t bits) : chunk_count_(((size_t{1} << bits) + kChunk - 1) / kChunk) {}
  // Inline for a chunk already made (every atomic books a slot); the
  // first use of a chunk takes the call.
  Calendar& operator[](uint32_t slot) {
    LW_CHECK(slot / kChunk < chunk_count_);
    if (!chunks_.empty()) [[likely]] {
      if (Calendar* c = chunks_[slot / kChunk].get()) [[likely]]
        return c[slot % kChunk];
    }
    return make(slot);
  }

 private:
  [[gnu::noinline]] Calendar& make(uint32_t slot) {
    if (chunks_.empty()) chunks_.resize(chunk_count_);
    auto& c = chunks_[slot / kChunk];
    if (!c) c = std::make_unique<Calendar[]>(kChunk);
    return c[slot % kChunk];
  }

  static constexpr size_t kChunk = 256;
  size_t chunk_count_;
  std::vector<std::unique_ptr<Calendar[]>> chunks_;
};

// A spinlock (doorbell or QP lock) shared by threads, booked like a resource.
struct SharedLock {
  Calendar held;
  uint32_t sharers = 1;             // threads mapped to it
  uint32_t last_holder = ~0u;       // cache line last owned by this thread
};

class NicModel final : public TimingModel {
 public:
  NicModel(const ClusterConfig& c, const NicParams& p);

  Nanos post_batch(const WrRoute& r, const WorkRequest* wrs, uint32_t n, Nanos cpu) override;
  Nanos poll_cpu() override;
  Nanos cpu_access() override;
  Nanos cpu_work(CpuWork kind, uint64_t units) override;
  Nanos request_path(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override;
  AccessTimes access(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) override;
  AccessTimes atomic(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) override;
  void skip_write_back(const WrRoute& r, const WorkRequest& wr, bool device,
                       const AccessTimes& t) override;
  Nanos response_path(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) override;
  Nanos switch_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override;
  Nanos switch_response(const WrRoute& r, const WorkRequest& wr, Nanos at_switch, Rng& rng) override;
  Nanos smartnic_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override;
  Nanos smartnic_response(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) override;
  Nanos rpc_request(const WrRoute& r, uint32_t bytes, Nanos posted, Rng& rng) override;
  Nanos rpc_response(const WrRoute& r, uint32_t bytes, Nanos sent, Rng& rng) override;
  void completed(const WrRoute& r) override;
  void report(std::map<std::string, double>* out) const override;

  // Counters for reports and tests.
  struct Counters {
    uint64_t qp_misses = 0;
    double wqe_misses = 0;  // expected misses (fractional)
    uint64_t doorbell_waits = 0;
    uint64_t loopback_verbs = 0;  // memory-node threads' verbs to their own node
    uint64_t symmetric_verbs = 0; // memory-node threads' verbs (loopback included)
    uint64_t engine_waits = 0;    // requests that queued for their engine
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Nic {
    Calendar pu;          // processing units (message rate)
    // In-order processing engines (nic.mechanisms.engines): each QP's
    // requests are served by one engine, in order (Fusa §IV-E); an atomic
    // holds its engine from the moment it is taken until its write-back,
    // lock-table wait included (Husky, NSDI'23 §3), so what queues behind
    // it on that engine waits too.
    std::vector<Calendar> engines;
    Calendar tx, rx;      // the port's two directions
    // PCIe, one calendar per direction (a PCI Express link is dual-simplex:
    // each lane has a transmit and a receive pair). Non-posted DMA reads
    // take pcie_read: their read-rate slot, or the returning data's transfer
    // if longer. Posted DMA writes (data, CQEs, receives) take pcie_write.
    // nic.mechanisms.pcie_duplex off: both on pcie_read, one shared queue.
    Calendar pcie_read, pcie_write;
    uint64_t outstanding = 0;  // posted, not completed WRs (requester side)
  };
  struct ComputeNode {
    Nic nic;              // unused for memory nodes' threads: requester_nic()
    LruCache qps;
    std::vector<SharedLock> locks;        // doorbells, or shared-QP locks
    std::vector<uint32_t> lock_of;        // (thread_in_node, memory node) -> lock index, ~0u none
    uint32_t wqe_capacity = 0;
    explicit ComputeNode(size_t qp_capacity) : qps(qp_capacity) {}
  };
  struct MemoryNic {
    Nic nic;
    Calendar pm_media;  // persistent memory's media (memory.kind pm): reads and writes share it
    SlotTable slots;  // atomic lock table
    explicit MemoryNic(uint32_t lock_table_bits) : slots(lock_table_bits) {}
  };

  Nanos ns(double v) const { return static_cast<Nanos>(v + 0.5); }
  // Link time of `bytes`. A request's sizes are few, and the division is on
  // every verb's critical path: the last answer for each size class is kept.
  Nanos serialize(uint64_t bytes) const {
    SerializeMemo& m = serialize_memo_[bytes % kSerializeMemo];
    if (m.bytes != bytes) m = {bytes, ns(static_cast<double>(bytes) * 8.0 / p_.link_gbps)};
    return m.ns;
  }
  uint64_t wire_bytes(uint64_t payload) const;
  // Constant per profile, computed once (a division each otherwise).
  Nanos pu_time() const { return pu_ns_; }
  Nanos pcie_read_slot() const { return pcie_read_slot_ns_; }
  Calendar& pcie_writes(Nic& nic) const { return m_.pcie_duplex ? nic.pcie_write : nic.pcie_read; }
  Nanos jitter(Rng& rng) const { return p_.jitter_ns ? rng.below(p_.jitter_ns + 1) : 0; }
  uint32_t slot_of(uint64_t offset) const {
    return static_cast<uint32_t>(offset & ((uint64_t{1} << p_.lock_table_bits) - 1));
  }
  uint64_t qp_id(const WrRoute& r) const;
  // The engine serving a route's QP: at its requester NIC, and at the
  // responder, where QPs are numbered connection by connection and dealt
  // round-robin to the engines.
  Calendar& requester_engine(const WrRoute& r);
  Calendar& responder_engine(const WrRoute& r);
  // Where an atomic starting at `s` reaches its lock-table slot (PCIe read
  // slot, persistent-memory media, then the slot); books them if `book`,
  // else only looks.
  Nanos atomic_slot_start(const WrRoute& r, const WorkRequest& wr, bool on_chip, bool pm, Nanos hold, Nanos s,
                          bool book);
  // Symmetric nodes (ALock §4): a memory-node thread's route names compute
  // node compute_nodes + node, and its verbs use that node's own NIC.
  bool symmetric(const WrRoute& r) const { return r.compute_node >= cfg_.compute_nodes; }
  // A memory-node thread's verb to its own node: it never reaches the wire.
  bool loopback(const WrRoute& r) const {
    return symmetric(r) && r.compute_node - cfg_.compute_nodes == r.memory_node;
  }
  // The NIC a route's requests leave from and its completions return to: a
  // compute node's, or (symmetric) the memory node's own, shared with its
  // responder side (processing units, PCIe, outstanding WQEs).
  Nic& requester_nic(const WrRoute& r);
  // A requester NIC's own DMA over its PCIe (a symmetric node's responder
  // side shares it): a non-posted read of `bytes` (WQEs, a QP context),
  // which takes a read slot or its transfer, whichever is longer; or a posted
  // write of `bytes`. Both return when the DMA engine starts them.
  Nanos requester_dma_read(Nic& nic, Nanos t, uint64_t bytes = 0);
  Nanos requester_dma_write(Nic& nic, Nanos t, uint64_t bytes);
  // A WRITE's payload gathered from host memory: a DMA read whose data
  // comes to the NIC, on the read direction, booked for its bandwidth only
  // (the calibrated WRITE path never charged it a read slot).
  Nanos requester_dma_gather(Nic& nic, Nanos t, uint64_t bytes);
  // Between the two NICs of a request, or nothing for loopback.
  Nanos traverse(const WrRoute& r, Nic& from, Nic& to, Nanos t, uint64_t bytes, Rng& rng);
  // The requester NIC's part of a request: processing, cache misses, payload
  // gather. Returns when the request is ready to leave its port.
  Nanos requester_side(const WrRoute& r, const WorkRequest& wr, Nanos posted);
  static uint64_t request_payload(const WorkRequest& wr);
  static uint64_t response_payload(const WorkRequest& wr);
  Nanos cross(const WrRoute& r, Nic& from, Nic& to, Nanos t, uint64_t bytes, Rng& rng);
  // Books `c` from `t` like Calendar::book and records the wait for it.
  Nanos queue(const char* resource, const WrRoute& r, Calendar& c, Nanos t, Nanos duration) {
    const Nanos start = c.book(t, duration, horizon_);
    record_wait(resource, r, std::max(t, horizon_), start);
    return start;
  }
  void assign_locks(ComputeNode& node);
  // Persistent memory: books `bytes` (whole media lines) of reads and/or
  // writes on the node's media from `t`; returns when the media starts them.
  Nanos pm_media(MemoryNic& mn, Nanos t, uint64_t bytes, bool read, bool write, bool book = true);

  const ClusterConfig cfg_;
  const NicParams p_;
  const NicMechanisms m_;
  std::vector<ComputeNode> compute_;
  std::vector<MemoryNic> memory_;
  // The SmartNIC (Jasny §5.2): its own port and NIC, and cores serving RPCs.
  Nic smartnic_;
  std::vector<Calendar> smartnic_cores_;
  Counters counters_;
  // The WQEs of the batch post_batch last announced, which a symmetric
  // node's NIC fetches in one DMA read (requester_side).
  static constexpr uint64_t kWqeBytes = 64;
  struct WqeFetch {
    uint32_t thread = ~0u;  // the posting thread (WrRoute::thread)
    uint32_t left = 0;      // WQEs of the batch not yet taken by requester_side
    bool booked = false;    // the read is booked; `start` is its slot
    Nanos start = 0;
  };
  WqeFetch wqe_fetch_;
  Nanos pu_ns_ = 0;              // a processing unit's time per message
  Nanos pcie_read_slot_ns_ = 0;  // the DMA engine's time per non-posted read
  struct SerializeMemo {
    uint64_t bytes = ~uint64_t{0};  // no size yet
    Nanos ns = 0;
  };
  // Prime, so the sizes of one verb's request and response (which differ by
  // a multiple of 16 for atomics: 68 and 52 B with 40 B headers) do not
  // share an entry and evict each other on every verb.
  static constexpr size_t kSerializeMemo = 31;
  mutable std::array<SerializeMemo, kSerializeMemo> serialize_memo_{};  // by bytes % kSerializeMemo
};

}  // namespace lw::sim
