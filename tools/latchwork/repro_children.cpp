// Figures of `latchwork repro` in child processes (repro_children.h).
#include "repro_children.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

extern char** environ;

namespace lw::tool {

namespace {

struct Running {
  pid_t pid;
  size_t figure;
  std::filesystem::path out;
};

struct Ended {
  std::string text;
  int status;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool run_repro_children(const std::vector<std::string>& figures, const std::vector<std::string>& args,
                        size_t jobs, const std::filesystem::path& scratch,
                        const std::function<void(size_t, const std::string&, int)>& done, std::string* error) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot find this executable (/proc/self/exe): " + ec.message();
    return false;
  }
  const size_t n = figures.size();
  std::vector<std::optional<Ended>> ended(n);
  std::vector<Running> running;
  size_t next = 0, reported = 0;
  while (reported < n) {
    // Start children while there is room.
    while (running.size() < std::max<size_t>(jobs, 1) && next < n) {
      const size_t i = next++;
      const std::filesystem::path out = scratch / ("." + figures[i] + ".stdout");
      std::vector<std::string> argv_s = {self.string(), "repro", figures[i]};
      argv_s.insert(argv_s.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (const std::string& a : argv_s) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init(&fa);
      posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      pid_t pid = 0;
      const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&fa);
      if (rc != 0) {
        ended[i] = Ended{"cannot start " + self.string() + ": " + std::strerror(rc) + "\n", -1};
        continue;
      }
      running.push_back({pid, i, out});
    }
    // Wait for one to end (the loop is bounded: each pass reaps a child or
    // reports a figure that could not start).
    if (!running.empty() && !ended[reported]) {
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
      }
      if (pid < 0) {
        *error = std::string("waiting for the figures' processes: ") + std::strerror(errno);
        return false;
      }
      for (size_t k = 0; k < running.size(); ++k) {
        if (running[k].pid != pid) continue;
        const Running r = running[k];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        std::string text = slurp(r.out);
        std::filesystem::remove(r.out, ec);
        int code = -1;
        if (WIFEXITED(status)) {
          code = WEXITSTATUS(status);
        } else {
          text += "latchwork repro " + figures[r.figure] + " was killed by signal " +
                  std::to_string(WTERMSIG(status)) + "\n";
        }
        ended[r.figure] = Ended{std::move(text), code};
        break;
      }
    }
    while (reported < n && ended[reported]) {
      done(reported, ended[reported]->text, ended[reported]->status);
      ++reported;
    }
  }
  return true;
}

}  // namespace lw::tool
