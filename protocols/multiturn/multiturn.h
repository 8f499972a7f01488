// Multi-turn message assembly with token-budget trimming (seed 003,
// REQ-AIS-MULTITURN; PROTOCOLS.md "multiturn").
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/error.h"

namespace llmconform::multiturn {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;

  friend bool operator==(const Message&, const Message&) = default;
};

// A message of the assembled list: views into the BuildArgs it was built
// from (role names are static). Valid while those args live unchanged.
struct MessageView {
  std::string_view role;
  std::string_view content;

  friend bool operator==(const MessageView&, const MessageView&) = default;
  Message ToMessage() const { return {std::string(role), std::string(content)}; }
};

// Owned copies of assembled messages.
std::vector<Message> ToMessages(const std::vector<MessageView>& views);

// estimateMessageTokens: "" → 0, otherwise max(1, ceil(UTF-8 bytes / 4)).
// The text is taken as the UTF-8 bytes it holds; it is not validated.
std::int64_t EstimateMessageTokens(std::string_view text);

struct BuildArgs {
  std::string system_prompt;
  std::vector<Message> history;  // roles "user" | "assistant" only
  std::string current_user_message;
  std::int64_t max_token_budget = 0;  // may be zero or negative: then no history fits
};

// buildLLMMessages: [system, ...kept history, currentUser]. The kept history is
// the longest run of newest messages whose tokens, added to those of the
// system prompt and the current message, stay within the budget. System and
// current user are always present. Roles are never rewritten. The result
// refers to `args` (no message text is copied: 100 000 messages assemble in
// about the time it takes to read their lengths).
// Errors: a history message whose role is not "user" or "assistant"
// ("history[3].role: expected \"user\" or \"assistant\", got \"tool\"").
std::expected<std::vector<MessageView>, Error> BuildLLMMessages(const BuildArgs& args);
// The views would outlive a temporary: name the args.
std::expected<std::vector<MessageView>, Error> BuildLLMMessages(BuildArgs&& args) = delete;

}  // namespace llmconform::multiturn
