// Memory images of bulk-loaded trees, shared by the points of a figure that
// load the same keys into the same tree: a later bulk load with the same
// options, pairs and node addresses installs the first one's image
// (Backend::host_install_image) instead of building and encoding every node
// again (a third of a Sherman point's wall time once its run was cut at the
// drain deadline). Kept in the set-up store (base/setup_store.h) under the
// key below, only while a NodeMemoryReuse is in effect (repro, check), where
// the node memory that held the image installs it for free.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/setup_store.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/structures/sherman/tree.h"
#include "verbs/host_image.h"

namespace lw::sherman {

// One image per memory node (null where the tree has no node).
using BulkImages = std::vector<std::shared_ptr<const HostImage>>;

// Everything the nodes' bytes depend on: the options (their defaulted ==,
// which covers a field added later), the pairs loaded and every node's
// address, in allocation order.
SetupKey bulk_images_key(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                         std::span<const RemoteAddr> addrs);
// What the images hold (their files' stored bytes).
uint64_t bulk_images_bytes(const BulkImages& images);

}  // namespace lw::sherman
