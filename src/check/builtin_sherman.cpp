// Sherman's B+Tree (structures/sherman) as a check workload: workers look
// up, insert, update, remove and range-scan a few hundred keys in a tree of
// small nodes (256 B: about ten entries a leaf), so that leaves and internal
// nodes split all through the run while lookups and ranges read them.
//
// Every insert stores a value unique to it; the map model checks lookups
// (absent keys included) and the final contents, read host-side by a walk of
// every level that also checks the tree's structure (fence chains, keys in
// their leaf's fences, no key twice, every node's check, every lock free).
// A range is not atomic with writers (Sherman §4.4), but each key in it must
// be read at some instant inside the call: the model records one lookup per
// key of the range, found or absent.
//
// Schemes (the tree's version schemes, TreeConfig::scheme):
//   two-level  Sherman's 4-bit node and entry versions. A negative control
//              under `spec`: with READ lines fetched out of order, a reader
//              can take the front and rear node versions from after a split
//              and the lines between from before it.
//   per-line   Sherman+ (SMART §6.2.3): a version in every 64-byte line.
//   smart-bt   per-line with speculative lookup on the SMART runtime.
//   fg+        FG+: sorted nodes, whole-node write-back, a CRC-64 per node,
//              64-bit CAS locks in host memory.
//   early-handover  a negative control: per-line, but HOCL hands the lock
//              to the next local waiter before the write-back is posted
//              (Fig. 6's line order), so the next holder may read the node
//              before the write-back lands.
#include <optional>
#include <sstream>

#include "builtin_internal.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/sherman/tree.h"

namespace lw::check {
namespace {

constexpr uint32_t kCheckNodeBytes = 256;
constexpr uint32_t kRangeKeys = 16;

// The index preset a scheme starts from (early-handover: Sherman+ with the
// broken release order).
std::string preset_of(const std::string& scheme) {
  if (scheme == "two-level") return "sherman";
  if (scheme == "per-line" || scheme == "early-handover") return "sherman+";
  return scheme;
}

sherman::TreeConfig tree_config(const BuiltinOptions& b) {
  sherman::TreeConfig t;
  ClusterConfig ignored;
  const std::string preset = preset_of(b.scheme);
  LW_CHECK_MSG(sherman::apply_index_preset(preset, &t, &ignored), "no index preset " + preset);
  t.node_bytes = kCheckNodeBytes;
  t.max_attempts = b.max_attempts;
  t.lock.max_spins = uint64_t{b.max_attempts} * 64;
  t.lock.locks_per_node = 64;  // few locks: unrelated nodes share some
  t.chunk_bytes = 64u << 10;
  t.cache_bytes = 4u << 10;    // a few level-1 nodes: evictions happen
  t.speculative_entries = 64;
  if (b.scheme == "early-handover") t.variant = sherman::Variant::kEarlyHandover;
  return t;
}

class ShermanWorkload final : public Workload {
 public:
  explicit ShermanWorkload(BuiltinOptions b) : b_(std::move(b)) {}

  void setup(SeedRun& run) override {
    Result<sherman::Tree> t = sherman::Tree::create(run.backend(), tree_config(b_));
    if (!t.ok()) {
      run.fail("setup", std::string("creating the tree failed: ") + std::string(to_string(t.status)));
      return;
    }
    tree_ = std::move(t.value);
    runtime_ = std::make_unique<smart::Runtime>(run.config());
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    if (!tree_.valid()) co_return;
    smart::Context ctx(*runtime_, w);
    const uint32_t me = run.worker_index(w);
    std::vector<std::pair<uint64_t, uint64_t>> found;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t key = w.rng().below(b_.keys) + 1;
      const uint64_t value = (uint64_t{me} + 1) << 32 | (i + 1);  // unique per insert
      const Placement who = w.placement();
      const Nanos start = w.now();
      const char* what = "a lookup";
      Status s;
      if (w.rng().below(100) < b_.read_percent) {
        Result<sherman::Tree::Found> r = co_await tree_.lookup(ctx, key);
        s = r.status;
        if (r.ok()) run.map().get(key, r.value.found ? std::optional(r.value.value) : std::nullopt, start, w.now(), who);
      } else {
        // Writes and scans: 60% insert (an update when present), 20% remove, 20% range.
        const uint64_t pick = w.rng().below(10);
        // A put or erase of a worker the crash stops may still land.
        if (run.crash() != nullptr && pick < 8) {
          const bool erase = pick >= 6;
          run.in_flight(w, [&run, key, value, start, who, erase](Nanos end) {
            if (erase) run.map().erase(key, start, end, who, false);
            else run.map().put(key, value, start, end, who, false);
          });
        }
        if (pick < 6) {
          what = "an insert";
          Result<bool> r = co_await tree_.insert(ctx, key, value);
          s = r.status;
          run.map().put(key, value, start, w.now(), who, r.ok());
        } else if (pick < 8) {
          what = "a remove";
          Result<bool> r = co_await tree_.remove(ctx, key);
          s = r.status;
          run.map().erase(key, start, w.now(), who, r.ok());
        } else {
          what = "a range";
          found.clear();
          const uint64_t to = key + kRangeKeys;
          Result<uint32_t> r = co_await tree_.range(ctx, key, to, &found);
          s = r.status;
          if (r.ok()) record_range(run, key, to, found, start, w.now(), who);
        }
      }
      if (s == Status::kRetryExhausted) {
        std::ostringstream o;
        o << what << " of key " << key << " after " << b_.max_attempts << " attempts";
        run.gave_up(w, o.str());
      } else {
        if (!ok(s)) {
          std::ostringstream o;
          o << what << " of key " << key << " by " << describe(who) << " returned " << to_string(s);
          run.fail("error-status", o.str());
        }
        run.op_done(w);
      }
    }
  }

  void check(SeedRun& run) override {
    if (!tree_.valid()) return;
    std::string why;
    Result<std::map<uint64_t, uint64_t>> c = tree_.host_contents(run.backend(), &why);
    if (!c.ok()) {
      run.fail("corrupt-tree", why);
      return;
    }
    run.map().final_contents({c.value.begin(), c.value.end()});
  }

  std::string still_held(SeedRun& run) override {
    if (!tree_.valid()) return {};
    const locks::Hocl& h = tree_.lock();
    for (NodeId n = 0; n < run.config().memory_nodes; ++n) {
      for (uint32_t i = 0; i < h.config().locks_per_node; ++i) {
        const uint64_t word = run.backend().host_load(h.word_addr(n, i));
        if (word & h.lane_mask(i)) {
          std::ostringstream o;
          o << "lock " << i << " of memory node " << n << " is still taken (word 0x" << std::hex << word << ")";
          return o.str();
        }
      }
    }
    return {};
  }

 private:
  // One observation per key of [from, to): the pair read, or absent.
  static void record_range(SeedRun& run, uint64_t from, uint64_t to,
                           const std::vector<std::pair<uint64_t, uint64_t>>& got, Nanos start, Nanos end,
                           const Placement& who) {
    size_t j = 0;
    for (uint64_t k = from; k < to; ++k) {
      while (j < got.size() && got[j].first < k) ++j;
      if (j < got.size() && got[j].first == k) run.map().get(k, got[j].second, start, end, who);
      else run.map().get(k, std::nullopt, start, end, who);
    }
    for (size_t i = 1; i < got.size(); ++i) {
      if (got[i - 1].first >= got[i].first) {
        std::ostringstream o;
        o << "a range [" << from << ", " << to << ") returned keys out of order or twice: " << got[i - 1].first
          << " then " << got[i].first;
        run.fail("range-order", o.str());
        return;
      }
    }
    for (const auto& [k, v] : got) {
      if (k < from || k >= to) {
        std::ostringstream o;
        o << "a range [" << from << ", " << to << ") returned key " << k;
        run.fail("range-bounds", o.str());
        return;
      }
    }
  }

  BuiltinOptions b_;
  sherman::Tree tree_;
  std::unique_ptr<smart::Runtime> runtime_;
};

}  // namespace

namespace builtin_detail {

std::string sherman_dry_run(const ClusterConfig& c, const BuiltinOptions& b) {
  SimBackend sim(c);
  const sherman::TreeConfig t = tree_config(b);
  if (std::string e = t.validate(); !e.empty()) return e;
  Result<sherman::Tree> tree = sherman::Tree::create(sim, t);
  if (!tree.ok()) {
    std::ostringstream o;
    o << "the tree does not fit: " << to_string(tree.status) << " (the check's memory nodes have "
      << c.memory_node_bytes << " bytes)";
    return o.str();
  }
  return {};
}

void sherman_prepare_cluster(const std::string& scheme, ClusterConfig* c) {
  // Two memory nodes at least: siblings and their parents land on different
  // nodes, so writes of one split cross queue pairs.
  if (c->memory_nodes < 2) c->memory_nodes = 2;
  sherman::TreeConfig ignored;
  const std::string preset = preset_of(scheme);
  LW_CHECK(sherman::apply_index_preset(preset, &ignored, c));
}

WorkloadFactory sherman_workload(const BuiltinOptions& b) {
  return [b] { return std::make_unique<ShermanWorkload>(b); };
}

}  // namespace builtin_detail
}  // namespace lw::check
