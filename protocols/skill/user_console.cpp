#include "protocols/skill/user_console.h"

#include "base/format.h"

namespace llmconform::skill {

ScriptedUserConsole::ScriptedUserConsole(std::deque<bool> approvals,
                                         std::deque<std::optional<std::string>> answers)
    : approvals_(std::move(approvals)), answers_(std::move(answers)) {}

std::expected<bool, Error> ScriptedUserConsole::ApproveCommand(std::string_view command) {
  ++commands_;
  if (approvals_.empty()) {
    return std::unexpected(Error{
        Format("scripted user: no decision left for command #{} (\"{}\")", commands_, command)});
  }
  const bool run = approvals_.front();
  approvals_.pop_front();
  return run;
}

std::expected<std::optional<std::string>, Error> ScriptedUserConsole::Answer(
    std::string_view question, bool required) {
  ++questions_;
  if (answers_.empty()) {
    return std::unexpected(Error{
        Format("scripted user: no answer left for question #{} (\"{}\")", questions_, question)});
  }
  std::optional<std::string> answer = std::move(answers_.front());
  answers_.pop_front();
  if (!answer && required) {
    return std::unexpected(
        Error{Format("scripted user: question #{} is required and cannot be skipped", questions_)});
  }
  return answer;
}

}  // namespace llmconform::skill
