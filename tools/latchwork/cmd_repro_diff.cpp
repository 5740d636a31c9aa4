// `latchwork repro diff OLD_DIR NEW_DIR`: what a change to the model did to
// the figures, from two `repro --out` folders: stated values that entered or
// left their tolerance, values that moved more than a threshold, the totals
// before and after. Exit 1 when anything changed, so scripts can gate on it.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "cluster_flags.h"
#include "commands.h"
#include "repro_fidelity.h"

namespace lw::tool {

namespace {

constexpr size_t kMaxPrintedPoints = 40;  // plotted points moved: the rest are counted

// Relative move of a value; NaN (a failed run) to NaN is no move.
double moved(double before, double after) {
  if (std::isnan(before) && std::isnan(after)) return 0;
  if (std::isnan(before) || std::isnan(after)) return INFINITY;
  if (before == after) return 0;
  return std::fabs(after - before) / std::max(std::fabs(before), 1e-12);
}

nlohmann::json tally_json(const std::map<std::string, Tally>& t) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [paper, v] : t)
    j[paper] = {{"stated", v.stated},         {"fitted", v.fitted}, {"predicted", v.predicted},
                {"within", v.within},         {"predicted_within", v.predicted_within}};
  return j;
}

}  // namespace

int cmd_repro_diff(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork repro diff OLD_DIR NEW_DIR",
                 "Compares two `latchwork repro --out` folders (e.g. of main and of a change to the "
                 "model): lists every value a paper states that entered or left its tolerance, every "
                 "stated value whose model value moved by more than --threshold, the plotted points "
                 "that moved by more than --threshold, figures found in one folder only, and the "
                 "totals (within tolerance, by paper) before and after. Exit status: 0 nothing "
                 "changed, 1 something changed, 2 bad usage (a folder missing or holding no results).");
  double threshold = 0.05;
  bool json = false;
  f.add_double("threshold", &threshold, "relative change of a value that counts as moved (0.05: 5%)", 0, 1e9);
  f.add_bool("json", &json, "print the differences as JSON (for scripts)");
  // Not parse_or_exit: the two folders are positional arguments.
  if (std::string e = f.parse(argc, argv); !e.empty()) return usage_error(f, e);
  if (f.help_requested()) {
    std::printf("%s", f.help_text().c_str());
    return kExitOk;
  }
  if (f.positional().size() != 2) return usage_error(f, "give two folders: OLD_DIR NEW_DIR");
  std::vector<FigureValues> before, after;
  std::string err;
  if (!load_repro_dir(f.positional()[0], {}, &before, &err) || !load_repro_dir(f.positional()[1], {}, &after, &err))
    return usage_error(f, err);

  nlohmann::json out = {{"old", f.positional()[0]}, {"new", f.positional()[1]}, {"threshold", threshold}};
  nlohmann::json entered = nlohmann::json::array(), left = nlohmann::json::array(), stated_moved = nlohmann::json::array(),
                 points_moved = nlohmann::json::array(), only_old = nlohmann::json::array(), only_new = nlohmann::json::array();
  std::map<std::string, const FigureValues*> old_by_name;
  for (const FigureValues& fig : before) old_by_name[fig.name] = &fig;
  std::set<std::string> new_names;
  for (const FigureValues& fig : after) {
    new_names.insert(fig.name);
    auto it = old_by_name.find(fig.name);
    if (it == old_by_name.end()) {
      only_new.push_back(fig.name);
      continue;
    }
    const FigureValues& old = *it->second;
    std::map<std::string, const StatedValue*> old_stated;
    for (const StatedValue& v : old.stated) old_stated[v.key] = &v;
    for (const StatedValue& v : fig.stated) {
      auto o = old_stated.find(v.key);
      const nlohmann::json row = {{"figure", fig.name}, {"value", v.key}, {"paper", v.paper},
                                  {"old_model", o == old_stated.end() ? NAN : o->second->model},
                                  {"new_model", v.model}, {"fitted", v.fitted}, {"source", v.source}};
      if (o == old_stated.end()) {
        (v.within ? entered : left).push_back(row);  // a value new to the figure
      } else if (o->second->within != v.within) {
        (v.within ? entered : left).push_back(row);
      } else if (moved(o->second->model, v.model) > threshold) {
        stated_moved.push_back(row);
      }
    }
    for (const auto& [key, y] : fig.points) {
      auto o = old.points.find(key);
      const double m = o == old.points.end() ? INFINITY : moved(o->second, y);
      if (m > threshold)
        points_moved.push_back({{"figure", fig.name}, {"point", key},
                                {"old", o == old.points.end() ? NAN : o->second}, {"new", y}});
    }
  }
  for (const FigureValues& fig : before)
    if (!new_names.count(fig.name)) only_old.push_back(fig.name);
  const auto t_old = tally_by_paper(before), t_new = tally_by_paper(after);
  const bool changed = !entered.empty() || !left.empty() || !stated_moved.empty() || !points_moved.empty() ||
                       !only_old.empty() || !only_new.empty();
  if (json) {
    out["entered_tolerance"] = entered;
    out["left_tolerance"] = left;
    out["stated_moved"] = stated_moved;
    out["points_moved"] = points_moved;
    out["figures_only_old"] = only_old;
    out["figures_only_new"] = only_new;
    out["totals"] = {{"old", tally_json(t_old)}, {"new", tally_json(t_new)}};
    out["changed"] = changed;
    std::printf("%s\n", out.dump(2).c_str());
    return changed ? kExitCheckFailed : kExitOk;
  }
  auto print_rows = [](const char* what, const nlohmann::json& rows) {
    if (rows.empty()) return;
    std::printf("%s (%zu):\n", what, rows.size());
    for (const auto& r : rows)
      std::printf("  %-16s %-44s paper %-9.4g model %9.4g -> %-9.4g %s\n", r["figure"].get<std::string>().c_str(),
                  r["value"].get<std::string>().c_str(), r["paper"].get<double>(),
                  r["old_model"].is_number() ? r["old_model"].get<double>() : NAN, r["new_model"].get<double>(),
                  r["fitted"].get<bool>() ? "fitted" : "predicted");
  };
  print_rows("entered tolerance", entered);
  print_rows("left tolerance", left);
  char moved_title[96];
  std::snprintf(moved_title, sizeof moved_title, "stated values moved more than %g%%", threshold * 100);
  print_rows(moved_title, stated_moved);
  if (!points_moved.empty()) {
    std::printf("plotted points moved more than %g%% (%zu):\n", threshold * 100, points_moved.size());
    for (size_t i = 0; i < points_moved.size() && i < kMaxPrintedPoints; ++i) {
      const auto& p = points_moved[i];
      std::printf("  %-16s %-44s %9.4g -> %.4g\n", p["figure"].get<std::string>().c_str(),
                  p["point"].get<std::string>().c_str(), p["old"].is_number() ? p["old"].get<double>() : NAN,
                  p["new"].is_number() ? p["new"].get<double>() : NAN);
    }
    if (points_moved.size() > kMaxPrintedPoints)
      std::printf("  ... and %zu more (--json lists all)\n", points_moved.size() - kMaxPrintedPoints);
  }
  for (const auto& n : only_old) std::printf("figure only in %s: %s\n", f.positional()[0].c_str(), n.get<std::string>().c_str());
  for (const auto& n : only_new) std::printf("figure only in %s: %s\n", f.positional()[1].c_str(), n.get<std::string>().c_str());
  std::printf("before: %s\nafter:  %s\n", totals_line(t_old).c_str(), totals_line(t_new).c_str());
  std::printf("%s\n", changed ? "changed" : "no change: every stated value kept its verdict and no value moved past the threshold");
  return changed ? kExitCheckFailed : kExitOk;
}

}  // namespace lw::tool
