// Multi-turn message assembly with token-budget trimming (seed 003,
// REQ-AIS-MULTITURN; docs/protocols.md "multiturn").
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace llmconform::multiturn {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;

  friend bool operator==(const Message&, const Message&) = default;
};

// A message of the assembled list: views into the BuildArgs it was built
// from. Valid while those args live unchanged.
struct MessageView {
  std::string_view role;
  std::string_view content;

  friend bool operator==(const MessageView&, const MessageView&) = default;
  Message ToMessage() const { return {std::string(role), std::string(content)}; }
};

// estimateMessageTokens: "" → 0, otherwise max(1, ceil(UTF-8 bytes / 4)).
// The text is taken as the UTF-8 bytes it holds; it is not validated.
std::int64_t EstimateMessageTokens(std::string_view text);

struct BuildArgs {
  std::string system_prompt;
  std::vector<Message> history;  // roles "user" | "assistant" only
  std::string current_user_message;
  std::int64_t max_token_budget = 0;  // may be zero or negative: then no history fits
};

// The assembled list [system, ...kept history, currentUser] as views of the
// BuildArgs it was built from: valid while those args live unchanged.
struct AssembledMessages {
  std::vector<MessageView> messages;  // 2 + the number of kept history messages
  // Index in args.history of the oldest kept message (history.size() if none);
  // the kept history is args.history[first_kept..].
  std::size_t first_kept = 0;
  // Estimated tokens of the whole list; above the budget only when forced.
  std::int64_t total_tokens = 0;
};

// Owned copies of assembled messages.
std::vector<Message> ToMessages(const AssembledMessages& messages);

// buildLLMMessages: [system, ...kept history, currentUser]. The kept history is
// the longest run of newest messages whose tokens, added to those of the
// system prompt and the current message, stay within the budget. System and
// current user are always present. Roles are never rewritten. The result
// refers to `args`: no message text is copied.
// Errors: a history message whose role is not "user" or "assistant"
// ("history[3].role: expected \"user\" or \"assistant\", got \"tool\"").
std::expected<AssembledMessages, Error> BuildLLMMessages(const BuildArgs& args);
// The views would outlive a temporary: name the args.
std::expected<AssembledMessages, Error> BuildLLMMessages(BuildArgs&& args) = delete;

}  // namespace llmconform::multiturn
