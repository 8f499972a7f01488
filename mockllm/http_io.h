// Socket and HTTP helpers of mockllm's listener (mockllm/http_listener.cpp):
// deadline-bounded waits and gathered writes on a raw socket, the worker
// pool, and reading a refused request head. Internal to the mockllm library.
#pragma once

#include <sys/uio.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mockllm/http_message.h"

namespace llmconform::mockllm::http_io {

using Clock = std::chrono::steady_clock;

// ASCII case-insensitive equality (header names and tokens).
bool IEquals(std::string_view a, std::string_view b);

// Waits until `fd` is ready for `events` or `deadline` passes; false on
// timeout. A hang-up or error counts as ready (the next call says what).
bool WaitFd(int fd, short events, Clock::time_point deadline);

// Sends every byte of `iov[0..n)` (modified in place) on the non-blocking
// socket `fd`, waiting for room; false when the peer is gone or no byte could
// be written for `stall` (each byte written starts the wait again: a slow
// reader that keeps reading is served to the end). A zero `stall` writes only
// what fits now. Never raises SIGPIPE.
bool SendAll(int fd, iovec* iov, int n, std::chrono::milliseconds stall);

inline iovec Iov(std::string_view s) { return iovec{const_cast<char*>(s.data()), s.size()}; }

// True when the connection was reset or has failed (the peer is gone for
// good); never blocks. A FIN alone is not: a client may half-close after its
// request and still read the answer.
bool ConnectionFailed(int fd);

// The request line and headers of a head the parser refused, read line by
// line (at most what `head` holds), so the framing check can say what was
// wrong and the refusal can be journaled with its method and path.
HttpRequest RawHead(std::string_view head);

// False for a header no response may carry (ResponseHeaderProblem: a name
// that is not an HTTP token, a control character in the value): such
// headers are left out of the head (an upstream's, under --proxy).
bool SafeHeader(std::string_view name, std::string_view value);

// The reason phrase of a status code ("Unknown" for codes without one).
std::string_view Reason(int status);

// Workers: `min` started at once, one more whenever a job arrives and none is
// idle, up to `max`; beyond that jobs wait in line. A worker beyond `min`
// that has been idle for `idle_timeout` ends (a burst of 512 slow answers
// does not keep 512 threads and their stacks). Shutdown runs what is queued
// and joins them all. Thread-safe.
class WorkerPool {
 public:
  WorkerPool(std::size_t min, std::size_t max,
             std::chrono::milliseconds idle_timeout = std::chrono::seconds(30));
  ~WorkerPool() { Shutdown(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `fn` on a worker. After Shutdown the job is dropped (destroyed, not run).
  void Submit(std::function<void()> fn);
  // Runs what is queued, then joins the workers. Idempotent.
  void Shutdown();
  // Workers alive now (busy or idle).
  std::size_t Workers();

 private:
  void Spawn();         // needs mu_; a failure to start a thread is ignored
  void SpawnOrThrow();  // needs mu_
  void JoinEnded();     // needs mu_: joins the workers that ended for idleness

  const std::size_t min_, max_;
  const std::chrono::milliseconds idle_timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::map<std::uint64_t, std::thread> threads_;  // by worker number
  std::vector<std::uint64_t> ended_;              // ended, not yet joined
  std::uint64_t next_id_ = 0;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace llmconform::mockllm::http_io
