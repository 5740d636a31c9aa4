// The conformance suite's runner: the case registry, the record of
// mismatches, and running cases by name or filter.
#include "conformance/conformance.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "conformance_internal.h"

namespace lw {
namespace conformance {
namespace {

// A detail line lists this many mismatches; the rest are counted.
constexpr size_t kMaxReported = 4;

}  // namespace

void Check::fail(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  ++failure_count_;
  if (failures_.size() < kMaxReported) failures_.push_back(what);
}

void Check::skip(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (skip_.empty()) skip_ = why;
}

void Check::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  note_ = note_.empty() ? text : note_ + "; " + text;
}

bool Check::status(const std::string& what, Status seen, Status want) {
  if (seen == want) return true;
  fail(what + ": expected status " + std::string(to_string(want)) + ", saw " +
       std::string(to_string(seen)));
  return false;
}

bool Check::eq(const std::string& what, uint64_t seen, uint64_t want) {
  if (seen == want) return true;
  fail(what + ": expected " + hex(want) + ", saw " + hex(seen));
  return false;
}

bool Check::bytes(const std::string& what, const void* seen, const void* want, size_t n) {
  const auto* s = static_cast<const uint8_t*>(seen);
  const auto* w = static_cast<const uint8_t*>(want);
  size_t first = n, differing = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == w[i]) continue;
    if (first == n) first = i;
    ++differing;
  }
  if (differing == 0) return true;
  char buf[160];
  std::snprintf(buf, sizeof buf, ": byte %zu of %zu is 0x%02x, expected 0x%02x (%zu bytes differ)",
                first, n, s[first], w[first], differing);
  fail(what + buf);
  return false;
}

bool Check::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_count_ > 0;
}

bool Check::skipped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !skip_.empty();
}

std::string Check::detail() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_count_ == 0) return skip_.empty() ? note_ : skip_;
  std::string d;
  for (const std::string& f : failures_) d += (d.empty() ? "" : "; ") + f;
  if (failure_count_ > failures_.size())
    d += " (+" + std::to_string(failure_count_ - failures_.size()) + " more)";
  return d;
}

std::unique_ptr<Backend> Env::backend(const ClusterConfig& c) {
  std::string err;
  std::unique_ptr<Backend> b = make_backend(c, &err);
  if (!b) check.fail("cannot create the " + c.backend + " backend: " + err);
  return b;
}

RemoteAddr Env::alloc(Backend& b, NodeId node, uint64_t bytes, uint64_t align) {
  RemoteAddr a = b.allocate(node, bytes, align);
  if (a.is_null())
    check.fail("allocate(node " + std::to_string(node) + ", " + std::to_string(bytes) +
               " B) returned null");
  return a;
}

ClusterConfig Env::shape(uint32_t threads, uint32_t coroutines) const {
  ClusterConfig c = base;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  return c;
}

void fill_pattern(std::vector<uint8_t>* buf, uint64_t salt) {
  for (size_t i = 0; i < buf->size(); ++i) (*buf)[i] = pattern(salt, i);
}

Task<void> expect_usable(Worker& w, RemoteAddr scratch, Check& check, std::string after) {
  // A value no earlier probe wrote, so a stale READ cannot pass.
  const uint64_t v = 0x5a5a000000000000ull ^ w.rng().next() >> 16;
  uint64_t seen = 0;
  if (!check.status("WRITE after " + after, co_await w.write(scratch, &v, 8), Status::kOk))
    co_return;
  if (!check.status("READ after " + after, co_await w.read(&seen, scratch, 8), Status::kOk))
    co_return;
  check.eq("READ after " + after, seen, v);
}

Task<void> rendezvous(Worker& w, RemoteAddr start, uint64_t parties, Check& check) {
  constexpr int kMaxPolls = 20000;
  Result<uint64_t> r = co_await w.faa(start, 1);
  if (!check.status("rendezvous FAA", r.status, Status::kOk)) co_return;
  uint64_t arrived = r.value + 1;
  for (int i = 0; i < kMaxPolls && arrived < parties; ++i) {
    co_await w.sleep(2000);
    if (!check.status("rendezvous READ", co_await w.read(&arrived, start, 8), Status::kOk))
      co_return;
  }
}

namespace {

// Checks the reporting itself: expects what a WRITE did not write, so it
// must fail. Not listed; runnable by name for the tests.
void deliberate_mismatch(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  RemoteAddr x = env.alloc(*b, 0, 8, 8);
  if (x.is_null()) return;
  Check& check = env.check;
  b->spawn(at(0), [x, &check](Worker& w) -> Task<void> {
    const uint64_t v = 0x1234;
    uint64_t seen = 0;
    check.status("WRITE", co_await w.write(x, &v, 8), Status::kOk);
    check.status("READ", co_await w.read(&seen, x, 8), Status::kOk);
    check.eq("READ after WRITE (deliberately wrong expectation)", seen, v + 1);
  });
  require_within_budget(b->run());
}

const std::vector<CaseDef>& hidden_cases() {
  static const std::vector<CaseDef> cases = {
      {"selftest", "deliberate-mismatch", "a wrong expectation is reported as a failure",
       deliberate_mismatch},
  };
  return cases;
}

const std::vector<CaseDef>& all_defs() {
  static const std::vector<CaseDef> defs = [] {
    std::vector<CaseDef> d;
    for (auto part : {results_cases, ordering_cases, misuse_cases, concurrency_cases})
      for (const CaseDef& c : part()) d.push_back(c);
    return d;
  }();
  return defs;
}

const CaseDef* find_def(const std::string& name) {
  for (const auto* list : {&all_defs(), &hidden_cases()})
    for (const CaseDef& c : *list)
      if (name == c.name || name == std::string(c.group) + "/" + c.name) return &c;
  return nullptr;
}

}  // namespace
}  // namespace conformance

const char* to_string(ConformanceResult::Outcome o) {
  switch (o) {
    case ConformanceResult::kPass:
      return "PASS";
    case ConformanceResult::kFail:
      return "FAIL";
    case ConformanceResult::kSkip:
      return "SKIP";
  }
  return "?";
}

const std::vector<ConformanceCase>& conformance_cases() {
  static const std::vector<ConformanceCase> cases = [] {
    std::vector<ConformanceCase> v;
    for (const conformance::CaseDef& d : conformance::all_defs())
      v.push_back({d.name, d.group, d.what});
    return v;
  }();
  return cases;
}

ConformanceResult run_conformance_case(const ClusterConfig& base, const std::string& name,
                                       const std::string& replay_flags) {
  ConformanceResult r;
  const conformance::CaseDef* def = conformance::find_def(name);
  if (!def) {
    r.name = name;
    r.group = "?";
    r.outcome = ConformanceResult::kFail;
    r.detail =
        "no conformance case named \"" + name + "\" (latchwork conformance --list shows them)";
    return r;
  }
  r.name = def->name;
  r.group = def->group;
  conformance::Check check;
  conformance::Env env{base, check};
  set_replay_hint("replay: latchwork conformance --case " + r.full_name() +
                  (replay_flags.empty() ? " --backend " + base.backend + " --semantics " +
                                              base.semantics_profile + " --seed " + std::to_string(base.seed)
                                        : replay_flags));
  const auto start = std::chrono::steady_clock::now();
  def->run(env);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_replay_hint({});
  r.outcome = check.failed()    ? ConformanceResult::kFail
              : check.skipped() ? ConformanceResult::kSkip
                                : ConformanceResult::kPass;
  r.detail = check.detail();
  return r;
}

std::vector<ConformanceResult> run_conformance(const ClusterConfig& base,
                                               const std::string& filter) {
  std::vector<ConformanceResult> out;
  for (const ConformanceCase& c : conformance_cases())
    if (filter.empty() || c.full_name().find(filter) != std::string::npos)
      out.push_back(run_conformance_case(base, c.full_name()));
  return out;
}

}  // namespace lw
