// The litmus tests' programs for the exhaustive explorer (sim/explore.h).
// The same programs as litmus.cpp without the random start delays: the
// explorer itself tries every interleaving, so the outcomes it finds are all
// the contract allows, and a forbidden outcome it never reaches is proved
// impossible (within the explorer's model of the contract).
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>

#include "litmus/litmus.h"

namespace lw {
namespace {

using Sink = std::function<void(const std::string&)>;

// What a program's workers share with its final check; reset by set-up.
struct Shared {
  RemoteAddr x, y;
  std::array<uint64_t, 16> a{}, b{};
};

constexpr Placement compute(uint32_t node) { return {Placement::Kind::kCompute, node, 0, 0}; }

std::string bits(bool x, bool y) { return std::string(1, x ? '1' : '0') + (y ? '1' : '0'); }

// A two-worker program on one memory node; `body` is worker i's code,
// `label` the outcome from the shared state and final memory.
explore::Spec spec(std::vector<Placement> workers, uint64_t x_bytes, uint64_t x_init,
                   std::function<Task<void>(Worker&, uint32_t, Shared&)> body,
                   std::function<std::string(Backend&, Shared&)> label, Sink sink) {
  auto sh = std::make_shared<Shared>();
  explore::Spec s;
  s.workers = std::move(workers);
  s.setup = [sh, x_bytes, x_init](Backend& b) {
    *sh = Shared{};
    sh->x = b.allocate(0, x_bytes);
    sh->y = b.allocate(0, 64);
    if (x_init != 0) b.host_store(sh->x, x_init);
  };
  s.program = [sh, body](Worker& w, uint32_t i) { return body(w, i, *sh); };
  s.final_check = [sh, label, sink](Backend& b) {
    sink(label(b, *sh));
    return std::string();
  };
  return s;
}

Task<void> write_ones(Worker& w, RemoteAddr x, uint32_t bytes) {
  std::vector<uint64_t> ones(bytes / 8, 1);
  LW_CHECK(ok(co_await w.write(x, ones.data(), bytes)));
}

std::map<std::string, LitmusProgram> programs() {
  std::map<std::string, LitmusProgram> p;
  p["line_atomic"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 64, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) co_await write_ones(w, s.x, 64);
          else LW_CHECK(ok(co_await w.read(s.a.data(), s.x, 64)));
        },
        [](Backend&, Shared& s) {
          const auto all = [&](uint64_t v) { return std::all_of(s.a.begin(), s.a.begin() + 8, [v](uint64_t x) { return x == v; }); };
          return std::string(all(0) ? "old" : all(1) ? "new" : "torn");
        }, out);
  };
  p["read_line_order"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 128, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            static const std::array<uint64_t, 8> one = {1, 1, 1, 1, 1, 1, 1, 1};
            Batch b;  // line 1, then line 0, on one queue pair
            b.write(s.x + 64, one.data(), 64);
            b.write(s.x, one.data(), 64);
            LW_CHECK(ok(co_await w.execute(b)));
          } else {
            LW_CHECK(ok(co_await w.read(s.a.data(), s.x, 128)));
          }
        },
        [](Backend&, Shared& s) { return bits(s.a[0] == 1, s.a[8] == 1); }, out);
  };
  p["write_prefix"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 1024, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            co_await write_ones(w, s.x, 1024);
          } else {
            Batch reads;
            reads.read(&s.a[0], s.x, 8);
            reads.read(&s.b[0], s.x + 15 * 64, 8).fence = true;
            LW_CHECK(ok(co_await w.execute(reads)));
          }
        },
        [](Backend&, Shared& s) { return bits(s.a[0] == 1, s.b[0] == 1); }, out);
  };
  p["write_address_order"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 128, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            co_await write_ones(w, s.x, 128);
          } else {
            LW_CHECK(ok(co_await w.read(s.b.data(), s.x + 64, 64)));
            LW_CHECK(ok(co_await w.read(s.a.data(), s.x, 64)));
          }
        },
        [](Backend&, Shared& s) { return bits(s.b[0] == 1, s.a[0] == 1); }, out);
  };
  p["atomic_loses_write"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 8, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            LW_CHECK((co_await w.faa(s.x, 1)).ok());
          } else {
            const uint64_t v = 100;
            LW_CHECK(ok(co_await w.write(s.x, &v, 8)));
          }
        },
        [](Backend& b, Shared& s) { return std::to_string(b.host_load(s.x)); }, out);
  };
  p["failed_cas_writes_back"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 8, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            LW_CHECK((co_await w.cas(s.x, 5, 7)).ok());  // x is 0 or 100: it fails
          } else {
            const uint64_t v = 100;
            LW_CHECK(ok(co_await w.write(s.x, &v, 8)));
          }
        },
        [](Backend& b, Shared& s) { return std::to_string(b.host_load(s.x)); }, out);
  };
  p["atomic_loses_cpu"] = [](Sink out) {
    return spec({compute(0), {Placement::Kind::kMemory, 0, 0, 0}}, 8, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) LW_CHECK((co_await w.faa(s.x, 1)).ok());
          else LW_CHECK((co_await w.cpu_faa(s.x, 1)).ok());
        },
        [](Backend& b, Shared& s) { return std::to_string(b.host_load(s.x)); }, out);
  };
  p["nic_atomics_atomic"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 8, 0,
        [](Worker& w, uint32_t, Shared& s) -> Task<void> { LW_CHECK((co_await w.faa(s.x, 1)).ok()); },
        [](Backend& b, Shared& s) { return std::to_string(b.host_load(s.x)); }, out);
  };
  for (bool fence : {false, true}) {
    p[fence ? "read_fenced" : "read_overtaken"] = [fence](Sink out) {
      return spec({compute(0)}, 8, 0,
          [fence](Worker& w, uint32_t, Shared& s) -> Task<void> {
            static const uint64_t one = 1;
            Batch b;
            b.read(&s.a[0], s.x, 8);
            b.write(s.x, &one, 8).fence = fence;
            LW_CHECK(ok(co_await w.execute(b)));
          },
          [](Backend&, Shared& s) { return std::to_string(s.a[0]); }, out);
    };
  }
  p["reads_unordered"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 64, 0,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            static const uint64_t one = 1;
            Batch b;  // one queue pair: x lands before y
            b.write(s.x, &one, 8);
            b.write(s.y, &one, 8);
            LW_CHECK(ok(co_await w.execute(b)));
          } else {
            Batch b;
            b.read(&s.a[0], s.y, 8);
            b.read(&s.b[0], s.x, 8);
            LW_CHECK(ok(co_await w.execute(b)));
          }
        },
        [](Backend&, Shared& s) { return bits(s.a[0] == 1, s.b[0] == 1); }, out);
  };
  p["atomic_before_later"] = [](Sink out) {
    return spec({compute(0)}, 8, 0,
        [](Worker& w, uint32_t, Shared& s) -> Task<void> {
          s.a[0] = 7;
          Batch b;
          b.faa(s.x, 1);
          b.read(&s.a[0], s.x, 8);
          LW_CHECK(ok(co_await w.execute(b)));
        },
        [](Backend&, Shared& s) { return std::to_string(s.a[0]); }, out);
  };
  p["masked_fields"] = [](Sink out) {
    return spec({compute(0), compute(1)}, 8, 0x00000005FFFFFFFFull,
        [](Worker& w, uint32_t i, Shared& s) -> Task<void> {
          if (i == 0) {
            LW_CHECK((co_await w.masked_faa(s.x, 1, (uint64_t{1} << 31) | (uint64_t{1} << 63))).ok());
          } else {
            const uint64_t high = 0xFFFFFFFF00000000ull;
            LW_CHECK((co_await w.masked_cas(s.x, uint64_t{5} << 32, uint64_t{9} << 32, high, high)).ok());
          }
        },
        [](Backend& b, Shared& s) {
          return std::string(b.host_load(s.x) == 0x0000000900000000ull ? "fields-kept" : "fields-mixed");
        }, out);
  };
  p["write_payload_late"] = [](Sink out) {
    // The WRITE is unsignaled; the writer changes its source after a yield,
    // then awaits a READ on the same queue pair, which completes the WRITE.
    return spec({compute(0)}, 64, 0,
        [](Worker& w, uint32_t, Shared& s) -> Task<void> {
          uint64_t v = 1, sink = 0;
          Batch b;
          b.write(s.x, &v, 8);
          LW_CHECK(ok(w.post(b)));
          co_await w.sleep(1);
          v = 2;
          LW_CHECK(ok(co_await w.read(&sink, s.x + 8, 8)));
        },
        [](Backend& b, Shared& s) { return std::to_string(b.host_load(s.x)); }, out);
  };
  return p;
}

}  // namespace

const LitmusProgram* litmus_exhaustive_program(const std::string& test) {
  static const std::map<std::string, LitmusProgram> all = programs();
  auto it = all.find(test);
  return it == all.end() ? nullptr : &it->second;
}

LitmusExhaustiveReport run_litmus_exhaustive(const LitmusTest& test, const std::string& profile,
                                             const Semantics& sem) {
  const LitmusProgram* program = litmus_exhaustive_program(test.name);
  LW_CHECK_MSG(program != nullptr, "litmus test " + test.name + " has no exhaustive form");
  std::set<std::string> found;
  explore::Spec s = (*program)([&found](const std::string& o) { found.insert(o); });
  s.name = test.name;
  s.semantics = sem;
  const explore::Result r = explore::run(s);
  LitmusExhaustiveReport rep;
  rep.test = test.name;
  rep.profile = profile;
  rep.outcomes.assign(found.begin(), found.end());
  rep.complete = r.complete;
  rep.states = r.states;
  rep.transitions = r.transitions;
  rep.wall_seconds = r.wall_seconds;
  if (!r.violation.empty()) rep.explorer_issue = r.violation;
  else if (!r.bound.empty()) rep.explorer_issue = "stopped at " + r.bound;
  for (const std::string& o : found)
    if (!test.allowed(o, sem)) rep.violations.push_back(o);
  if (r.complete) {
    for (const std::string& o : test.allowed_outcomes(sem))
      if (!found.count(o)) rep.missing.push_back(o);
    for (const std::string& o : test.forbidden)
      if (!found.count(o)) rep.forbidden_impossible.push_back(o);
  }
  return rep;
}

}  // namespace lw
