// The RACE hash table (structures/race) as a check workload: workers look
// up, insert, update and remove a few keys through a smart::Context, so that
// inserts of one absent key race (duplicate resolution), updates race
// updates and removes, and lookups follow slots to blocks just published.
// Every put stores a value unique to it; the map model checks lookups
// (absent keys included) and the final contents, read by a full scan of the
// buckets that also checks no key is in two slots.
//
// Schemes: race (runtime policies off), smart-ht (throttling, backoff,
// dynamic limit and coroutine throttling on: SMART-HT), unordered-publish
// (a negative control: the slot CAS does not wait for the block's WRITE).
#include <optional>
#include <sstream>

#include "builtin_internal.h"
#include "latchwork/check/history.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/race/hash_table.h"

namespace lw::check {
namespace {

race::TableConfig table_config(const BuiltinOptions& b) {
  race::TableConfig t;
  // Few keys in a small table: keys share buckets, so inserts of different
  // keys also race for the same empty slots.
  t.capacity = uint64_t{b.keys} * 2 + 16;
  t.max_attempts = b.max_attempts;
  t.block_chunk_bytes = 16u << 10;
  t.variant = b.scheme == "unordered-publish" ? race::Variant::kUnorderedPublish : race::Variant::kCorrect;
  return t;
}

class HashWorkload final : public Workload {
 public:
  explicit HashWorkload(BuiltinOptions b) : b_(std::move(b)) {}

  void setup(SeedRun& run) override {
    Result<race::HashTable> t = race::HashTable::create(run.backend(), table_config(b_));
    if (!t.ok()) {
      run.fail("setup", std::string("creating the table failed: ") + std::string(to_string(t.status)));
      return;
    }
    table_ = std::move(t.value);
    runtime_ = std::make_unique<smart::Runtime>(run.config());
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    if (!table_.valid()) co_return;
    smart::Context ctx(*runtime_, w);
    const uint32_t me = run.worker_index(w);
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t key = w.rng().below(b_.keys) + 1;  // keys 1..keys (0 marks nothing)
      const uint64_t value = (uint64_t{me} + 1) << 32 | (i + 1);  // unique per put
      const Placement who = w.placement();
      const Nanos start = w.now();
      const char* what = "a lookup";
      Status s;
      if (w.rng().below(100) < b_.read_percent) {
        Result<race::HashTable::Found> r = co_await table_.lookup(ctx, key);
        s = r.status;
        if (r.ok()) run.map().get(key, r.value.found ? std::optional(r.value.value) : std::nullopt, start, w.now(), who);
      } else {
        // Writes: 40% insert (or update when present), 30% update, 30% remove.
        const uint64_t pick = w.rng().below(10);
        // A put or erase of a worker the crash stops may still land.
        if (run.crash() != nullptr && pick < 10) {
          const bool erase = pick >= 7;
          run.in_flight(w, [&run, key, value, start, who, erase](Nanos end) {
            if (erase) run.map().erase(key, start, end, who, false);
            else run.map().put(key, value, start, end, who, false);
          });
        }
        if (pick < 4) {
          what = "an insert";
          Result<bool> r = co_await table_.insert(ctx, key, value);
          s = r.status;
          run.map().put(key, value, start, w.now(), who, r.ok());
        } else if (pick < 7) {
          what = "an update";
          Result<bool> r = co_await table_.update(ctx, key, value);
          s = r.status;
          if (!r.ok()) run.map().put(key, value, start, w.now(), who, false);
          else if (r.value) run.map().put(key, value, start, w.now(), who);
          else run.map().get(key, std::nullopt, start, w.now(), who);  // it found the key absent
        } else {
          what = "a remove";
          Result<bool> r = co_await table_.remove(ctx, key);
          s = r.status;
          run.map().erase(key, start, w.now(), who, r.ok());
        }
      }
      if (s == Status::kRetryExhausted) {
        std::ostringstream o;
        o << what << " of key " << key << " after " << b_.max_attempts << " CAS attempts";
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
    if (!table_.valid()) return;
    std::string why;
    Result<std::map<uint64_t, uint64_t>> c = table_.host_contents(run.backend(), &why);
    if (!c.ok()) {
      run.fail("corrupt-table", why);
      return;
    }
    run.map().final_contents({c.value.begin(), c.value.end()});
  }

  // Lock-free: no word is ever held, so operations that gave up only starved.

 private:
  BuiltinOptions b_;
  race::HashTable table_;
  std::unique_ptr<smart::Runtime> runtime_;
};

}  // namespace

namespace builtin_detail {

std::string hash_dry_run(const ClusterConfig& c, const BuiltinOptions& b) {
  SimBackend sim(c);
  if (std::string e = table_config(b).validate(); !e.empty()) return e;
  Result<race::HashTable> t = race::HashTable::create(sim, table_config(b));
  if (!t.ok()) {
    std::ostringstream o;
    o << "the hash table does not fit: " << to_string(t.status) << " (the check's memory nodes have "
      << c.memory_node_bytes << " bytes)";
    return o.str();
  }
  return {};
}

void hash_prepare_cluster(const std::string& scheme, ClusterConfig* c) {
  // Blocks go to the memory node after their slot's: two nodes at least,
  // so that publishing crosses queue pairs.
  if (c->memory_nodes < 2) c->memory_nodes = 2;
  const bool smart = scheme == "smart-ht";
  c->smart.throttling = smart;
  c->smart.backoff = smart;
  c->smart.dynamic_limit = smart;
  c->smart.coroutine_throttling = smart;
}

WorkloadFactory hash_workload(const BuiltinOptions& b) {
  return [b] { return std::make_unique<HashWorkload>(b); };
}

}  // namespace builtin_detail
}  // namespace lw::check
