// Node reads shared by the B-tree's lookups and inserts: a versioned
// (optimistic) read, and latched reads that carry the node READ in the
// latch's batch (speculative read, Jasny §3.3).
#pragma once

#include "latchwork/structures/jasny/btree.h"

namespace lw::btree {

// Versioning: READ word, READ node, then [READ word, READ parent's word]
// (the parent's only if `parent` is set). `*valid` when the word was
// unlatched and unchanged and the parent still holds `parent_word`; the
// image's word is the one read first.
Task<Status> read_versioned(Worker& w, RemoteAddr addr, BTreeNode* img, bool* valid,
                            RemoteAddr parent = {}, uint64_t parent_word = 0);

// [FAA +2, READ node] until the exclusive bit was clear; undoes the FAA and
// backs off otherwise. On kOk the caller holds a shared latch.
Task<Status> latch_shared_read(Worker& w, RemoteAddr addr, BTreeNode* img, const RetryPolicy& policy);

// [CAS 0 -> X, READ node] until the CAS succeeds. On kOk the caller holds
// the exclusive latch (image word set to X).
Task<Status> latch_exclusive_read(Worker& w, RemoteAddr addr, BTreeNode* img, const RetryPolicy& policy);

// Posts the shared unlatch (FAA -2) without waiting for it.
Status post_unlatch_shared(Worker& w, RemoteAddr addr);

}  // namespace lw::btree
