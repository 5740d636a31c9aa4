// The other half of late_bound_handlers() (memnode.h): a VerbsBackend that
// serves its own node gives the code of each handler it registers to the
// in-process memory node's late-bound handler of that name.
#pragma once

#include "latchwork/verbs/rpc.h"

namespace lw::rdma {

// Binds every live late-bound handler named h.name to h.fn, on behalf of
// `owner` (a later binding replaces an earlier one). Returns how many.
uint32_t bind_late_handler(const RpcHandler& h, const void* owner);
// Unbinds every handler `owner` bound (they answer kUnsupported again): the
// state their code uses (a store) goes with the owner.
void unbind_late_handlers(const void* owner);

}  // namespace lw::rdma
