// Drawing a PNG from a repro-style result JSON with tools/plot/plot_repro.py
// (the script `latchwork repro` uses), for commands other than repro.
#pragma once

#include <string>
#include <vector>

namespace lw::tool {

// The plot script compiled in (LW_PLOT_SCRIPT) and the Python that runs it.
std::string default_plot_script();
std::string default_python();
// Writes `json` to `png_path` + ".json" and runs `python script json png`
// (an argument vector, no shell). Returns "" or what went wrong.
std::string plot_json(const std::string& json, const std::string& png_path,
                      const std::string& python = default_python(),
                      const std::string& script = default_plot_script());

// `latchwork <command> --png FILE` after its run: draws `json` to `png`, then
// prints "wrote ..." (unless the report went to stdout as JSON) or the failure
// on stderr. Returns false when nothing was drawn: the command exits with 1.
bool draw_png(const std::string& command, const std::string& json, const std::string& png,
              bool json_to_stdout);
// Runs a program (an argument vector, no shell; looked up on PATH) and waits
// for it. Returns "" or what went wrong ("exited with N", ...).
std::string run_program(const std::vector<std::string>& args);
// Writes <out_dir>/report.html for these figures (their JSON and PNG files in
// out_dir) with tools/plot/repro_report.py, beside the plot script. "" or
// what went wrong.
std::string write_repro_report(const std::string& python, const std::string& out_dir,
                               const std::vector<std::string>& figures);

}  // namespace lw::tool
