// The user messages of a skill session (seed 000 §4), each ending in the step
// marker "\n\n[Step N of M]", and their recognition in a journal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmconform::skill {

inline constexpr int kDefaultMaxSteps = 100;

using Parameters = std::vector<std::pair<std::string, std::string>>;

// "\n\n[Step N of M]".
std::string StepMarker(std::int64_t step, std::int64_t max_steps);

// buildInitialUserPrompt (§4.1): `custom_prompt`, or "Execute skill: <name>"
// when it is empty; then "\n\nParameters:\n- k: v" with one "- k: v" line per
// parameter in the given order, only when there are parameters; then the step
// marker.
std::string BuildInitialUserPrompt(std::string_view skill_name, const Parameters& parameters,
                                   std::string_view custom_prompt, std::int64_t step = 1,
                                   std::int64_t max_steps = kDefaultMaxSteps);

// §4.2: "Command output:\n<cleaned>" + marker. `cleaned` is CleanOutputForAI's result.
std::string CommandOutputMessage(std::string_view cleaned, std::int64_t step,
                                 std::int64_t max_steps);
// §4.3: "User skipped the command." + marker.
std::string CommandSkippedMessage(std::int64_t step, std::int64_t max_steps);
// §4.4: "User response: <answer>" + marker; a skipped optional question sends "".
std::string UserResponseMessage(std::string_view answer, std::int64_t step, std::int64_t max_steps);
// §4.5: "[Continue after informational message]" + marker.
std::string ContinueMessage(std::int64_t step, std::int64_t max_steps);

enum class UserMessageKind { kOther, kCommandOutput, kCommandSkipped, kUserResponse, kContinue };

// A user message taken apart: its kind (by its exact opening text), the text
// the template carries (cleaned output, answer, or the whole head for kOther)
// and the step marker's numbers. `step`/`max_steps` are nullopt when the
// message does not end in a well-formed marker ("[Step " digits " of " digits
// "]" after exactly "\n\n"); the kind is then judged on the whole text.
struct UserMessageParts {
  UserMessageKind kind = UserMessageKind::kOther;
  std::string payload;
  std::optional<std::int64_t> step;
  std::optional<std::int64_t> max_steps;
};

UserMessageParts SplitUserMessage(std::string_view message);

std::string_view UserMessageKindName(UserMessageKind kind);

}  // namespace llmconform::skill
