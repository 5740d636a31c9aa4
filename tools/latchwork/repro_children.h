// `latchwork repro` with several figures and several jobs: each figure runs
// in a child process of this executable (`repro <figure> --jobs 1 ...`), up
// to `jobs` at once, instead of the points of one figure on threads.
//
// Why: threads of one process share its page tables, so every page a point
// releases (madvise) or maps costs the other cores a TLB shootdown, and a
// figure's last points leave cores idle before the next figure starts.
// `repro all` took 105 s on this machine's 2 cores with two threads per
// figure, 84 s as two processes each running half the figures.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lw::tool {

// Runs `repro <figure> <args...>` for every figure, at most `jobs` at once,
// each with its stdout in a file under `scratch` (removed after). Calls
// done(i, stdout text, exit status) in figure order, each as soon as it and
// every earlier figure have ended; the exit status is -1 (and the text says
// why) when the child could not start or died by a signal. Returns false,
// with *error, if this executable cannot be found.
bool run_repro_children(const std::vector<std::string>& figures, const std::vector<std::string>& args,
                        size_t jobs, const std::filesystem::path& scratch,
                        const std::function<void(size_t, const std::string&, int)>& done, std::string* error);

}  // namespace lw::tool
