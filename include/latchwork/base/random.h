// The one source of randomness: xoshiro256** seeded through splitmix64.
//
// Every random decision of a run derives from the run's seed, so a seed replays
// the run exactly. Child generators (per coroutine, per experiment) are forked
// deterministically from a parent.
#pragma once

#include <cstdint>

namespace lw {

constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    uint64_t sm = seed;
    for (auto& w : s_) w = splitmix64(sm);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound); bound 0 yields 0. Lemire's multiply-shift.
  uint64_t below(uint64_t bound) {
    if (bound == 0) return 0;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }

  // Uniform in [lo, hi], inclusive.
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

  // True with probability p.
  bool chance(double p) { return uniform() < p; }

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // A new generator whose stream depends on this one's state and `salt`.
  Rng fork(uint64_t salt) { return Rng(next() ^ (salt * 0x9e3779b97f4a7c15ull)); }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// A rolling hash of decisions: two runs that made the same decisions in the
// same order print the same value.
class TraceHash {
 public:
  void mix(uint64_t v) {
    h_ ^= v + 0x9e3779b97f4a7c15ull + (h_ << 6) + (h_ >> 2);
    h_ *= 0x100000001b3ull;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace lw
