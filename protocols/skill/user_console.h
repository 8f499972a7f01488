// The person at the terminal (seed 000 §5.2–5.3, §7 waiting_user): approves or
// skips proposed commands and answers questions.
#pragma once

#include <deque>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform::skill {

class UserConsole {
 public:
  virtual ~UserConsole() = default;
  // true: run the command; false: the user skips it ("User skipped the command.").
  virtual std::expected<bool, Error> ApproveCommand(std::string_view command) = 0;
  // The answer to a question; nullopt when the user skips it, which only an
  // optional question allows (the session then sends an empty answer).
  virtual std::expected<std::optional<std::string>, Error> Answer(std::string_view question,
                                                                  bool required) = 0;
};

// Answers from a script, in order. Errors: the script is used up ("scripted
// user: no answer left for question #2 (\"…\")"), or a required question is
// skipped ("scripted user: question #1 is required and cannot be skipped").
class ScriptedUserConsole : public UserConsole {
 public:
  // `approvals[i]`: whether the i-th proposed command runs; `answers[i]`: the
  // i-th answer, nullopt to skip.
  ScriptedUserConsole(std::deque<bool> approvals, std::deque<std::optional<std::string>> answers);
  std::expected<bool, Error> ApproveCommand(std::string_view command) override;
  std::expected<std::optional<std::string>, Error> Answer(std::string_view question,
                                                          bool required) override;

 private:
  std::deque<bool> approvals_;
  std::deque<std::optional<std::string>> answers_;
  int commands_ = 0;
  int questions_ = 0;
};

}  // namespace llmconform::skill
