// The system under test of `llmconform check`: a command run as
// `/bin/sh -c CMD` that answers JSON lines on stdout to JSON lines on stdin.
//
//   request  {"id": 17, "op": "action.parse", "input": {…}}
//   answer   {"id": 17, "output": {…}}  or  {"id": 17, "error": "…"}
//
// Requests are pipelined: up to `window` are in flight at once, and answers
// are expected in request order. Whatever the SUT does wrong is an answer of
// its own kind, attributed to the case that caused it, and the exchange goes
// on: a line that is not such an answer (garbage), an answer to a later case
// first (out of order), no answer within the per-case time limit (the SUT is
// killed and restarted), or the SUT exiting (restarted). Cases in flight when
// the SUT is restarted are sent again to the new process.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/child_process.h"
#include "base/error.h"

namespace llmconform::harness::difftest {

struct SutAnswer {
  enum class Kind { kOutput, kError, kGarbage, kOutOfOrder, kTimeout, kCrash };
  Kind kind = Kind::kOutput;
  nlohmann::json value;  // kOutput: the output; kError: the error message
  std::string detail;    // what went wrong, for the SUT's own failures
};

// "output" | "error" | "garbage" | "out of order" | "timeout" | "crash".
std::string_view SutAnswerKindName(SutAnswer::Kind kind);

struct SutOptions {
  std::string command;                            // run as /bin/sh -c COMMAND
  std::chrono::milliseconds case_timeout{10000};  // per case, from when it is next
  std::size_t window = 512;                       // requests in flight at most
  // Give up when the SUT exits, or gives no answer within case_timeout, this
  // many times in a row before it ever answered.
  int max_failed_starts = 3;
};

class Sut {
 public:
  explicit Sut(SutOptions options);
  ~Sut();  // closes its stdin, then kills its whole process group and reaps it
  Sut(const Sut&) = delete;
  Sut& operator=(const Sut&) = delete;

  // One answer per request, in the order given. `requests[i]` is
  // {"op", "input"}; the id is added here. Error: the SUT exited, or timed
  // out, `max_failed_starts` times in a row before it ever answered (the
  // command does not work), with its exit status and the end of its stderr. Once it
  // has answered, crashes are answers (kCrash) and never end the exchange.
  std::expected<std::vector<SutAnswer>, Error> Exchange(
      const std::vector<nlohmann::json>& requests);

  // Each answer as soon as it is known, with the index of its input: nothing
  // is kept here once handed over, so a batch of large answers is never in
  // memory at once. Answers arrive in request order except an out-of-order
  // one, handed over when it is seen.
  using OnAnswer = std::function<void(std::size_t index, SutAnswer answer)>;
  // Requests that all name `op`: {"op": op, "input": inputs[i]}. At
  // `deadline` the exchange stops where it is: the cases not answered yet
  // get no answer (a SUT still working on one is killed, and restarted by the
  // next exchange). Returns how many were answered. Errors as Exchange's.
  std::expected<std::size_t, Error> Exchange(std::string_view op,
                                             const std::vector<nlohmann::json>& inputs,
                                             const OnAnswer& on_answer,
                                             std::chrono::steady_clock::time_point deadline =
                                                 std::chrono::steady_clock::time_point::max());

  int restarts() const { return restarts_; }

 private:
  // `body(i)` is request i serialized after its id: `,"op":…,"input":…}\n`.
  std::expected<std::size_t, Error> ExchangeBodies(
      std::size_t n, const std::function<std::string(std::size_t)>& body, const OnAnswer& on_answer,
      std::chrono::steady_clock::time_point deadline);
  class Round;  // one ExchangeBodies: its queues, buffers and poll loop
  bool Start();
  void Stop(bool kill_now);
  std::string StatusText();

  SutOptions options_;
  std::optional<ChildProcess> child_;  // none until started, and once stopped
  std::string stderr_tail_;
  int exit_status_ = 0;
  int restarts_ = 0;
  bool ever_answered_ = false;
  std::uint64_t next_id_ = 1;
};

}  // namespace llmconform::harness::difftest
