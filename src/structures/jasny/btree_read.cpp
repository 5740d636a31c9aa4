// Node reads of the B-tree: versioned (optimistic) and latched (pessimistic).
#include <cstring>

#include "btree_internal.h"
#include "latchwork/sync/exclusive_latch.h"
#include "latchwork/sync/optimistic.h"

namespace lw::btree {

Task<Status> read_versioned(Worker& w, RemoteAddr addr, BTreeNode* img, bool* valid, RemoteAddr parent,
                            uint64_t parent_word) {
  *valid = false;
  uint64_t before = 0, after = 0, parent_after = 0;
  Status s = co_await w.read(&before, addr, kWord);
  if (!ok(s) || VersionWord::latched(before)) co_return s;
  // The node after the word (in sequence: READs posted together may execute
  // in either order), then the words again (their order does not matter).
  auto* bytes = static_cast<std::byte*>(img->data());
  s = co_await w.read(bytes + kWord, addr + kWord, img->bytes() - kWord);
  if (!ok(s)) co_return s;
  Batch b;
  b.read(&after, addr, kWord);
  if (!parent.is_null()) b.read(&parent_after, parent, kWord);
  s = co_await w.execute(b);
  if (!ok(s)) co_return s;
  img->set_word(before);
  *valid = after == before && (parent.is_null() || parent_after == parent_word);
  if (*valid) LW_CHECK_MSG(img->sane(), "validated B-tree node " + addr.to_string() + " is malformed");
  co_return Status::kOk;
}

Task<Status> latch_shared_read(Worker& w, RemoteAddr addr, BTreeNode* img, const RetryPolicy& policy) {
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Batch b;
    WorkRequest& faa = b.faa(addr, RwLatch::kReader);
    b.read(img->data(), addr, img->bytes());
    Status s = co_await w.execute(b);
    if (!ok(s)) co_return s;
    if ((faa.old_value & RwLatch::kExclusive) == 0) {
      LW_CHECK_MSG(img->sane(), "shared-latched B-tree node " + addr.to_string() + " is malformed");
      co_return Status::kOk;
    }
    Result<uint64_t> undo = co_await w.faa(addr, -RwLatch::kReader);
    if (!undo.ok()) co_return undo.status;
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> latch_exclusive_read(Worker& w, RemoteAddr addr, BTreeNode* img, const RetryPolicy& policy) {
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Batch b;
    WorkRequest& cas = b.cas(addr, 0, RwLatch::kExclusive);
    b.read(img->data(), addr, img->bytes());
    Status s = co_await w.execute(b);
    if (!ok(s)) co_return s;
    if (cas.old_value == 0) {
      img->set_word(RwLatch::kExclusive);
      LW_CHECK_MSG(img->sane(), "latched B-tree node " + addr.to_string() + " is malformed");
      co_return Status::kOk;
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Status post_unlatch_shared(Worker& w, RemoteAddr addr) {
  Batch b;
  b.faa(addr, -RwLatch::kReader);
  return w.post(b);
}

}  // namespace lw::btree
