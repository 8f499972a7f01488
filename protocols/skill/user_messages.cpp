#include "protocols/skill/user_messages.h"

#include <charconv>

#include "base/format.h"

namespace llmconform::skill {
namespace {

constexpr std::string_view kCommandOutputHead = "Command output:\n";
constexpr std::string_view kSkipped = "User skipped the command.";
constexpr std::string_view kUserResponseHead = "User response: ";
constexpr std::string_view kContinue = "[Continue after informational message]";

// Reads the decimal number ending right before `end` in `s`; returns its start.
std::optional<std::size_t> DigitsBefore(std::string_view s, std::size_t end, std::int64_t& value) {
  std::size_t start = end;
  while (start > 0 && s[start - 1] >= '0' && s[start - 1] <= '9') --start;
  if (start == end || end - start > 18) return std::nullopt;
  std::from_chars(s.data() + start, s.data() + end, value);
  return start;
}

}  // namespace

std::string StepMarker(std::int64_t step, std::int64_t max_steps) {
  return Format("\n\n[Step {} of {}]", step, max_steps);
}

std::string BuildInitialUserPrompt(std::string_view skill_name, const Parameters& parameters,
                                   std::string_view custom_prompt, std::int64_t step,
                                   std::int64_t max_steps) {
  std::string out =
      custom_prompt.empty() ? Format("Execute skill: {}", skill_name) : std::string(custom_prompt);
  if (!parameters.empty()) {
    out += "\n\nParameters:";
    for (const auto& [key, value] : parameters) out += Format("\n- {}: {}", key, value);
  }
  out += StepMarker(step, max_steps);
  return out;
}

std::string CommandOutputMessage(std::string_view cleaned, std::int64_t step,
                                 std::int64_t max_steps) {
  return Format("{}{}{}", kCommandOutputHead, cleaned, StepMarker(step, max_steps));
}

std::string CommandSkippedMessage(std::int64_t step, std::int64_t max_steps) {
  return Format("{}{}", kSkipped, StepMarker(step, max_steps));
}

std::string UserResponseMessage(std::string_view answer, std::int64_t step,
                                std::int64_t max_steps) {
  return Format("{}{}{}", kUserResponseHead, answer, StepMarker(step, max_steps));
}

std::string ContinueMessage(std::int64_t step, std::int64_t max_steps) {
  return Format("{}{}", kContinue, StepMarker(step, max_steps));
}

UserMessageParts SplitUserMessage(std::string_view message) {
  UserMessageParts parts;
  std::string_view head = message;
  // "\n\n[Step " N " of " M "]" at the very end.
  if (message.ends_with(']')) {
    std::int64_t max_steps = 0, step = 0;
    auto max_start = DigitsBefore(message, message.size() - 1, max_steps);
    constexpr std::string_view kOf = " of ";
    constexpr std::string_view kOpen = "\n\n[Step ";
    if (max_start && message.substr(0, *max_start).ends_with(kOf)) {
      auto step_start = DigitsBefore(message, *max_start - kOf.size(), step);
      if (step_start && message.substr(0, *step_start).ends_with(kOpen)) {
        parts.step = step;
        parts.max_steps = max_steps;
        head = message.substr(0, *step_start - kOpen.size());
      }
    }
  }
  if (head.starts_with(kCommandOutputHead)) {
    parts.kind = UserMessageKind::kCommandOutput;
    parts.payload = head.substr(kCommandOutputHead.size());
  } else if (head == kSkipped) {
    parts.kind = UserMessageKind::kCommandSkipped;
  } else if (head.starts_with(kUserResponseHead)) {
    parts.kind = UserMessageKind::kUserResponse;
    parts.payload = head.substr(kUserResponseHead.size());
  } else if (head == kContinue) {
    parts.kind = UserMessageKind::kContinue;
  } else {
    parts.payload = head;
  }
  return parts;
}

std::string_view UserMessageKindName(UserMessageKind kind) {
  switch (kind) {
    case UserMessageKind::kCommandOutput:
      return "command output";
    case UserMessageKind::kCommandSkipped:
      return "command skipped";
    case UserMessageKind::kUserResponse:
      return "user response";
    case UserMessageKind::kContinue:
      return "continue";
    case UserMessageKind::kOther:
      break;
  }
  return "other";
}

}  // namespace llmconform::skill
