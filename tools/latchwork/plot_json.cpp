#include "plot_json.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#ifndef LW_PLOT_SCRIPT
#define LW_PLOT_SCRIPT "tools/plot/plot_repro.py"
#endif

extern char** environ;

namespace lw::tool {

std::string default_plot_script() { return LW_PLOT_SCRIPT; }

std::string default_python() {
  // Debian's python3-matplotlib lives with the system interpreter.
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string plot_json(const std::string& json, const std::string& png_path, const std::string& python,
                      const std::string& script) {
  const std::string json_path = png_path + ".json";
  {
    std::ofstream out(json_path);
    out << json;
    if (!out) return "cannot write " + json_path;
  }
  const std::string err = run_program({python, script, json_path, png_path});
  if (!err.empty() && err.rfind("exited with", 0) == 0) return script + " " + err + " (needs python3-matplotlib)";
  return err;
}

std::string run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); rc != 0)
    return "cannot start " + args[0] + ": " + std::strerror(rc);
  int status = 0;
  for (int tries = 0; waitpid(pid, &status, 0) < 0; ++tries) {
    if (errno != EINTR || tries > 1000) return "waiting for " + args[0] + ": " + std::strerror(errno);
  }
  if (!WIFEXITED(status)) return args[0] + " was killed by signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "exited with " + std::to_string(WEXITSTATUS(status));
  return {};
}

bool draw_png(const std::string& command, const std::string& json, const std::string& png,
              bool json_to_stdout) {
  if (std::string e = plot_json(json, png); !e.empty()) {
    std::fprintf(stderr, "latchwork %s: plotting failed: %s\n", command.c_str(), e.c_str());
    return false;
  }
  if (!json_to_stdout) std::printf("wrote %s (and %s.json)\n", png.c_str(), png.c_str());
  return true;
}

std::string write_repro_report(const std::string& python, const std::string& out_dir,
                               const std::vector<std::string>& figures) {
  const std::string script = (std::filesystem::path(default_plot_script()).parent_path() / "repro_report.py").string();
  std::vector<std::string> args = {python, script, out_dir};
  args.insert(args.end(), figures.begin(), figures.end());
  const std::string err = run_program(args);
  return err.empty() ? err : script + ": " + err;
}

}  // namespace lw::tool
