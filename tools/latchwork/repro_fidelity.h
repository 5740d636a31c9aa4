// The model's standing against the papers, read back from `latchwork repro`
// output folders (<figure>.json): the stated values, their verdicts, the
// totals by paper (printed at the end of `repro`, compared by `repro diff`).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lw::tool {

// One value a paper states, with the model's value and verdict.
struct StatedValue {
  std::string key;      // "series[/over]@x", unique within its figure
  std::string source;
  double paper = 0, model = 0;
  bool fitted = false, within = false;
};

struct FigureValues {
  std::string name;     // "sherman-fig16"
  std::string paper;    // "sherman" (the name up to its first '-')
  std::vector<StatedValue> stated;
  std::map<std::string, double> points;  // "series@x" (unique) -> plotted y
};

struct Tally {
  size_t stated = 0, fitted = 0, predicted = 0, within = 0, predicted_within = 0;
  void add(const StatedValue& v);
};

// Reads <dir>/<name>.json for each name, or every repro result JSON of the
// folder when `names` is empty (sorted by name). False and *error when the
// folder or a named file is missing or one is not a repro result.
bool load_repro_dir(const std::filesystem::path& dir, const std::vector<std::string>& names,
                    std::vector<FigureValues>* out, std::string* error);

// Per paper (sorted), and "all".
std::map<std::string, Tally> tally_by_paper(const std::vector<FigureValues>& figures);
// "fidelity: 93 of 215 predicted values within tolerance (43%) | alock 1/9 ... | all stated 106/229"
std::string totals_line(const std::map<std::string, Tally>& t);

}  // namespace lw::tool
