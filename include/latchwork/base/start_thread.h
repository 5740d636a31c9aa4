// Starting an OS thread so that a failure names what could not be started:
// std::thread throws a bare std::system_error ("Resource temporarily
// unavailable") when the thread or its stack cannot be created, which tells a
// user neither which thread nor how many were asked for.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace lw {

// Starts thread `index` (0-based) of `total` threads of `what` running `f`.
// Throws std::runtime_error "cannot create <what> thread <index+1> of <total>:
// <reason>" when the thread cannot be created.
template <class F>
std::thread start_thread(const char* what, size_t index, size_t total, F&& f) {
  try {
    return std::thread(std::forward<F>(f));
  } catch (const std::system_error& e) {
    throw std::runtime_error("cannot create " + std::string(what) + " thread " + std::to_string(index + 1) +
                             " of " + std::to_string(total) + ": " + e.code().message());
  }
}

}  // namespace lw
