// The relaxation log's hooks in the simulator: each names a weak behaviour a
// semantics switch just produced. They only read the simulation's state and
// never draw, so a log changes no decision and no trace hash.
#include <string>

#include "sim_impl.h"

namespace lw {
namespace {

std::string who(const Placement& p) {
  return std::string(p.on_memory_node() ? "memory " : "compute ") + std::to_string(p.node) + "/" +
         std::to_string(p.thread) + "/" + std::to_string(p.coroutine);
}

std::string ns(Nanos t) { return std::to_string(t) + " ns"; }

// "READ of 256 B at 0:0x1040"
std::string request(const char* kind, uint32_t length, RemoteAddr addr) {
  return std::string(kind) + " of " + std::to_string(length) + " B at " + addr.to_string();
}
std::string request(const sim::Op* op) {
  return request(to_string(op->wr->opcode), is_atomic(op->wr->opcode) ? 8 : op->wr->length,
                 op->wr->remote);
}
std::string request(const sim::StoreSource& s) { return request(s.kind, s.length, s.addr); }
std::string request(const sim::ReadMark& r) { return request("READ", r.length, r.addr); }

RelaxationEvent event(Nanos at, Nanos until, const Placement& p, const char* relaxation,
                      std::string what, RemoteAddr addr, uint64_t length) {
  return {at, until, p, relaxation, std::move(what), addr, length};
}
uint64_t bytes_of(const sim::Op* op) { return is_atomic(op->wr->opcode) ? 8 : op->wr->length; }

}  // namespace

void SimBackend::Impl::log_line_order(const sim::Op* op, const std::vector<Nanos>& when) {
  // The first line fetched before a lower line; equal instants fire in
  // posting (address) order, so they are no inversion.
  size_t latest = 0;
  for (size_t i = 1; i < when.size(); ++i) {
    if (when[i] < when[latest]) {
      log->add(event(when[i], when[latest], op->who(), "read_lines_unordered",
                     request(op) + " fetched line " + std::to_string(i) + " at " + ns(when[i]) +
                         " before line " + std::to_string(latest) + " at " + ns(when[latest]),
                     op->wr->remote, bytes_of(op)));
      return;
    }
    if (when[i] > when[latest]) latest = i;
  }
  // In address order but at different instants: a WRITE may still land
  // between two of them (the snapshot is not one instant).
  const Nanos first = when.front(), last = when[latest];
  if (last > first)
    log->add(event(first, last, op->who(), "read_lines_unordered",
                   request(op) + " fetched its " + std::to_string(when.size()) +
                       " lines in address order but over " + ns(first) + " to " + ns(last) +
                       ", not at one instant",
                   op->wr->remote, bytes_of(op)));
}

void SimBackend::Impl::log_read_order(const sim::Op* op, Nanos first, Nanos last) {
  sim::ReadMark& prev = op->qp->slowest_read;
  if (prev.valid && first < prev.fetch) {
    const std::string what = request(op) + " by " + who(op->who()) + " fetched at " + ns(first) +
                             ", before the earlier " + request(prev) + " by " + who(prev.who) +
                             " on the same queue pair fetched at " + ns(prev.fetch);
    log->add(event(first, prev.fetch, op->who(), "reads_unordered", what, op->wr->remote, bytes_of(op)));
    if (prev.who.coroutine != op->who().coroutine)  // one queue pair: one thread
      log->add(event(first, prev.fetch, prev.who, "reads_unordered", what, prev.addr, prev.length));
  }
  const sim::ReadMark mark{true, op->who(), op->wr->remote, op->wr->length, first, last};
  if (!prev.valid || last > prev.fetch) prev = mark;
  sim::QueuePair& qp = *op->qp;
  qp.recent_reads[qp.next_recent++ % sim::QueuePair::kRecentReads] = mark;
}

void SimBackend::Impl::log_overtaking(const sim::Op* op, Nanos effect) {
  const sim::ReadMark& slowest = op->qp->slowest_read;
  if (!slowest.valid || effect >= slowest.fetch) return;
  // Logged whatever bytes the later request touches: an unlatch WRITE on the
  // latch word overtaking a READ of the data lets a writer in before the READ
  // fetched (the overtaking request need not touch the READ's bytes). The
  // READ is the request affected: the event carries its bytes. Every recent
  // READ it overtook, so that each READ's own bytes are named.
  auto logged = [&](const sim::ReadMark& read) {
    log->add(event(effect, read.fetch, read.who, "read_overtaken",
                   request(read) + " by " + who(read.who) + " fetched at " + ns(read.fetch) +
                       ", after the later " + request(op) + " by " + who(op->who()) +
                       " on the same queue pair took effect at " + ns(effect),
                   read.addr, read.length));
  };
  bool slowest_seen = false;
  for (const sim::ReadMark& read : op->qp->recent_reads) {
    if (!read.valid || effect >= read.fetch) continue;
    slowest_seen = slowest_seen || (read.fetch == slowest.fetch && read.addr == slowest.addr &&
                                    read.who.coroutine == slowest.who.coroutine);  // one QP: one thread
    logged(read);
  }
  if (!slowest_seen) logged(slowest);
}

void SimBackend::Impl::log_lost_stores(const sim::Op* atomic,
                                       const std::vector<sim::StoreSource>& lost) {
  const char* name = to_string(atomic->wr->opcode);
  const Nanos read = atomic->access.begin, back = atomic->access.end;
  // A CAS that failed and still wrote back is named by its own switch
  // (failed_cas_writes_back): it changed nothing, yet the store is lost.
  uint64_t unused = 0;
  const bool failed_cas = !apply_atomic(*atomic->wr, atomic->wr->old_value, &unused);
  const std::string wrote = failed_cas ? " failed and wrote back the value it read at " : " wrote back at ";
  for (const sim::StoreSource& s : lost) {
    const bool cpu = s.kind[0] == 'C';
    const char* relaxation = failed_cas ? "failed_cas_writes_back" : cpu ? "atomic_loses_cpu" : "atomic_loses_write";
    log->add(event(read, back, atomic->who(), relaxation,
                   std::string(name) + " at " + atomic->wr->remote.to_string() + " read at " +
                       ns(read) + " and" + wrote + ns(back) + " over the " + request(s) +
                       " by " + who(s.who) + " that landed at " + ns(s.at) + " (it is lost)",
                   atomic->wr->remote, 8));
    log->add(event(s.at, back, s.who, relaxation,
                   "its " + request(s) + " landed at " + ns(s.at) + " and was overwritten by the " +
                       name + " of " + who(atomic->who()) + " at " + atomic->wr->remote.to_string() +
                       " (read at " + ns(read) + ", written back at " + ns(back) + ")",
                   s.addr, s.length));
  }
}

void SimBackend::Impl::log_write_line(sim::MemoryNode& m, const sim::Op* op, uint32_t line) {
  // Lines land in address order, one event each: line 0 opens the record.
  if (line == 0) {
    sim::PartialWrite p;
    p.op_id = op->id;
    p.src = {op->who(), "WRITE", op->wr->remote, op->wr->length, now};
    const uint64_t lo = op->wr->remote.offset();
    p.lines = static_cast<uint32_t>(line_of(lo + op->wr->length - 1) - line_of(lo) + 1);
    m.partial_writes.push_back(p);
  }
  for (size_t i = 0; i < m.partial_writes.size(); ++i) {
    sim::PartialWrite& p = m.partial_writes[i];
    if (p.op_id != op->id) continue;
    if (++p.landed == p.lines) {
      m.partial_writes[i] = m.partial_writes.back();
      m.partial_writes.pop_back();
    }
    return;
  }
}

void SimBackend::Impl::log_payload_late(const sim::Op* op, uint32_t line, uint64_t lo, uint64_t hi) {
  // Affected: whoever reads the WRITE's target; named by the writer's bytes.
  log->add(event(op->posted, now, op->who(), "write_payload_late",
                 request(op) + " by " + who(op->who()) + " posted at " + ns(op->posted) +
                     ": the NIC read line " + std::to_string(line) + " of its source at " + ns(now) +
                     " and sent bytes " + std::to_string(lo) + ".." + std::to_string(hi) +
                     " changed since the post",
                 op->wr->remote + lo, hi - lo));
}

void SimBackend::Impl::log_partial_fetch(sim::MemoryNode& m, const sim::Op* read, uint64_t lo,
                                         uint64_t hi) {
  for (sim::PartialWrite& p : m.partial_writes) {
    const uint64_t wlo = p.src.addr.offset(), whi = wlo + p.src.length;
    if (hi <= wlo || whi <= lo || p.last_reader == read->id) continue;
    p.last_reader = read->id;
    log->add(event(p.src.at, now, read->who(), "write_lines_staggered",
                   request(read) + " by " + who(read->who()) + " fetched at " + ns(now) +
                       " while the " + request(p.src) + " by " + who(p.src.who) + " had landed " +
                       std::to_string(p.landed) + " of " + std::to_string(p.lines) +
                       " lines (the first at " + ns(p.src.at) + ")",
                   read->wr->remote, read->wr->length));
  }
}

}  // namespace lw
