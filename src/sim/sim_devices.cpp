// Smart network hardware in the simulator (Jasny et al. §5.2-5.5): the
// programmable switch's registers and its optimistic-latching program, and
// the SmartNIC whose cores serve requests by RPC.
//
// The switch executes each packet in one pipeline pass, at one instant: its
// register accesses are atomic against each other and nothing is lost
// (§5.3 "Guarantees"). Under the §5.5 program it also watches the requests
// to the tuples the control plane installed (switch_program.h, Table 2):
//   Read Tuple   request: store the tuple's version for this request
//                response: compare with the current version; put the verdict
//                          into the response's header
//   Write Tuple  request: embed the version the write leaves behind
//                ACK:      unlatch (version + 1)
//   Latch Tuple, Read Version: answered from the registers
#include <cstring>

#include "sim_impl.h"

namespace lw {

using sim::EventKind;
using sim::NodeKind;
using sim::Op;
using sim::SwitchPacket;

NodeId SimBackend::Impl::switch_qp_node(NodeId node, const WorkRequest& wr) const {
  uint32_t map;
  uint64_t i;
  if (sw.version_at(wr.remote, &map, &i)) return sw.maps[map].tuples.node();
  return node;
}

void SimBackend::Impl::schedule_on_device(Op* op, Nanos posted) {
  WorkRequest& wr = *op->wr;
  sim::QueuePair& qp = *op->qp;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  const bool is_switch = m.kind == NodeKind::kSwitch;
  ++verbs;
  ++qp.outstanding;

  Status s = m.mem.check(wr);
  if (s == Status::kOk && (wr.opcode == Opcode::kRead || wr.opcode == Opcode::kWrite) && wr.local == nullptr)
    s = Status::kBadLength;
  // The switch's registers are words: a pipeline stage reads or writes one.
  if (s == Status::kOk && is_switch && !is_atomic(wr.opcode)) {
    if (wr.length != kWord) s = Status::kBadLength;
    else if (wr.remote.offset() % kWord != 0) s = Status::kMisaligned;
  }
  wr.status = s;

  op->sw = SwitchPacket::kRegister;
  uint32_t map;
  uint64_t index;
  if (is_switch && cfg.network.programmable_switch.optimistic_latching() &&
      sw.version_at(wr.remote, &map, &index)) {
    if (wr.opcode == Opcode::kCas) op->sw = SwitchPacket::kLatchTuple;
    if (wr.opcode == Opcode::kRead) op->sw = SwitchPacket::kReadVersion;
    op->sw_map = map;
    op->sw_tuple = index;
  }

  Nanos at, completion;
  if (is_switch) {
    op->psn = qp.next_psn++;
    // Answered on a storage QP: the memory node will not see this PSN.
    if (op->route.memory_node != wr.remote.node()) ++qp.psn_offset;
    at = std::max(timing->switch_request(op->route, wr, posted, rng), qp.last_switch_pass + 1);
    qp.last_switch_pass = at;
    completion = timing->switch_response(op->route, wr, at, rng);
  } else {
    at = timing->smartnic_request(op->route, wr, posted, rng);
    completion = timing->smartnic_response(op->route, wr, at, rng);
  }
  if (s == Status::kOk) {
    events.push(at, EventKind::kDeviceOp, op);
    if (is_switch) maybe_duplicate(op, at);
  }
  completion = std::max({completion, at + 1, qp.last_completion + 1});
  qp.last_completion = completion;
  events.push(completion, EventKind::kComplete, op);
}

void SimBackend::Impl::on_device_op(Op* op) {
  WorkRequest& wr = *op->wr;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  if (wr.opcode == Opcode::kRead) {
    // READ data reaches the requester with the response (on_complete).
    const std::byte* from = m.mem.bytes(wr.remote.offset());
    op->payload.assign(from, from + wr.length);
    op->staged_read = true;
  }
  execute_on_device(m, wr, op->sw, op->payload.data(), /*write_result=*/wr.opcode != Opcode::kRead);
  if (m.kind == NodeKind::kSwitch) sw.last_request_psn[op->qp] = op->psn;
  if (m.kind == NodeKind::kSmartNic) ++sw.counters["smartnic.rpcs"];
}

void SimBackend::Impl::execute_on_device(sim::MemoryNode& m, WorkRequest& wr, SwitchPacket kind,
                                         const std::byte* write_src, bool write_result) {
  const uint64_t off = wr.remote.offset();
  if (wr.opcode == Opcode::kRead) {
    if (write_result) std::memcpy(wr.local, m.mem.bytes(off), wr.length);
    if (kind == SwitchPacket::kReadVersion) sw.count("version_reads");
    return;
  }
  if (wr.opcode == Opcode::kWrite) {
    std::memcpy(m.mem.bytes(off), write_src, wr.length);
    m.mem.note_written(off, off + wr.length);
    return;
  }
  uint64_t* word = m.mem.word(off);
  const uint64_t old = *word;
  uint64_t next = old;
  bool writes;
  if (kind == SwitchPacket::kLatchTuple) {
    // Try-latch: an even version becomes odd (latched); the operands are ignored.
    writes = (old & 1) == 0;
    next = old + 1;
    sw.count(writes ? "latches" : "latch_conflicts");
  } else {
    writes = apply_atomic(wr, old, &next);
  }
  if (write_result) wr.old_value = old;
  if (writes) {
    *word = next;
    m.mem.note_written(off, off + kWord);
  }
}

void SimBackend::Impl::maybe_duplicate(const Op* op, Nanos at) {
  const SwitchConfig& c = cfg.network.programmable_switch;
  if (c.duplicate_percent == 0 || draw(100) >= c.duplicate_percent) return;
  sim::SwitchDuplicate d;
  d.client = op->qp;
  d.who = op->who();
  d.psn = op->psn;
  d.response = op->sw == SwitchPacket::kWriteTuple;
  d.kind = op->sw;
  d.wr = *op->wr;
  d.wr.local = nullptr;
  d.map = op->sw_map;
  d.tuple = op->sw_tuple;
  if (op->wr->opcode == Opcode::kWrite) d.payload = op->payload;
  const uint32_t id = sw.next_duplicate++;
  LW_CHECK(sw.duplicates.emplace(id, std::move(d)).second);
  events.push(at + c.duplicate_delay_ns, EventKind::kSwitchDuplicate, &sw, id);
}

void SimBackend::Impl::on_switch_duplicate(uint32_t id) {
  auto found = sw.duplicates.find(id);
  LW_CHECK(found != sw.duplicates.end());
  const sim::SwitchDuplicate* d = &found->second;
  const bool suppress = cfg.network.programmable_switch.suppress_duplicates;
  auto& last = d->response ? sw.last_ack_psn : sw.last_request_psn;
  auto it = last.find(d->client);
  if (suppress && it != last.end() && it->second >= d->psn) {
    sw.count("duplicates_suppressed");
  } else {
    // Executed a second time: what PSN suppression prevents.
    sw.count("duplicates_executed");
    sim::MemoryNode& regs = *memory[cfg.switch_node()];
    if (log) {
      // Fault injection, not a relaxation of the contract; logged like one
      // so that a checker can name it as the cause.
      const bool tuple = d->kind == SwitchPacket::kLatchTuple || d->kind == SwitchPacket::kWriteTuple ||
                         d->kind == SwitchPacket::kReadVersion;
      const SwitchTupleMap* t = tuple ? &sw.maps[d->map] : nullptr;
      RelaxationEvent e;
      e.at = e.until = now;
      e.who = d->who;
      e.relaxation = "switch_duplicate";
      e.what = std::string(d->response ? "the ACK of a retransmitted WRITE" : "a retransmitted request") +
               " (PSN " + std::to_string(d->psn) + ") reached the switch again at " + std::to_string(now) +
               " ns and was executed twice" + (tuple ? " on tuple " + std::to_string(d->tuple) : "") +
               " (duplicate suppression is off)";
      e.addr = tuple ? t->tuple(d->tuple) : d->wr.remote;
      e.length = tuple ? t->tuple_bytes : kWord;
      log->add(std::move(e));
    }
    if (d->response) {
      uint64_t* v = switch_version(d->map, d->tuple);
      if (*v & 1) *v += 1;  // unlatches whoever holds the latch now
    } else {
      WorkRequest again = d->wr;
      execute_on_device(regs, again, d->kind, d->payload.data(), /*write_result=*/false);
    }
  }
  sw.duplicates.erase(found);
}

void SimBackend::Impl::switch_forwarded(Op* op) {
  // Table 2, PSN adjustment: the memory node must see consecutive PSNs
  // although the switch answered some of this QP's packets itself.
  sim::QueuePair& qp = *op->qp;
  op->psn = qp.next_psn++;
  const uint64_t at_responder = op->psn - qp.psn_offset;
  LW_CHECK_MSG(at_responder == qp.responder_psn,
               "PSN sequence error at the memory node: expected " + std::to_string(qp.responder_psn) +
                   ", got " + std::to_string(at_responder));
  ++qp.responder_psn;
  if (qp.psn_offset > 0) sw.count("psn_adjusted");
}

Nanos SimBackend::Impl::switch_watch(Op* op, Nanos posted, Nanos arrive, Nanos done, Nanos completion) {
  const WorkRequest& wr = *op->wr;
  uint32_t map;
  uint64_t index;
  if (!sw.tuple_at(wr.remote, &map, &index) || wr.length > sw.maps[map].tuple_bytes) return completion;
  if (wr.opcode == Opcode::kRead) op->sw = SwitchPacket::kReadTuple;
  else if (wr.opcode == Opcode::kWrite && wr.length >= kWord) op->sw = SwitchPacket::kWriteTuple;
  else return completion;
  op->sw_map = map;
  op->sw_tuple = index;
  sim::QueuePair& qp = *op->qp;
  // The request passes the switch on its way (before the memory node acts),
  // the response on its way back (after the last line was fetched or landed).
  Nanos request = std::max(posted + (arrive - posted) / 2, qp.last_switch_pass + 1);
  request = std::min(request, arrive - 1);
  qp.last_switch_pass = std::max(qp.last_switch_pass, request);
  events.push(request, EventKind::kSwitchRequest, op);
  const Nanos response = std::max(done + (completion - done) / 2, done + 1);
  events.push(response, EventKind::kSwitchResponse, op);
  return std::max(completion, response + 1);
}

uint64_t* SimBackend::Impl::switch_version(uint32_t map, uint64_t tuple) {
  // Callers may write it: noted up front (a page noted and not written is
  // only zeroed again).
  NodeMemory& mem = memory[cfg.switch_node()]->mem;
  const uint64_t off = sw.maps[map].version(tuple).offset();
  mem.note_written(off, off + kWord);
  return mem.word(off);
}

void SimBackend::Impl::on_switch_request(Op* op) {
  uint64_t* v = switch_version(op->sw_map, op->sw_tuple);
  if (op->sw == SwitchPacket::kReadTuple) {
    op->sw_version = *v;  // the Client-to-Version register of Fig. 24
    return;
  }
  // Write Tuple: the header carries the version this write leaves behind, so
  // a recovering switch can reload its registers from the memory nodes.
  const uint64_t after = (*v & 1) ? *v + 1 : *v;
  if ((*v & 1) == 0) sw.count("writes_without_latch");
  std::memcpy(op->payload.data(), &after, kWord);
}

void SimBackend::Impl::on_switch_response(Op* op) {
  uint64_t* v = switch_version(op->sw_map, op->sw_tuple);
  WorkRequest& wr = *op->wr;
  if (op->sw == SwitchPacket::kReadTuple) {
    const bool consistent = *v == op->sw_version && (*v & 1) == 0;
    const uint64_t verdict = consistent ? op->sw_version : kSwitchReadInconsistent;
    // The switch rewrites the response in flight; it reaches the requester
    // at completion.
    LW_CHECK(op->staged_read);
    if (wr.length >= kWord) std::memcpy(op->payload.data(), &verdict, kWord);
    sw.count(consistent ? "reads_verified" : "reads_inconsistent");
    return;
  }
  // Write Tuple ACK: the write has landed; unlatch (§5.5, one round trip).
  if (*v & 1) {
    *v += 1;
    sw.count("unlatches");
  }
  sw.last_ack_psn[op->qp] = op->psn;
  maybe_duplicate(op, now);
}

}  // namespace lw
