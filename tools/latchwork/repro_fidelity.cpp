// Reading `latchwork repro` output back (repro_fidelity.h).
#include "repro_fidelity.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lw::tool {

namespace {

constexpr uintmax_t kMaxResultBytes = 64ull << 20;  // a repro JSON is well under 1 MB
constexpr size_t kMaxFigures = 10'000;

// NaN for null (nlohmann writes NaN as null).
double number(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::string fmt_x(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// Appends "#2", "#3" to keys seen before, so that every key is unique.
std::string unique(std::map<std::string, int>* seen, const std::string& key) {
  const int n = ++(*seen)[key];
  return n == 1 ? key : key + "#" + std::to_string(n);
}

bool parse_figure(const std::filesystem::path& path, FigureValues* fig, std::string* error) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxResultBytes) {
    *error = "cannot read " + path.string() + (ec ? ": " + ec.message() : ": larger than 64 MB");
    return false;
  }
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("name") || !j.contains("paper") || !j.contains("series") ||
      !j["paper"].is_array() || !j["series"].is_object()) {
    *error = path.string() + " is not a latchwork repro result";
    return false;
  }
  fig->name = j["name"].get<std::string>();
  fig->paper = fig->name.substr(0, fig->name.find('-'));
  std::map<std::string, int> seen;
  for (const nlohmann::json& p : j["paper"]) {
    StatedValue v;
    std::string key = p.value("series", "");
    if (const std::string over = p.value("over_series", ""); !over.empty()) key += " / " + over;
    v.key = unique(&seen, key + " @ " + fmt_x(number(p["x"])));
    v.source = p.value("source", "");
    v.paper = number(p["paper_value"]);
    v.model = number(p["model_value"]);
    v.fitted = p.value("fitted", false);
    v.within = p.value("within_tolerance", false);
    fig->stated.push_back(std::move(v));
  }
  seen.clear();
  for (const auto& [series, points] : j["series"].items()) {
    for (const nlohmann::json& p : points) {
      const double x = p.contains("nominal_x") ? number(p["nominal_x"]) : number(p["x"]);
      fig->points[unique(&seen, series + " @ " + fmt_x(x))] = number(p["y"]);
    }
  }
  return true;
}

// A repro result JSON by its name alone (not a hidden or plot-side file).
bool looks_like_result(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  return p.extension() == ".json" && !n.empty() && n[0] != '.' && n.find(".png.") == std::string::npos;
}

}  // namespace

void Tally::add(const StatedValue& v) {
  ++stated;
  (v.fitted ? fitted : predicted) += 1;
  if (v.within) ++within;
  if (v.within && !v.fitted) ++predicted_within;
}

bool load_repro_dir(const std::filesystem::path& dir, const std::vector<std::string>& names,
                    std::vector<FigureValues>* out, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    *error = "no such folder: " + dir.string();
    return false;
  }
  std::vector<std::filesystem::path> files;
  if (names.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (files.size() >= kMaxFigures) break;
      if (e.is_regular_file() && looks_like_result(e.path())) files.push_back(e.path());
    }
    if (ec) {
      *error = "cannot list " + dir.string() + ": " + ec.message();
      return false;
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      *error = "no repro results (*.json) in " + dir.string();
      return false;
    }
  } else {
    for (const std::string& n : names) files.push_back(dir / (n + ".json"));
  }
  for (const auto& f : files) {
    FigureValues fig;
    if (!parse_figure(f, &fig, error)) return false;
    out->push_back(std::move(fig));
  }
  return true;
}

std::map<std::string, Tally> tally_by_paper(const std::vector<FigureValues>& figures) {
  std::map<std::string, Tally> t;
  t["all"];
  for (const FigureValues& f : figures) {
    for (const StatedValue& v : f.stated) {
      t[f.paper].add(v);
      t["all"].add(v);
    }
  }
  return t;
}

std::string totals_line(const std::map<std::string, Tally>& t) {
  const Tally& all = t.at("all");
  std::ostringstream s;
  s << "fidelity: " << all.predicted_within << " of " << all.predicted << " predicted values within tolerance";
  if (all.predicted > 0)
    s << " (" << static_cast<int>(std::lround(100.0 * all.predicted_within / all.predicted)) << "%)";
  s << "; by paper";
  for (const auto& [paper, v] : t)
    if (paper != "all") s << ' ' << paper << ' ' << v.predicted_within << '/' << v.predicted;
  s << "; all stated values " << all.within << '/' << all.stated << " (fitted " << all.within - all.predicted_within
    << '/' << all.fitted << ')';
  return s.str();
}

}  // namespace lw::tool
