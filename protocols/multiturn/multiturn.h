// Multi-turn message assembly with token-budget trimming (seed 003,
// REQ-AIS-MULTITURN; docs/protocols.md "multiturn").
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
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

class AssembledMessages;

// Owned copies of assembled messages.
std::vector<Message> ToMessages(const AssembledMessages& messages);

// The assembled list [system, ...kept history, currentUser], as a view of the
// BuildArgs it was built from: valid while those args live unchanged. The kept
// history is a contiguous run of args.history, so it is held as a span and
// each message is produced as a MessageView on access; nothing is copied.
class AssembledMessages {
 public:
  class Iterator {
   public:
    using value_type = MessageView;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    MessageView operator*() const { return (*list_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    friend bool operator==(const Iterator&, const Iterator&) = default;

   private:
    friend class AssembledMessages;
    Iterator(const AssembledMessages* list, std::size_t index) : list_(list), index_(index) {}
    const AssembledMessages* list_ = nullptr;
    std::size_t index_ = 0;
  };

  AssembledMessages(const BuildArgs& args, std::size_t first_kept, std::int64_t total_tokens)
      : args_(&args),
        kept_(std::span(args.history).subspan(first_kept)),
        total_tokens_(total_tokens) {}

  // 2 + the number of kept history messages.
  std::size_t size() const { return kept_.size() + 2; }
  // 0 is the system prompt, size() - 1 the current user message. Requires i < size().
  MessageView operator[](std::size_t i) const {
    if (i == 0) return {"system", args_->system_prompt};
    if (i <= kept_.size()) return {kept_[i - 1].role, kept_[i - 1].content};
    return {"user", args_->current_user_message};
  }
  MessageView front() const { return (*this)[0]; }
  MessageView back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  // The kept run of args.history, oldest first (empty when nothing fits).
  std::span<const Message> kept_history() const { return kept_; }
  // Index in args.history of the oldest kept message (history.size() if none).
  std::size_t first_kept() const { return args_->history.size() - kept_.size(); }
  // Estimated tokens of the whole list; above the budget only when forced.
  std::int64_t total_tokens() const { return total_tokens_; }

 private:
  const BuildArgs* args_;
  std::span<const Message> kept_;
  std::int64_t total_tokens_;
};

// buildLLMMessages: [system, ...kept history, currentUser]. The kept history is
// the longest run of newest messages whose tokens, added to those of the
// system prompt and the current message, stay within the budget. System and
// current user are always present. Roles are never rewritten. The result
// refers to `args` (no message is copied: 100 000 messages assemble in about
// the time it takes to read their lengths).
// Errors: a history message whose role is not "user" or "assistant"
// ("history[3].role: expected \"user\" or \"assistant\", got \"tool\"").
std::expected<AssembledMessages, Error> BuildLLMMessages(const BuildArgs& args);
// The views would outlive a temporary: name the args.
std::expected<AssembledMessages, Error> BuildLLMMessages(BuildArgs&& args) = delete;

}  // namespace llmconform::multiturn
