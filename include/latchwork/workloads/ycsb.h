// YCSB-style key-value workloads (Cooper et al.; SMART §6.2.1): a load phase
// key set, then lookups and updates drawn from a mix over uniform or Zipf
// keys, and (SMART Table 1) a schedule of how many threads are active in each
// interval. Everything is decided by seeded Rng streams, so a run replays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/base/random.h"
#include "latchwork/base/zipf.h"

namespace lw::ycsb {

// SMART §6.2.1's three mixes, plus the 100%-update mix of Fig. 14.
enum class Mix : uint8_t { kWriteHeavy, kReadHeavy, kReadOnly, kUpdateOnly };
const char* to_string(Mix m);
bool parse_mix(const std::string& s, Mix* out);
// Updates per 100 operations: 50, 5, 0, 100.
uint32_t update_percent(Mix m);

enum class OpType : uint8_t { kLookup, kUpdate };
struct Op {
  OpType type = OpType::kLookup;
  uint64_t key = 0;  // never 0 (the hash table reserves it)
};

struct WorkloadSpec {
  Mix mix = Mix::kWriteHeavy;
  uint64_t keys = 1u << 20;  // records loaded; keys are 8 bytes, values 8 bytes
  double zipf = 0.99;        // 0 = uniform
  uint64_t seed = 1;         // decides the key scramble
  std::string validate() const;  // "" or a message naming the bad field
};

class Workload {
 public:
  explicit Workload(const WorkloadSpec& spec);
  const WorkloadSpec& spec() const { return spec_; }
  // The key of popularity rank r (0 = hottest). A seeded affine bijection of
  // [0, keys) so that hot keys are not neighbours (YCSB's scrambled Zipf):
  // the table hashes keys anyway, but a structure that does not must not see
  // its hottest keys packed into one line.
  uint64_t key_of_rank(uint64_t rank) const;
  // Every key of the load phase, in rank order.
  std::vector<uint64_t> load_keys() const;
  // The next operation from this worker's stream.
  Op next(Rng& rng) const;

 private:
  WorkloadSpec spec_;
  std::shared_ptr<const ZipfKeys> zipf_;
  uint64_t mul_ = 1, add_ = 0;  // rank -> (mul * rank + add) mod keys
};

// SMART Table 1: the bench changes how many threads run at regular intervals,
// between a minimum and a maximum; an inactive thread posts nothing for that
// interval. The schedule repeats after its last interval.
class ActiveSchedule {
 public:
  ActiveSchedule() = default;
  // `intervals` counts drawn uniformly in [min_active, max_active]; which
  // threads are active is a seeded random subset per interval.
  static ActiveSchedule make(uint32_t threads, uint32_t min_active, uint32_t max_active,
                             Nanos interval_ns, uint32_t intervals, uint64_t seed);
  static std::string validate(uint32_t threads, uint32_t min_active, uint32_t max_active,
                              Nanos interval_ns, uint32_t intervals);
  bool empty() const { return counts_.empty(); }
  Nanos interval_ns() const { return interval_ns_; }
  uint32_t intervals() const { return static_cast<uint32_t>(counts_.size()); }
  uint32_t interval_at(Nanos t) const;       // index at virtual time t (from 0)
  Nanos next_boundary(Nanos t) const;        // start of the interval after t's
  uint32_t active_count(uint32_t interval) const { return counts_.at(interval); }
  bool active(uint32_t thread, uint32_t interval) const;
  static constexpr uint32_t kMaxIntervals = 1u << 16;
  bool operator==(const ActiveSchedule&) const = default;

 private:
  Nanos interval_ns_ = 0;
  uint32_t threads_ = 0;
  std::vector<uint32_t> counts_;
  std::vector<uint8_t> active_;  // intervals x threads
};

}  // namespace lw::ycsb
