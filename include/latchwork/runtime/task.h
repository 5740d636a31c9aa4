// Task<T>: a lazily started C++20 coroutine that produces a T.
//
// A Task runs when awaited and resumes its awaiter when it finishes (symmetric
// transfer, so deep chains of awaits use no stack). Remote operations suspend
// only at an explicit co_await; a Task never suspends behind its caller's back.
//
// Exceptions: one escaping a Task's body is stored in its promise and rethrown
// by the co_await of whoever awaits it, so it travels up the chain of awaits
// like a call stack's. A top-level Task (a worker's main) has no awaiter: its
// backend checks exception() when it finishes. Latchwork code itself does not
// throw; exceptions come from the program under test or from an invariant
// check inside a ThrowOnInvariant scope (base/assert.h). On the normal path
// the cost is one null pointer per frame and one test per await.
#pragma once

#include <coroutine>
#include <cstdlib>
#include <exception>
#include <optional>
#include <utility>

#include "latchwork/base/assert.h"
#include "latchwork/runtime/frame_pool.h"

namespace lw {

template <typename T = void>
class [[nodiscard]] Task;

namespace detail {

struct TaskPromiseBase {
  // Frames come from the thread's pool (frame_pool.h), not from malloc.
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { free_frame(p, bytes); }

  std::coroutine_handle<> continuation = std::noop_coroutine();

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
  std::exception_ptr exception;  // set when the body ended with an exception
};

template <typename T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(h_); }
  bool done() const { return h_ && h_.done(); }
  // The exception the Task's body ended with, or null (also while unfinished).
  std::exception_ptr exception() const { return h_ ? h_.promise().exception : nullptr; }
  // For a finished top-level Task: rethrows the exception it ended with.
  void rethrow_if_failed() const {
    if (std::exception_ptr e = exception()) std::rethrow_exception(e);
  }

  auto operator co_await() && noexcept {
    struct Awaiter {
      Handle h;
      bool await_ready() noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
        h.promise().continuation = awaiting;
        return h;
      }
      T await_resume() {
        LW_CHECK_MSG(h && h.done(), "awaited an empty or unfinished Task");
        if (h.promise().exception) [[unlikely]] std::rethrow_exception(h.promise().exception);
        if constexpr (!std::is_void_v<T>) return std::move(*h.promise().value);
      }
    };
    return Awaiter{h_};
  }

  // For the runtime: the raw handle (ownership stays with the Task).
  Handle handle() const { return h_; }

 private:
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  Handle h_;
};

namespace detail {
template <typename T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace lw
