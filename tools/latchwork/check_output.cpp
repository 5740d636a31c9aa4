#include "check_output.h"

#include <cstdio>
#include <map>
#include <set>
#include <vector>

namespace lw::tool {
namespace {

// Failures first (up to `show`), then one report, so that a correct
// scheme's starvation is seen without drowning a negative control's bugs.
std::vector<const check::Finding*> shown(const check::Report& r, size_t show) {
  std::vector<const check::Finding*> v;
  for (const check::Finding& f : r.findings)
    if (f.failure && v.size() < show) v.push_back(&f);
  if (show > 0)
    for (const check::Finding& f : r.findings)
      if (!f.failure) {
        v.push_back(&f);
        break;
      }
  return v;
}

// The relaxation named by a cause ("read_lines_unordered: READ ...").
std::string relaxation_of(const std::string& cause) {
  return cause.substr(0, cause.find_first_of(": "));
}

// Per relaxation, the kept failing findings whose causes name it.
std::map<std::string, uint64_t> by_relaxation(const check::Report& r) {
  std::map<std::string, uint64_t> m;
  for (const check::Finding& f : r.findings) {
    if (!f.failure) continue;
    std::set<std::string> names;
    for (const std::string& c : f.causes) names.insert(relaxation_of(c));
    if (names.empty()) names.insert("(none)");
    for (const std::string& n : names) ++m[n];
  }
  return m;
}

std::string verdict(const CheckRun& run) {
  const bool correct = expected_correct(run);
  const check::Report& r = run.report;
  std::string v = r.failing_seeds == 0 ? (correct ? "ok" : "no violation found (expected some)")
                                       : (correct ? "VIOLATIONS" : "violations found, as expected");
  if (correct != run.info->correct)
    v += " (failed_cas_writes_back: a failed CAS's write-back loses this scheme's freeing WRITE)";
  if (r.reports_total > 0) v += "; " + std::to_string(r.reports_total) + " seed(s) starved (a report)";
  return v;
}

}  // namespace

std::string check_hex(uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool expected_correct(const CheckRun& run) { return run.info->correct_under(run.options.cluster.semantics); }

uint64_t check_failures(const check::Report& r) { return r.findings_total - r.reports_total; }

void print_check_header() {
  std::printf("%-26s %-8s %7s %9s %10s %9s %8s  %s\n", "scheme", "correct", "seeds", "ops", "bad seeds",
              "findings", "starved", "verdict");
}

void print_check_text(const CheckRun& run, size_t show) {
  const check::Report& r = run.report;
  std::printf("%-26s %-8s %7llu %9llu %10llu %9llu %8llu  %s\n", run.info->scheme.c_str(),
              expected_correct(run) ? "yes" : "no", static_cast<unsigned long long>(r.seeds_run),
              static_cast<unsigned long long>(r.ops), static_cast<unsigned long long>(r.failing_seeds),
              static_cast<unsigned long long>(check_failures(r)), static_cast<unsigned long long>(r.reports_total),
              verdict(run).c_str());
  if (r.failing_seeds > 0) {
    std::string rels;
    for (const auto& [rel, n] : by_relaxation(r)) rels += " " + rel + "=" + std::to_string(n);
    std::printf("    by relaxation (kept findings):%s\n", rels.c_str());
  }
  // Every finding of the sweep, kept or not: a noisy seed's are counted here.
  if (!r.kinds.empty()) {
    std::string kinds;
    for (const auto& [k, n] : r.kinds) kinds += " " + k + "=" + std::to_string(n);
    std::printf("    by kind (whole sweep):%s; %llu seed(s) explained\n", kinds.c_str(),
                static_cast<unsigned long long>(r.explained_seeds));
  }
  // Injected crashes (--crashes): how many happened and what they left.
  if (r.crashed_seeds > 0) {
    std::string left;
    for (const auto& [what, n] : r.crash_left) left += " " + what + "=" + std::to_string(n) + ";";
    std::printf("    crashes: %llu seed(s) crashed; left:%s\n", static_cast<unsigned long long>(r.crashed_seeds),
                left.c_str());
  }
  for (const check::Finding* f : shown(r, show)) {
    std::printf("    seed %llu: %s%s: %s\n", static_cast<unsigned long long>(f->seed), f->kind.c_str(),
                f->failure ? "" : " (report)", f->detail.c_str());
    if (f->explained) std::printf("      needs %s (ablation)\n", f->explanation().c_str());
    for (size_t i = 0; i < f->causes.size() && i < 3; ++i)
      std::printf("      caused by %s\n", f->causes[i].c_str());
    for (const std::string& b : f->blocked) std::printf("      blocked: %s\n", b.c_str());
    if (!f->crash.empty()) std::printf("      crash: %s\n", f->crash.c_str());
    std::printf("      replay: %s\n", f->replay.c_str());
  }
  if (!run.trace.empty()) std::printf("%s", run.trace.c_str());
}

nlohmann::json check_json(const CheckRun& run, size_t show) {
  const check::Report& r = run.report;
  const check::Options& o = run.options;
  const check::Shape& s = o.shape;
  nlohmann::json j = {{"structure", run.info->structure}, {"scheme", run.info->scheme},
                      {"correct", expected_correct(run)}, {"seeds", r.seeds_run}, {"first_seed", o.first_seed},
                      {"ops", r.ops}, {"bad_seeds", r.failing_seeds}, {"findings", check_failures(r)},
                      {"starved_seeds", r.reports_total}, {"semantics", o.cluster.semantics_profile},
                      {"swarm", o.swarm}, {"by_relaxation", by_relaxation(r)},
                      {"kinds", r.kinds}, {"explained_seeds", r.explained_seeds},
                      {"crashed_seeds", r.crashed_seeds}, {"crash_left", r.crash_left},
                      {"shape", {{"compute_nodes", s.compute_nodes}, {"threads", s.threads_per_node},
                                 {"coroutines", s.coroutines_per_thread},
                                 {"memory_node_threads", s.memory_node_threads}, {"ops", s.ops_per_worker}}},
                      {"trace_hash", check_hex(r.trace_hash)}, {"verdict", verdict(run)}};
  nlohmann::json list = nlohmann::json::array();
  for (const check::Finding* f : shown(r, show)) {
    nlohmann::json x = {{"seed", f->seed}, {"kind", f->kind}, {"detail", f->detail}, {"failure", f->failure},
                        {"explained", f->explained}, {"explanation", f->explanation()},
                        {"necessary", f->necessary}, {"sufficient", f->sufficient},
                        {"protocol_bug", f->protocol_bug}, {"causes", f->causes}, {"blocked", f->blocked},
                        {"plan", f->plan.describe()}, {"replay", f->replay}, {"crash", f->crash},
                        {"trace_hash", check_hex(f->trace_hash)}};
    list.push_back(std::move(x));
  }
  j["examples"] = list;
  if (!run.trace.empty()) j["trace"] = run.trace;
  return j;
}

}  // namespace lw::tool
