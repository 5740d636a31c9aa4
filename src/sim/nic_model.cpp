#include "nic_model.h"

#include <algorithm>

#include "latchwork/base/assert.h"

namespace lw::sim {

LruCache::LruCache(size_t capacity) : capacity_(capacity) { LW_CHECK(capacity < kNil); }

void LruCache::unlink(uint32_t e) {
  if (prev_[e] != kNil) next_[prev_[e]] = next_[e]; else head_ = next_[e];
  if (next_[e] != kNil) prev_[next_[e]] = prev_[e]; else tail_ = prev_[e];
  prev_[e] = next_[e] = kNil;
}

void LruCache::push_front(uint32_t e) {
  prev_[e] = kNil;
  next_[e] = head_;
  if (head_ != kNil) prev_[head_] = e; else tail_ = e;
  head_ = e;
}

void LruCache::remember(uint64_t id, uint32_t e) {
  if (id < kDirect) {
    if (id >= direct_.size()) direct_.resize(id + 1, kNil);
    direct_[id] = e;
  } else {
    where_.emplace(id, e);
  }
}

void LruCache::forget(uint64_t id) {
  if (id < kDirect) {
    LW_CHECK(id < direct_.size() && direct_[id] != kNil);
    direct_[id] = kNil;
  } else {
    LW_CHECK(where_.erase(id));
  }
}

void LruCache::link_by_stamp() {
  // Stamps are distinct (one tick per touch): most recent first.
  std::vector<uint32_t> order(used_);
  for (uint32_t e = 0; e < used_; ++e) order[e] = e;
  std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) { return stamp_[a] > stamp_[b]; });
  prev_.assign(used_, kNil);
  next_.assign(used_, kNil);
  head_ = tail_ = kNil;
  for (auto it = order.rbegin(); it != order.rend(); ++it) push_front(*it);
  std::vector<uint64_t>().swap(stamp_);
  listed_ = true;
}

bool LruCache::miss(uint64_t id) {
  ++misses_;
  if (capacity_ == 0) return false;  // holds nothing
  uint32_t e;
  if (used_ < capacity_) {
    // Entries grow with the ids seen: a cache sized 2^24 costs only what is used.
    LW_CHECK(!listed_);
    e = static_cast<uint32_t>(used_++);
    id_.push_back(id);
    stamp_.push_back(++tick_);
  } else {
    // Full: the least recently used entry makes room.
    if (!listed_) link_by_stamp();
    e = tail_;
    forget(id_[e]);
    unlink(e);
    id_[e] = id;
    push_front(e);
  }
  remember(id, e);
  return false;
}

NicModel::NicModel(const ClusterConfig& c, const NicParams& p)
    : cfg_(c), p_(p), m_(c.nic.mechanisms), smartnic_cores_(p.smartnic_cores) {
  pu_ns_ = ns(1000.0 / p_.msg_rate_mops);
  pcie_read_slot_ns_ = ns(1000.0 / p_.pcie_read_mops);
  memory_.reserve(c.memory_nodes);
  for (uint32_t n = 0; n < c.memory_nodes; ++n) memory_.emplace_back(p.lock_table_bits);
  const size_t engines = m_.engines ? p.processing_engines : 0;
  for (MemoryNic& mn : memory_) mn.nic.engines.resize(engines);
  smartnic_.engines.resize(engines);
  compute_.reserve(size_t{c.compute_nodes} + c.memory_nodes);
  const uint32_t contexts =
      c.nic.qp_policy == QpPolicy::kPerThreadContext ? c.threads_per_node : 1;
  // Each extra device context brings its own translation entries into the
  // NIC's caches (SMART §2.2: MTT/MPT hit ratio falls with many contexts).
  const uint64_t taken = uint64_t{contexts - 1} * p.context_cache_entries;
  const uint32_t floor = std::max<uint32_t>(1, p.wqe_cache_entries / 8);
  // Compute nodes, then memory nodes (whose threads may post verbs too).
  for (uint32_t n = 0; n < c.compute_nodes + c.memory_nodes; ++n) {
    compute_.emplace_back(p.qp_cache_entries);
    ComputeNode& node = compute_.back();
    node.nic.engines.resize(engines);
    node.wqe_capacity = taken >= p.wqe_cache_entries - floor
                            ? floor
                            : static_cast<uint32_t>(p.wqe_cache_entries - taken);
    if (n < c.compute_nodes) {
      assign_locks(node);
    } else {
      node.lock_of.assign(size_t{c.memory_node_threads} * c.memory_nodes, ~0u);
    }
  }
}

// Which spinlock, if any, a thread takes to post to a memory node. QPs are
// created thread by thread, memory node by memory node; the driver binds the
// first `low_latency_doorbells` to dedicated doorbells and the rest
// round-robin to the shared ones (SMART §2.2, §4.1).
void NicModel::assign_locks(ComputeNode& node) {
  const uint32_t T = cfg_.threads_per_node, M = cfg_.memory_nodes;
  node.lock_of.assign(size_t{T} * M, ~0u);
  switch (cfg_.nic.qp_policy) {
    case QpPolicy::kSharedQp:
      node.locks.resize(M);
      for (uint32_t t = 0; t < T; ++t)
        for (uint32_t mn = 0; mn < M; ++mn) node.lock_of[t * M + mn] = mn;
      for (auto& l : node.locks) l.sharers = T;
      return;
    case QpPolicy::kPerThreadQp: {
      if (!m_.doorbells) return;
      const uint32_t low = p_.low_latency_doorbells, shared = p_.medium_latency_doorbells;
      node.locks.resize(shared);
      std::vector<std::vector<bool>> users(shared, std::vector<bool>(T, false));
      for (uint32_t t = 0; t < T; ++t) {
        for (uint32_t mn = 0; mn < M; ++mn) {
          const uint32_t q = t * M + mn;
          if (q < low) continue;
          const uint32_t d = (q - low) % shared;
          node.lock_of[q] = d;
          users[d][t] = true;
        }
      }
      for (uint32_t d = 0; d < shared; ++d)
        node.locks[d].sharers = static_cast<uint32_t>(std::count(users[d].begin(), users[d].end(), true));
      return;
    }
    case QpPolicy::kPerThreadContext:
    case QpPolicy::kPerThreadDoorbell:
      return;  // no doorbell is shared between threads
  }
}

uint64_t NicModel::qp_id(const WrRoute& r) const {
  // Queue pairs to the switch or the SmartNIC, numbered apart from the rest.
  if (r.memory_node >= cfg_.memory_nodes)
    return (uint64_t{1} << 40) + uint64_t{r.thread_in_node} * 4 + (r.memory_node - cfg_.memory_nodes);
  if (cfg_.nic.qp_policy == QpPolicy::kSharedQp) return r.memory_node;
  return uint64_t{r.thread_in_node} * cfg_.memory_nodes + r.memory_node;
}

Calendar& NicModel::requester_engine(const WrRoute& r) {
  Nic& nic = requester_nic(r);
  return nic.engines[qp_id(r) % nic.engines.size()];
}

Calendar& NicModel::responder_engine(const WrRoute& r) {
  // The responder's QPs, one per connection: per compute node with a shared
  // QP, else per thread (a memory-node thread's index may reach past
  // threads_per_node; the engines are dealt modulo, so that only shares).
  const bool shared = cfg_.nic.qp_policy == QpPolicy::kSharedQp;
  const uint64_t connection =
      shared ? r.compute_node : uint64_t{r.compute_node} * cfg_.threads_per_node + r.thread_in_node;
  Nic& nic = memory_[r.memory_node].nic;
  return nic.engines[connection % nic.engines.size()];
}

NicModel::Nic& NicModel::requester_nic(const WrRoute& r) {
  return symmetric(r) ? memory_[r.compute_node - cfg_.compute_nodes].nic : compute_[r.compute_node].nic;
}

Nanos NicModel::requester_dma_read(Nic& nic, Nanos t, uint64_t bytes) {
  const Nanos transfer = ns(static_cast<double>(bytes) * 8.0 / p_.pcie_gbps);
  return m_.pcie ? nic.pcie_read.book(t, std::max(pcie_read_slot(), transfer), horizon_) : t;
}

Nanos NicModel::requester_dma_gather(Nic& nic, Nanos t, uint64_t bytes) {
  const Nanos transfer = std::max<Nanos>(1, ns(static_cast<double>(bytes) * 8.0 / p_.pcie_gbps));
  return m_.pcie ? nic.pcie_read.book(t, transfer, horizon_) : t;
}

Nanos NicModel::requester_dma_write(Nic& nic, Nanos t, uint64_t bytes) {
  const Nanos transfer = std::max<Nanos>(1, ns(static_cast<double>(bytes) * 8.0 / p_.pcie_gbps));
  return m_.pcie ? pcie_writes(nic).book(t, transfer, horizon_) : t;
}

Nanos NicModel::traverse(const WrRoute& r, Nic& from, Nic& to, Nanos t, uint64_t bytes, Rng& rng) {
  if (loopback(r)) return t;  // turned around inside the NIC: no port, no link, no switch
  return cross(r, from, to, t, bytes, rng);
}

uint64_t NicModel::wire_bytes(uint64_t payload) const {
  // One packet up to the MTU (most requests): no division.
  if (payload <= p_.mtu_bytes) return payload + p_.header_bytes;
  const uint64_t packets = std::max<uint64_t>(1, (payload + p_.mtu_bytes - 1) / p_.mtu_bytes);
  return payload + packets * p_.header_bytes;
}

// Out of one port, across the switch, into the other: returns when the last
// byte has arrived.
Nanos NicModel::cross(const WrRoute& r, Nic& from, Nic& to, Nanos t, uint64_t bytes, Rng& rng) {
  const Nanos ser = serialize(bytes);
  if (m_.link) t = queue("link_tx", r, from.tx, t, ser);
  t += p_.propagation_ns + jitter(rng);
  if (m_.link) t = queue("link_rx", r, to.rx, t, ser);
  return t + ser;
}

Nanos NicModel::poll_cpu() {
  return m_.cpu_costs ? p_.poll_cpu_ns + p_.coroutine_switch_ns : 0;
}

Nanos NicModel::cpu_access() { return p_.cpu_access_ns; }

Nanos NicModel::cpu_work(CpuWork kind, uint64_t units) {
  if (!m_.cpu_costs) return 0;
  double per = 0;
  switch (kind) {
    case CpuWork::kCrc64Byte: per = p_.crc64_ns_per_byte; break;
    case CpuWork::kFarmLine: per = p_.farm_check_ns_per_line; break;
    case CpuWork::kKeyHash: per = p_.key_hash_ns; break;
    case CpuWork::kKeyScan: per = p_.key_scan_ns; break;
    case CpuWork::kOpIssue: per = p_.op_issue_ns; break;
    case CpuWork::kCopyByte: per = p_.copy_ns_per_byte; break;
    case CpuWork::kTxnRecord: per = p_.txn_record_ns; break;
  }
  return ns(per * static_cast<double>(units));
}

Nanos NicModel::post_batch(const WrRoute& r, const WorkRequest*, uint32_t n, Nanos cpu) {
  const Nanos work = m_.cpu_costs ? n * p_.post_cpu_ns + p_.mmio_ns : 0;
  // The doorbell makes the NIC fetch the batch's WQEs; on a symmetric node
  // that fetch is booked (requester_side) once for the whole batch.
  wqe_fetch_ = {r.thread, n, false, 0};
  ComputeNode& node = compute_[r.compute_node];
  if (r.memory_node >= cfg_.memory_nodes) return cpu + work;  // a device's QP: its own doorbell
  const uint32_t lock = node.lock_of[size_t{r.thread_in_node} * cfg_.memory_nodes + r.memory_node];
  if (lock == ~0u) return cpu + work;
  SharedLock& l = node.locks[lock];
  // Taking a spinlock whose cache line another thread owns costs a hand-over
  // that grows with the threads spinning on it (SMART §3.1: 74% of the time
  // in pthread_spin_lock at 96 threads).
  const uint32_t spinners = std::min(l.sharers - 1, p_.lock_max_spinners - 1);
  const Nanos handoff =
      (l.sharers > 1 && l.last_holder != r.thread) ? p_.lock_handoff_ns * spinners : 0;
  const Nanos hold = std::max<Nanos>(1, work + handoff);
  const Nanos start = l.held.book(std::max(cpu, horizon_), hold, horizon_);
  if (start > cpu) ++counters_.doorbell_waits;
  record_wait("doorbell_lock", r, std::max(cpu, horizon_), start);
  l.last_holder = r.thread;
  return start + hold;  // spinning is CPU time too
}

uint64_t NicModel::request_payload(const WorkRequest& wr) {
  return wr.opcode == Opcode::kWrite ? wr.length : is_atomic(wr.opcode) ? 28 /* AtomicETH */ : 16 /* RETH */;
}

uint64_t NicModel::response_payload(const WorkRequest& wr) {
  return wr.opcode == Opcode::kRead ? wr.length : is_atomic(wr.opcode) ? 12 /* AETH + AtomicAckETH */ : 4 /* AETH */;
}

Nanos NicModel::requester_side(const WrRoute& r, const WorkRequest& wr, Nanos posted) {
  ComputeNode& node = compute_[r.compute_node];
  Nic& src = requester_nic(r);
  Nanos t = std::max(posted, horizon_) + p_.nic_latency_ns;
  const bool own_pcie = symmetric(r) && r.memory_node < cfg_.memory_nodes;
  if (own_pcie) {
    ++counters_.symmetric_verbs;
    if (loopback(r)) ++counters_.loopback_verbs;
    // A memory node's NIC fetches its own threads' WQEs over the PCIe its
    // responder side uses (ALock §2, Fig. 1: loopback drains PCIe). Compute
    // nodes keep the calibrated path, whose PCIe serves nothing else. One
    // doorbell's WQEs come in one DMA read (DrTM+H §3.1: doorbell batching
    // lets the NIC fetch several requests by DMA, a better use of PCIe): a
    // read slot, or the WQEs' transfer if longer.
    if (wqe_fetch_.left > 0 && wqe_fetch_.thread == r.thread) {
      if (!wqe_fetch_.booked) {
        wqe_fetch_.start = requester_dma_read(src, t, uint64_t{wqe_fetch_.left} * kWqeBytes);
        wqe_fetch_.booked = true;
      }
      --wqe_fetch_.left;
      t = std::max(t, wqe_fetch_.start);
    } else {
      t = requester_dma_read(src, t);  // a request no doorbell announced here
    }
  }

  // A QP whose context the cache lost first reads it over this NIC's PCIe
  // (Husky §2.3: an extra PCIe round trip). The read holds no engine or
  // processing unit, so misses of different QPs overlap: only their DMA
  // read slots queue. Installing the context then costs processing-unit
  // time (qp_miss_ns, below).
  const bool qp_miss = m_.qp_cache && !node.qps.touch(qp_id(r));
  if (qp_miss) {
    ++counters_.qp_misses;
    const Nanos s = requester_dma_read(src, t, p_.qp_context_bytes);
    record_wait("qp_context_miss", r, t, s + p_.pcie_read_ns);
    t = s + p_.pcie_read_ns;
  }
  // The QP's engine takes the request in order, for its issue time.
  if (m_.engines) {
    const Nanos e = queue("requester_engine", r, requester_engine(r), t, pu_time());
    if (e > t) ++counters_.engine_waits;
    t = e;
  }
  // Requester processing: the message rate, plus context and WQE refetches.
  ++src.outstanding;
  Nanos busy = m_.message_rate ? pu_time() : 0;
  Nanos wait = 0;
  if (qp_miss) busy += p_.qp_miss_ns;
  if (m_.wqe_cache && src.outstanding > node.wqe_capacity) {
    // Outstanding WQEs beyond the cache are refetched over PCIe; with no
    // published replacement policy we charge the expected share.
    const double miss = 1.0 - static_cast<double>(node.wqe_capacity) / src.outstanding;
    counters_.wqe_misses += miss;
    busy += ns(miss * p_.wqe_miss_ns);
    wait += ns(miss * p_.pcie_read_ns);
  }
  if (busy > 0) t = queue("requester_pu", r, src.pu, t, busy) + busy;
  t += wait;
  if (wr.opcode == Opcode::kWrite) {
    if (own_pcie) t = requester_dma_gather(src, t, wr.length);
    t += p_.pcie_read_ns;  // the NIC gathers the payload
  }
  return t;
}

Nanos NicModel::request_path(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) {
  Nic& src = requester_nic(r);
  Nic& dst = memory_[r.memory_node].nic;
  Nanos t = requester_side(r, wr, posted);
  // The wire: out of the requester's port, across the switch, into the
  // responder's. Loopback skips it but enters the (same) NIC's pipeline again.
  t = traverse(r, src, dst, t, wire_bytes(request_payload(wr)), rng) + p_.nic_latency_ns;

  // Responder processing (for loopback, the same processing units again).
  // A READ or WRITE takes its QP's engine for its issue time; an atomic
  // takes it in atomic(), for as long as it waits and works.
  if (m_.engines && !is_atomic(wr.opcode)) {
    const Nanos e = queue("responder_engine", r, responder_engine(r), t, pu_time());
    if (e > t) ++counters_.engine_waits;
    t = e;
  }
  if (m_.message_rate) t = queue("responder_pu", r, dst.pu, t, pu_time()) + pu_time();
  return t;
}

Nanos NicModel::pm_media(MemoryNic& mn, Nanos t, uint64_t bytes, bool read, bool write, bool book) {
  const MemoryConfig& m = cfg_.memory;
  const double media = static_cast<double>(m.pm_media_bytes(bytes));
  const double busy = (read ? media / m.pm_read_bytes_per_ns : 0) + (write ? media / m.pm_write_bytes_per_ns : 0);
  const Nanos d = std::max<Nanos>(1, ns(busy));
  return book ? mn.pm_media.book(t, d, horizon_) : mn.pm_media.earliest_fit(t, d);
}

AccessTimes NicModel::access(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) {
  if (device) {
    const Nanos t = start + p_.device_memory_ns;
    return {t, t};
  }
  MemoryNic& mn = memory_[r.memory_node];
  Nic& nic = mn.nic;
  const MemoryConfig& pm = cfg_.memory;
  const Nanos transfer = ns(static_cast<double>(wr.length) * 8.0 / p_.pcie_gbps);
  if (wr.opcode == Opcode::kRead) {
    // A non-posted DMA read: the engine takes a limited number per second.
    const Nanos slot = std::max(pcie_read_slot(), transfer);
    const Nanos s = m_.pcie ? queue("pcie_read", r, nic.pcie_read, start, slot) : start;
    if (!pm.pm()) return {s + p_.pcie_read_ns, s + p_.pcie_read_ns + transfer};
    // Persistent memory: the media reads whole lines at its bandwidth, and
    // each load takes longer (memory_config.h).
    const Nanos media = pm_media(mn, s, wr.length, true, false);
    const Nanos begin = media + p_.pcie_read_ns + pm.pm_read_extra_ns;
    const Nanos media_time = ns(static_cast<double>(pm.pm_media_bytes(wr.length)) / pm.pm_read_bytes_per_ns);
    return {begin, begin + std::max(transfer, media_time)};
  }
  // A posted DMA write: bandwidth only; lines become visible in address order.
  const Nanos s = m_.pcie ? queue("pcie_write", r, pcie_writes(nic), start, transfer) : start;
  if (!pm.pm()) return {s + p_.pcie_write_ns, s + p_.pcie_write_ns + transfer};
  // Persistent memory: the lines land at the media's (much lower) write
  // bandwidth, a partial line costing a whole one.
  const Nanos media = pm_media(mn, s + p_.pcie_write_ns, wr.length, false, true);
  const Nanos begin = media + pm.pm_write_extra_ns;
  const Nanos media_time = ns(static_cast<double>(pm.pm_media_bytes(wr.length)) / pm.pm_write_bytes_per_ns);
  return {begin, begin + std::max(transfer, media_time)};
}

AccessTimes NicModel::atomic(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) {
  const bool on_chip = device && m_.device_memory;
  // Read into the NIC, modify, write back: two PCIe transactions (Sherman
  // §3.2.2), none for on-chip memory (Sherman §4.3).
  // On persistent memory the read and the write-back each take longer, and
  // the media reads and writes back a whole line (memory_config.h).
  const bool pm = !device && cfg_.memory.pm();
  const Nanos pm_read = pm ? cfg_.memory.pm_read_extra_ns : 0;
  const Nanos pm_write = pm ? cfg_.memory.pm_write_extra_ns : 0;
  const Nanos read = on_chip ? p_.device_memory_ns : p_.pcie_read_ns + pm_read;
  const Nanos hold = on_chip ? p_.device_memory_ns + p_.device_atomic_ns
                             : p_.pcie_read_ns + p_.atomic_write_back_ns + pm_read + pm_write;
  if (!m_.engines) {
    const Nanos s = atomic_slot_start(r, wr, on_chip, pm, hold, start, true);
    return {s + read, s + hold};
  }
  // The engine is held from when the atomic takes it until its write-back:
  // the first instant `c` at which the engine is free for all of that.
  // Each round that fails moves `c` to the end of a booked interval, so the
  // rounds are bounded by the engine's intervals.
  Calendar& engine = responder_engine(r);
  Nanos c = start;
  const size_t rounds = engine.intervals() + 2;
  for (size_t round = 0;; ++round) {
    LW_CHECK_MSG(round < rounds, "an atomic found no free engine interval");
    const Nanos until = atomic_slot_start(r, wr, on_chip, pm, hold, c, false) + hold;
    const Nanos fit = engine.earliest_fit(c, until - c);
    if (fit == c) break;
    c = fit;
  }
  if (c > start) ++counters_.engine_waits;
  record_wait("responder_engine", r, std::max(start, horizon_), c);
  const Nanos s = atomic_slot_start(r, wr, on_chip, pm, hold, c, true);
  LW_CHECK(engine.book(c, s + hold - c, horizon_) == c);
  return {s + read, s + hold};
}

Nanos NicModel::atomic_slot_start(const WrRoute& r, const WorkRequest& wr, bool on_chip, bool pm, Nanos hold,
                                  Nanos s, bool book) {
  MemoryNic& mn = memory_[r.memory_node];
  if (!on_chip && m_.pcie)
    s = book ? queue("pcie_read", r, mn.nic.pcie_read, s, pcie_read_slot())
             : mn.nic.pcie_read.earliest_fit(s, pcie_read_slot());
  if (pm) s = pm_media(mn, s, 8, true, true, book);
  // The lock table: atomics whose addresses share the low bits serialize
  // (Jasny §3.2, Figs. 5, 6), whether or not they touch the same word.
  if (m_.lock_table) {
    Calendar& slot = mn.slots[slot_of(wr.remote.offset())];
    s = book ? queue("lock_table_slot", r, slot, s, hold) : slot.earliest_fit(s, hold);
  }
  return s;
}

void NicModel::skip_write_back(const WrRoute& r, const WorkRequest& wr, bool /*device*/,
                               const AccessTimes& t) {
  // Only what lies ahead of the event clock can still be used by others.
  const Nanos from = std::max(t.begin, horizon_);
  if (from >= t.end) return;
  if (m_.lock_table) memory_[r.memory_node].slots[slot_of(wr.remote.offset())].release(from, t.end);
  // The engine was held until the write-back too (atomic()).
  if (m_.engines) responder_engine(r).release(from, t.end);
}

Nanos NicModel::response_path(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) {
  Nic& src = memory_[r.memory_node].nic;
  Nic& dst = requester_nic(r);
  Nanos t = std::max(done, horizon_) + p_.nic_latency_ns;
  t = traverse(r, src, dst, t, wire_bytes(response_payload(wr)), rng) + p_.nic_latency_ns;
  // The data (READ, atomic) and then the CQE are written into host memory;
  // a memory node's NIC writes them over the PCIe its responder side uses.
  if (symmetric(r)) {
    const uint64_t data = wr.opcode == Opcode::kRead ? wr.length : is_atomic(wr.opcode) ? 8 : 0;
    t = requester_dma_write(dst, t, data + 64 /* CQE */);
  }
  return t + p_.pcie_write_ns;
}

// The switch answers from its pipeline: half the wire each way, no responder
// NIC, no PCIe, no lock table (Jasny §5.4). Its ports run at line rate; the
// requester's own link and NIC are what a switch-bound workload waits for.
Nanos NicModel::switch_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) {
  Nic& src = requester_nic(r);
  Nanos t = requester_side(r, wr, posted);
  const Nanos ser = serialize(wire_bytes(request_payload(wr)));
  if (m_.link) t = src.tx.book(t, ser, horizon_);
  return t + ser + p_.propagation_ns / 2 + jitter(rng) + p_.switch_pipeline_ns;
}

Nanos NicModel::switch_response(const WrRoute& r, const WorkRequest& wr, Nanos at_switch, Rng& rng) {
  Nic& dst = requester_nic(r);
  const Nanos ser = serialize(wire_bytes(response_payload(wr)));
  Nanos t = std::max(at_switch, horizon_) + p_.propagation_ns / 2 + jitter(rng);
  if (m_.link) t = dst.rx.book(t, ser, horizon_);
  return t + ser + p_.nic_latency_ns + p_.pcie_write_ns;
}

// A latch RPC to the SmartNIC (Jasny §5.2): its NIC receives the request into
// the SoC's memory, the first free core executes it with CPU atomics (no lock
// table), and the reply goes back through its NIC.
Nanos NicModel::smartnic_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) {
  Nic& src = requester_nic(r);
  Nanos t = requester_side(r, wr, posted);
  t = cross(r, src, smartnic_, t, wire_bytes(request_payload(wr)), rng) + p_.nic_latency_ns;
  if (m_.message_rate) t = smartnic_.pu.book(t, pu_time(), horizon_) + pu_time();
  t += p_.pcie_write_ns;  // the receive lands where the cores poll
  size_t best = 0;
  Nanos best_start = ~Nanos{0};
  for (size_t i = 0; i < smartnic_cores_.size(); ++i) {
    const Nanos s = smartnic_cores_[i].earliest_fit(t, p_.smartnic_rpc_ns);
    if (s < best_start) best_start = s, best = i;
  }
  const Nanos start = smartnic_cores_[best].book(t, p_.smartnic_rpc_ns, horizon_);
  LW_CHECK(start == best_start);
  return start + p_.smartnic_rpc_ns;
}

Nanos NicModel::smartnic_response(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) {
  Nic& dst = requester_nic(r);
  Nanos t = std::max(done, horizon_) + p_.nic_latency_ns;
  if (m_.message_rate) t = smartnic_.pu.book(t, pu_time(), horizon_) + pu_time();
  t = cross(r, smartnic_, dst, t, wire_bytes(response_payload(wr)), rng) + p_.nic_latency_ns;
  return t + p_.pcie_write_ns;
}

// Two-sided RPC (DrTM+H §3.1): the request is a SEND that the memory node's
// NIC processes like any incoming request and DMA-writes into a posted
// receive buffer, where a polling core finds it; queueing for the cores is
// the simulator's (sim_rpc.cpp). The caller's SEND gathers its payload like
// a WRITE (requester_side).
Nanos NicModel::rpc_request(const WrRoute& r, uint32_t bytes, Nanos posted, Rng& rng) {
  Nic& src = requester_nic(r);
  Nic& dst = memory_[r.memory_node].nic;
  WorkRequest send;
  send.opcode = Opcode::kWrite;
  send.length = bytes;
  Nanos t = requester_side(r, send, posted);
  t = traverse(r, src, dst, t, wire_bytes(bytes + 4 /* DETH-sized header extra */), rng) + p_.nic_latency_ns;
  if (m_.message_rate) t = dst.pu.book(t, pu_time(), horizon_) + pu_time();
  // The payload and the receive CQE land in host memory (posted DMA writes).
  const Nanos transfer = ns(static_cast<double>(bytes) * 8.0 / p_.pcie_gbps);
  const Nanos s = m_.pcie ? pcie_writes(dst).book(t, std::max<Nanos>(1, transfer), horizon_) : t;
  return s + p_.pcie_write_ns + transfer;
}

// The reply SEND: the memory node's NIC fetches it (payload gathered over
// PCIe as for a WRITE), sends it, and the caller's NIC processes it as an
// incoming message and writes data and CQE into the caller's memory.
Nanos NicModel::rpc_response(const WrRoute& r, uint32_t bytes, Nanos sent, Rng& rng) {
  Nic& src = memory_[r.memory_node].nic;
  Nic& dst = requester_nic(r);
  Nanos t = std::max(sent, horizon_) + p_.nic_latency_ns;
  if (m_.message_rate) t = src.pu.book(t, pu_time(), horizon_) + pu_time();
  t += p_.pcie_read_ns;
  t = traverse(r, src, dst, t, wire_bytes(bytes + 4), rng) + p_.nic_latency_ns;
  if (m_.message_rate) t = dst.pu.book(t, pu_time(), horizon_) + pu_time();
  return t + p_.pcie_write_ns;
}

void NicModel::completed(const WrRoute& r) {
  Nic& nic = requester_nic(r);
  LW_CHECK(nic.outstanding > 0);
  --nic.outstanding;
}

void NicModel::report(std::map<std::string, double>* out) const {
  (*out)["nic.qp_cache_misses"] = static_cast<double>(counters_.qp_misses);
  (*out)["nic.wqe_cache_misses"] = counters_.wqe_misses;
  (*out)["nic.doorbell_lock_waits"] = static_cast<double>(counters_.doorbell_waits);
  (*out)["nic.engine_waits"] = static_cast<double>(counters_.engine_waits);
  // Only runs with memory-node threads posting verbs have these (symmetric
  // nodes, ALock §4); other reports stay as they were.
  if (counters_.symmetric_verbs > 0) {
    (*out)["nic.symmetric_verbs"] = static_cast<double>(counters_.symmetric_verbs);
    (*out)["nic.loopback_verbs"] = static_cast<double>(counters_.loopback_verbs);
  }
}

}  // namespace lw::sim
