// Memory images of bulk-loaded trees, shared by the points of a figure that
// load the same keys into the same tree: a later bulk load with the same
// options, pairs and node addresses installs the first one's image
// (Backend::host_install_image) instead of building and encoding every node
// again (a third of a Sherman point's wall time once its run was cut at the
// drain deadline). Exact: everything the nodes' bytes depend on is compared
// whole (the options by a defaulted operator==, which covers a field added
// later). Only while a NodeMemoryReuse is in effect (repro, check), where
// the node memory that held the image installs it for free. Thread-safe;
// at most four trees and 512 MB.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/structures/sherman/tree.h"
#include "latchwork/verbs/host_image.h"

namespace lw::sherman {

// One image per memory node (null where the tree has no node).
using BulkImages = std::vector<std::shared_ptr<const HostImage>>;

// The images of a bulk load of `pairs` into nodes at `addrs` (every node,
// in allocation order) under `cfg`, or empty.
BulkImages find_bulk_images(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                            const std::vector<RemoteAddr>& addrs);
void keep_bulk_images(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                      std::vector<RemoteAddr> addrs, BulkImages images);

}  // namespace lw::sherman
