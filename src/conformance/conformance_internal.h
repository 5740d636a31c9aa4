// Internals of the conformance suite shared by its source files: the record
// of mismatches a case collects, the case environment, and small helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/base/hex.h"
#include "conformance/conformance.h"

namespace lw::conformance {

// What one case saw. Coroutines of the threads backend run on several OS
// threads, so every method locks.
class Check {
 public:
  // Records a mismatch; the case fails.
  void fail(const std::string& what);
  // Marks the case skipped (unless it also failed).
  void skip(const std::string& why);
  // A remark printed with a passing case.
  void note(const std::string& text);

  // Each records a mismatch unless `seen` equals `want`; returns whether equal.
  bool status(const std::string& what, Status seen, Status want);
  bool eq(const std::string& what, uint64_t seen, uint64_t want);  // shown in hex
  // Compares byte ranges; a mismatch names the first differing byte.
  bool bytes(const std::string& what, const void* seen, const void* want, size_t n);

  bool failed() const;
  bool skipped() const;
  std::string detail() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> failures_;
  size_t failure_count_ = 0;
  std::string skip_, note_;
};

// What a case runs with.
struct Env {
  const ClusterConfig& base;
  Check& check;

  // A fresh backend for `c`, or null with the failure recorded.
  std::unique_ptr<Backend> backend(const ClusterConfig& c);
  // Memory on `node`, or null with the failure recorded.
  RemoteAddr alloc(Backend& b, NodeId node, uint64_t bytes, uint64_t align = kCacheLine);
  // `base` with one compute thread of `coroutines` coroutines (more threads on request).
  ClusterConfig shape(uint32_t threads, uint32_t coroutines) const;
};

using CaseFn = void (*)(Env&);

struct CaseDef {
  const char* group;
  const char* name;
  const char* what;
  CaseFn run;
};

// The cases of each source file.
std::vector<CaseDef> results_cases();
std::vector<CaseDef> ordering_cases();
std::vector<CaseDef> misuse_cases();
std::vector<CaseDef> concurrency_cases();

using lw::hex;

// Coroutine `coroutine` of compute thread `thread` on compute node 0.
constexpr Placement at(uint32_t thread, uint32_t coroutine = 0) {
  return {Placement::Kind::kCompute, 0, thread, coroutine};
}

// A deterministic byte pattern: `salt` picks the pattern, `i` the byte.
inline uint8_t pattern(uint64_t salt, uint64_t i) {
  uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ (salt + 1) * 0xbf58476d1ce4e5b9ull;
  return static_cast<uint8_t>((x >> 29) ^ (x >> 47));
}
void fill_pattern(std::vector<uint8_t>* buf, uint64_t salt);

// Proves a worker's queue pair still works after a failed request: WRITEs a
// value to `scratch` (8 bytes) and READs it back.
Task<void> expect_usable(Worker& w, RemoteAddr scratch, Check& check, std::string after);

// Waits (bounded) until `parties` coroutines arrived at the word `start`, so
// that racing coroutines on threads that start at different times overlap.
// Giving up is not a failure: the case then checks a shorter race.
Task<void> rendezvous(Worker& w, RemoteAddr start, uint64_t parties, Check& check);

}  // namespace lw::conformance
