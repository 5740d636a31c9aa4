// A coordinator's per-attempt state (read and write sets, buffers that
// verbs write into) and per-run state (log ring positions, unsignaled posts
// per node), shared by txn.cpp (Execution), txn_commit.cpp (Validation,
// Logging, Commit) and txn_log.cpp (log rings, reclaims).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine_impl.h"
#include "latchwork/base/assert.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/txn/txn.h"
#include "wire.h"

namespace lw::txn {

struct Rec {
  TableId table = 0;
  uint64_t key = 0;
  bool for_update = false;
  bool fetched = false;
  bool locked = false;        // this attempt holds the primary's lock
  bool locked_by_rpc = false; // taken by a CPU CAS (release by RPC)
  bool locked_at_fetch = false;
  NodeId node = 0;            // primary
  RemoteAddr addr;            // primary copy, once known
  uint64_t version = 0;       // as read in Execution
  uint64_t lock_version = 0;  // as read right after locking
  uint32_t payload_bytes = 0, bytes = 0;
  std::vector<std::byte> image;  // READ destination / commit image
  std::vector<std::byte> value, update;
  RecordHeader hdr;              // validation READ destination
  std::array<std::byte, kBucketBytes> bucket{};
};

// Indexes into Txn::State::recs, held inline: the phases build several
// lists per transaction (per node, per primitive), and as std::vectors each
// was an allocation.
class RecIndexes {
 public:
  void push_back(uint32_t i) {
    LW_CHECK(n_ < kMaxTxnRecords);
    v_[n_++] = i;
  }
  void clear() { n_ = 0; }
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  uint32_t operator[](size_t i) const {
    LW_CHECK(i < n_);
    return v_[i];
  }
  const uint32_t* begin() const { return v_.data(); }
  const uint32_t* end() const { return v_.data() + n_; }

 private:
  std::array<uint32_t, kMaxTxnRecords> v_;
  uint32_t n_ = 0;
};

// Per memory node: unsignaled requests posted and the log ring.
struct NodeState {
  uint32_t unsignaled = 0;  // posted since the last awaited batch to the node
  bool buffer_busy = false; // post_buffer(node) is a pending WRITE's source
  uint64_t log_head = 0;    // logical position of the next entry
  uint64_t log_tail = 0;    // applied position last learnt
  uint64_t reclaim_sent = 0;
};

struct Txn::State {
  State(Txn& t);
  Txn& t;
  Engine& e;
  Worker& w;
  Store& store;
  const DesignConfig& d;
  LocationCache* cache = nullptr;
  std::optional<smart::Context> ctx;
  bool op_open = false;

  std::vector<Rec> recs;
  // The buffers of the last attempt's records, reused by the next one's
  // (each record's three were an allocation and a free per attempt).
  std::vector<std::vector<std::byte>> spare;
  void recycle_records();
  std::vector<std::byte> zeroed(size_t bytes);  // a spare buffer, or a new one
  size_t fetched_upto = 0;
  bool read_only = false;
  uint32_t type = 0;
  bool retrying = false;     // the previous attempt aborted: same transaction
  Nanos first_start = 0;
  Nanos phase[static_cast<size_t>(Phase::kCount)] = {};
  uint64_t seq = 0;
  uint32_t since_reclaim = 0;
  std::vector<NodeState> nodes;
  std::vector<std::vector<std::byte>> bufs;  // per node: RPC requests, log entries
  std::vector<std::byte> reply;

  // The node whose locks kMixedAtomics takes with CPU CAS.
  NodeId mixed_node() const;
  Primitive lock_prim(const Rec& r) const;

  // Awaits a batch to `node` (through the SMART runtime when set).
  Task<Status> exec(Batch& b, NodeId node);
  // The batches of one step, to one node each, and the records they carry
  // (read_one_sided: two requests per record with a lock, one without).
  struct Chunk {
    NodeId node = 0;
    Batch b;
    RecIndexes recs;
  };
  std::vector<Chunk> chunks;
  // Awaits `chunks`: all at once when `together` and they go to several
  // nodes (one round trip, Worker::execute_all), else one after another.
  Task<Status> exec_chunks(bool together);
  // Posts a batch unsignaled when the queue pair has room, else awaits it.
  Task<Status> post_or_exec(Batch& b, NodeId node);
  Task<Result<uint32_t>> call(NodeId node, uint32_t handler, std::span<const std::byte> req, std::span<std::byte> rep);

  TxnStatus fail(Status s);
  TxnStatus aborted(Phase p);
  Task<void> open_op();
  void close_op(bool ok);

  // Execution (txn.cpp).
  Task<TxnStatus> fetch_pending();
  Task<TxnStatus> fetch_set(const RecIndexes& ix);
  Task<TxnStatus> lookup(RecIndexes& ix);
  Task<TxnStatus> read_one_sided(const RecIndexes& ix, bool lock);
  // One node's share of read_rpc: its records, the round's slice of them
  // (in[first, end)), and that round's call and reply.
  struct RpcPart {
    NodeId node = 0;
    RecIndexes in;
    size_t first = 0, end = 0;
    RpcCall call;
    std::vector<std::byte> reply;
  };
  std::vector<RpcPart> rpc_parts;
  Task<TxnStatus> read_rpc(const RecIndexes& ix, bool lock);
  TxnStatus take_gets(RpcPart& part, bool lock, bool* abort);
  TxnStatus accept(Rec& r);

  // Validation and Commit (txn_commit.cpp).
  Task<TxnStatus> lock_writes(const RecIndexes& ws);
  Task<TxnStatus> validate_reads(const RecIndexes& rs, Primitive p);
  Task<TxnStatus> write_back(const RecIndexes& ws);
  Task<void> release_locks();
  void add_unlock(Batch& b, const Rec& r, uint64_t lw) const;

  // Logging (txn_log.cpp).
  Task<TxnStatus> log(const RecIndexes& ws);
  Task<Status> reclaim(NodeId node, bool wait);
  Task<Status> after_commit();
  Task<Status> drain();
};

}  // namespace lw::txn
