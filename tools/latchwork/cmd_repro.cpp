#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/base/assert.h"
#include "repro/repro.h"
#include "repro/repro_session.h"
#include "output_path.h"
#include "plot_json.h"
#include "repro_children.h"
#include "repro_fidelity.h"

#ifndef LW_PLOT_SCRIPT
#define LW_PLOT_SCRIPT "tools/plot/plot_repro.py"
#endif

extern char** environ;

namespace lw::tool {
namespace {

void print_list() {
  std::printf("%-13s %s\n", "name", "figure");
  for (const ReproFigure& f : repro_figures()) std::printf("%-13s %s\n", f.name.c_str(), f.title.c_str());
}

void print_series_table(const ReproResult& r) {
  const ReproFigure& f = *r.figure;
  std::printf("%s%s\n", f.title.c_str(), f.scale == ReproScale::kPaper ? " [--scale paper]" : "");
  // One table per panel; a series is named without its panel's prefix.
  std::vector<std::string> panels;
  for (const ReproPoint& p : f.points)
    if (std::find(panels.begin(), panels.end(), p.panel) == panels.end()) panels.push_back(p.panel);
  for (const std::string& panel : panels) {
    std::vector<std::string> series;
    std::map<double, std::map<std::string, double>> rows;
    for (size_t i = 0; i < f.points.size(); ++i) {
      const ReproPoint& p = f.points[i];
      if (p.panel != panel) continue;
      std::string name = p.series;
      if (!panel.empty() && name.rfind(panel, 0) == 0 && name.size() > panel.size()) name = name.substr(panel.size() + 1);
      if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
      rows[p.x][name] = repro_y(f, p, r.results[i]);
    }
    auto label = f.panel_y_labels.find(panel);
    std::printf("%s%s%s by %s\n%10s", panel.empty() ? "" : "\n", panel.empty() ? "" : (panel + ": ").c_str(),
                label == f.panel_y_labels.end() ? repro_y_label(f) : label->second.c_str(), f.x_label.c_str(), "x");
    for (const auto& s : series) std::printf(" %22s", s.c_str());
    std::printf("\n");
    for (const auto& [x, vals] : rows) {
      std::printf("%10g", x);
      for (const auto& s : series) {
        auto it = vals.find(s);
        if (it == vals.end()) std::printf(" %22s", "-");
        else std::printf(" %22.3g", it->second);
      }
      std::printf("\n");
    }
  }
}

void print_comparison(const ReproResult& r) {
  if (r.comparisons.empty()) {
    std::printf("\npaper states no values for this figure; see the notes for the shape to check\n");
  } else {
    std::printf("\n%-26s %7s %9s %9s %8s %-9s %-4s %s\n", "series", "x", "paper", "model", "error",
                "kind", "ok", "source");
    for (const ReproComparison& c : r.comparisons) {
      std::string series = c.paper.series;
      if (!c.paper.over_series.empty()) series.append(" / ").append(c.paper.over_series);
      if (c.paper.over_peak) series.append(" (peak)");
      std::printf("%-26s %7g %8s%.2f %9.2f %+7.1f%% %-9s %-4s %s\n", series.c_str(), c.paper.x,
                  c.paper.at_least ? ">" : c.paper.at_most ? "<" : " ", c.paper.value, c.model, 100 * c.error,
                  c.paper.fitted ? "fitted" : "predicted", c.within ? "ok" : "MISS",
                  c.paper.source.c_str());
    }
  }
  // Points whose run failed or collapsed (their numbers are partial).
  for (size_t i = 0; i < r.results.size(); ++i) {
    const ReproPoint& p = r.figure->points[i];
    if (p.same_run_as >= 0 || r.results[i].error.empty()) continue;
    std::printf("point %s at x=%g: %s\n", p.series.c_str(), p.x, r.results[i].error.c_str());
  }
  // Runs stopped at their drain deadline (complete window, stragglers cut).
  for (size_t i = 0; i < r.results.size(); ++i) {
    const ReproPoint& p = r.figure->points[i];
    const auto d = r.results[i].counters.find("run.drained_workers");
    if (p.same_run_as >= 0 || d == r.results[i].counters.end() || d->second == 0) continue;
    std::printf("point %s at x=%g: stopped at its drain deadline with %.0f of %llu coroutines in an operation "
                "(the window's results are complete; what came after it was not run)\n",
                p.series.c_str(), p.x, d->second, static_cast<unsigned long long>(r.results[i].workers));
  }
  if (!r.figure->notes.empty()) std::printf("notes: %s\n", r.figure->notes.c_str());
  std::printf("%llu simulated verbs in %.2f s (%.2f M verbs per wall second)",
              static_cast<unsigned long long>(r.verbs), r.wall_seconds,
              r.wall_seconds > 0 ? static_cast<double>(r.verbs) / r.wall_seconds / 1e6 : 0.0);
  if (r.shared_runs > 0)
    std::printf("; %llu runs equal to earlier ones, not simulated again", static_cast<unsigned long long>(r.shared_runs));
  std::printf("\n");
}

// Starts `argv[0]` (looked up on PATH) with exactly these arguments — no
// shell, so no quoting: a path may hold any character. 0 and *error if it
// could not be started.
pid_t start_program(const std::vector<std::string>& args, std::string* error) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) {
    *error = "cannot start " + args[0] + ": " + std::strerror(rc);
    return 0;
  }
  return pid;
}

// Waits for a started program; its exit status, or -1 (with *error set) if
// it was killed by a signal.
int wait_program(pid_t pid, const std::string& name, std::string* error) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = "waiting for " + name + ": " + std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *error = name + " was killed by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

bool write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int cmd_repro(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork repro <name>[,<name>...]|all",
                 "Reproduces a microbenchmark figure of the papers on the simulator's NIC model: "
                 "runs its sweep, prints the model's series and the values the paper states side "
                 "by side (with the error, and whether a parameter was fitted to that value or "
                 "the model predicted it), and writes <name>.csv, <name>.json and <name>.png to "
                 "--out. `latchwork repro --list` lists the figures. Several figures (a comma "
                 "list, or all) with more than one job run as processes, one figure each (or one "
                 "per group of figures that share a run), up to --jobs at once; their output is "
                 "printed in the order given (a group's figures together). A point whose run "
                 "equals an earlier point's, in its figure or an earlier one of its process, takes "
                 "that result: runs are deterministic. With plots, --out also gets report.html: "
                 "the totals by paper, then every figure's plot, set-up and paper-vs-model table. "
                 "`latchwork repro diff OLD_DIR NEW_DIR` compares two --out folders (its --help). "
                 "--scale paper runs the figures with the papers' key counts, policy clocks and run "
                 "lengths where this machine allows (each figure's notes say what changed and what "
                 "did not, and why; `repro all --scale paper` took 13 minutes on 2 cores and 8 GB "
                 "at most, against 3 minutes at the default scale); compare the two with `repro diff`.");
  bool list = false, json = false, no_plot = false, strict = false, quiet = false;
  std::string out_dir = "repro-out", plot_script = LW_PLOT_SCRIPT;
  // Debian's python3-matplotlib lives with the system interpreter, which
  // another python3 earlier on PATH may hide.
  std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  f.add_bool("list", &list, "list the figures and exit");
  f.add_string("out", &out_dir, "directory for the CSV, JSON and PNG files");
  f.add_bool("json", &json, "print the result JSON instead of tables");
  f.add_bool("no-plot", &no_plot, "do not draw the PNG");
  f.add_string("plot-script", &plot_script, "the matplotlib script that draws the PNG");
  f.add_string("python", &python, "the Python interpreter that runs the plot script");
  f.add_bool("strict", &strict, "exit 1 if a paper value is outside its tolerance");
  f.add_bool("quiet", &quiet, "no progress line on stderr");
  bool totals = true;
  f.add_bool("totals", &totals, "print the fidelity totals (predicted values within tolerance, by paper) at the end");
  uint64_t jobs = std::clamp<uint64_t>(std::thread::hardware_concurrency(), 1, 256);  // one per core
  f.add_uint("jobs", &jobs,
             "points simulated at once, each on its own thread (several figures: figures at once, "
             "each in its own process), and plot runs at the end (default: one per core); the values "
             "do not depend on it, only the wall time",
             1, 256);
  std::string scale_name = "default";
  f.add_enum("scale", &scale_name, repro_scale_names(),
             "default: set-ups scaled down to run in minutes; paper: the papers' key counts, policy "
             "clocks and run lengths where this machine allows");
  if (argc > 0 && std::string(argv[0]) == "diff") return cmd_repro_diff(argc - 1, argv + 1);
  std::vector<const char*> args(argv, argv + argc);
  std::string name;
  if (!args.empty() && args[0][0] != '-') {
    name = args[0];
    args.erase(args.begin());
  }
  if (int code; !parse_or_exit(f, static_cast<int>(args.size()), args.data(), &code)) return code;
  if (list) {
    print_list();
    return kExitOk;
  }
  ReproScale scale = ReproScale::kDefault;
  LW_CHECK(parse_repro_scale(scale_name, &scale));  // add_enum allowed only these
  std::vector<const ReproFigure*> figures;
  if (name == "all") {
    for (const auto& fig : repro_figures(scale)) figures.push_back(&fig);
  } else if (name.empty()) {
    return usage_error(f, "name a figure (latchwork repro --list)");
  } else {
    std::string rest = name;
    for (size_t at = 0; at <= rest.size();) {
      const size_t comma = std::min(rest.find(',', at), rest.size());
      const std::string one = rest.substr(at, comma - at);
      const ReproFigure* fig = find_repro(one, scale);
      if (fig == nullptr) return usage_error(f, "unknown figure \"" + one + "\" (latchwork repro --list)");
      if (std::find(figures.begin(), figures.end(), fig) != figures.end())
        return usage_error(f, "figure \"" + one + "\" named twice");
      figures.push_back(fig);
      at = comma + 1;
    }
  }
  if (std::string e = check_output_dir(out_dir, "out"); !e.empty()) return usage_error(f, e);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return usage_error(f, "cannot create --out directory " + out_dir + ": " + ec.message());

  bool all_ok = true;
  // PNGs are drawn at the end, by one run of the plot script per job (each
  // a share of the figures): starting Python and matplotlib costs more than
  // drawing a figure, and one run alone left the other cores idle.
  std::vector<std::pair<std::string, std::string>> plots;  // json, png
  const size_t workers = jobs;
  // Figures that share a run run together, in one session (one process),
  // where the later ones take the earlier ones' results (repro_session.h).
  // Other figures do not share a session: they would only hold each other's
  // node memory and caches (11 unrelated figures in one session faulted
  // twice the pages).
  std::vector<std::vector<size_t>> groups = group_sharing_runs(figures);
  if (figures.size() > 1 && workers > 1) {
    std::vector<std::string> names;  // one per process: "a" or "a,b"
    for (const std::vector<size_t>& g : groups) {
      std::string joined;
      for (size_t i : g) joined += (joined.empty() ? "" : ",") + figures[i]->name;
      names.push_back(joined);
    }
    std::vector<std::string> child_args = {"--out",   out_dir,       "--no-plot", "--jobs", "1", "--quiet",
                                           "--totals=false", "--scale", scale_name};
    if (json) child_args.push_back("--json");
    if (strict) child_args.push_back("--strict");
    int worst = kExitOk;
    size_t figures_done = 0;
    std::string err;
    const bool started = run_repro_children(
        names, child_args, workers, out_dir,
        [&](size_t i, const std::string& text, int code) {
          std::fwrite(text.data(), 1, text.size(), stdout);
          std::fflush(stdout);
          figures_done += groups[i].size();
          if (!quiet) std::fprintf(stderr, "[repro: %zu of %zu figures done]\n", figures_done, figures.size());
          if (code == kExitOk || code == kExitCheckFailed) {
            for (size_t f : groups[i]) {
              const std::string base = (std::filesystem::path(out_dir) / figures[f]->name).string();
              plots.emplace_back(base + ".json", base + ".png");
            }
            if (code == kExitCheckFailed) all_ok = false;
          } else if (worst == kExitOk) {
            std::fprintf(stderr, "latchwork: repro %s failed (exit status %d)\n", names[i].c_str(), code);
            worst = code < 0 ? kExitCheckFailed : code;
          }
        },
        &err);
    if (!started) {
      std::fprintf(stderr, "latchwork: %s\n", err.c_str());
      return kExitCheckFailed;
    }
    if (worst != kExitOk) return worst;
    groups.clear();  // all ran; draw the plots below
  }
  for (const std::vector<size_t>& group : groups) {
    ReproSession session;
    for (size_t in_group : group) {
      const ReproFigure* fig = figures[in_group];
      const ReproResult r = run_repro(
          *fig,
          [&](size_t done, size_t n) {
            if (quiet) return;
            std::fprintf(stderr, "\r[%s %zu/%zu]", fig->name.c_str(), done, n);
            std::fflush(stderr);
            if (done == n) std::fprintf(stderr, "\n");
          },
          static_cast<uint32_t>(jobs), &session);
      const std::filesystem::path base = std::filesystem::path(out_dir) / fig->name;
      const std::string json_path = base.string() + ".json", png_path = base.string() + ".png";
      if (!write_file(base.string() + ".csv", r.to_csv()) || !write_file(json_path, r.to_json())) {
        std::fprintf(stderr, "latchwork repro: cannot write results to %s\n", out_dir.c_str());
        return kExitCheckFailed;
      }
      if (json) {
        std::printf("%s\n", r.to_json().c_str());
      } else {
        print_series_table(r);
      }
      if (!json) print_comparison(r);
      for (const auto& c : r.comparisons) all_ok = all_ok && c.within;
      plots.emplace_back(json_path, png_path);
      if (!json) std::printf("wrote %s.{csv,json}\n\n", base.string().c_str());
    }
  }
  std::vector<std::string> figure_names;  // of every figure, for the report and the totals
  for (const ReproFigure* fig : figures) figure_names.push_back(fig->name);
  if (!no_plot) {
    // Argument vectors, not shell commands: a quote or `$(...)` in a path
    // is just a character of that path.
    const size_t runs = std::clamp<size_t>(jobs, 1, plots.size());
    std::string err;
    int rc = 0;
    std::vector<pid_t> started;
    for (size_t k = 0; k < runs && err.empty(); ++k) {
      std::vector<std::string> args = {python, plot_script};
      for (size_t i = k; i < plots.size(); i += runs) {
        args.push_back(plots[i].first);
        args.push_back(plots[i].second);
      }
      if (const pid_t pid = start_program(args, &err)) started.push_back(pid);
      else rc = -1;
    }
    for (pid_t pid : started) {
      std::string e;
      const int r = wait_program(pid, python, &e);
      if (r != 0 && rc == 0) {
        rc = r;
        err = e;
      }
    }
    if (rc != 0) {
      std::fprintf(stderr, "latchwork repro: plotting failed (%s; needs python3-matplotlib; see scripts/bootstrap.sh): %s %s ...\n",
                   err.empty() ? ("exit status " + std::to_string(rc)).c_str() : err.c_str(),
                   cli::shell_quote(python).c_str(), cli::shell_quote(plot_script).c_str());
      return kExitCheckFailed;  // the PNGs asked for are missing
    } else if (!json) {
      for (const auto& plot : plots) std::printf("drew %s\n", plot.second.c_str());
    }
    if (rc == 0) {
      if (const std::string e = write_repro_report(python, out_dir, figure_names); !e.empty())
        std::fprintf(stderr, "latchwork: report.html not written: %s\n", e.c_str());
      else if (!json)
        std::printf("wrote %s\n", (std::filesystem::path(out_dir) / "report.html").string().c_str());
    }
  }
  if (totals && !json) {
    std::vector<FigureValues> values;
    std::string e;
    if (load_repro_dir(out_dir, figure_names, &values, &e)) std::printf("%s\n", totals_line(tally_by_paper(values)).c_str());
    else std::fprintf(stderr, "latchwork: no totals: %s\n", e.c_str());
  }
  return strict && !all_ok ? kExitCheckFailed : kExitOk;
}

}  // namespace lw::tool
