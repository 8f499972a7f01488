#include "protocols/multiturn/multiturn.h"

#include <cstring>

#include "base/format.h"

namespace llmconform::multiturn {
namespace {

// "user" or "assistant". The fixed-size compares compile to a load and a
// compare each (a libc memcmp call per message was half the cost of
// BuildLLMMessages).
bool IsHistoryRole(const std::string& role) {
  return (role.size() == 4 && std::memcmp(role.data(), "user", 4) == 0) ||
         (role.size() == 9 && std::memcmp(role.data(), "assistant", 9) == 0);
}

}  // namespace

std::int64_t EstimateMessageTokens(std::string_view text) {
  if (text.empty()) return 0;
  const auto bytes = static_cast<std::int64_t>(text.size());
  return (bytes + 3) / 4;  // ceil(bytes / 4) >= 1 for bytes >= 1
}

std::vector<Message> ToMessages(const AssembledMessages& messages) {
  std::vector<Message> out;
  out.reserve(messages.messages.size());
  for (const MessageView m : messages.messages) out.push_back(m.ToMessage());
  return out;
}

std::expected<AssembledMessages, Error> BuildLLMMessages(const BuildArgs& args) {
  const auto& history = args.history;
  // One pass from the newest message back: it checks every role (keeping the
  // first bad one, for the message) and, while the total still fits, extends
  // the kept run. The kept history is the maximal newest run, and trimming
  // from the oldest end stops exactly where this walk stops extending.
  std::int64_t total =
      EstimateMessageTokens(args.system_prompt) + EstimateMessageTokens(args.current_user_message);
  std::size_t first_kept = history.size();
  std::size_t first_bad = history.size();
  bool fits = true;
  for (std::size_t i = history.size(); i-- > 0;) {
    if (!IsHistoryRole(history[i].role)) first_bad = i;
    if (fits) {
      const std::int64_t next = total + EstimateMessageTokens(history[i].content);
      if (next > args.max_token_budget) {
        fits = false;
      } else {
        total = next;
        first_kept = i;
      }
    }
  }
  if (first_bad < history.size()) {
    return std::unexpected(Error::AtPointer(
        Format("/history/{}/role", first_bad),
        Format("expected \"user\" or \"assistant\", got \"{}\"", history[first_bad].role)));
  }
  AssembledMessages out{.first_kept = first_kept, .total_tokens = total};
  out.messages.reserve(history.size() - first_kept + 2);
  out.messages.push_back({"system", args.system_prompt});
  for (std::size_t i = first_kept; i < history.size(); ++i)
    out.messages.push_back({history[i].role, history[i].content});
  out.messages.push_back({"user", args.current_user_message});
  return out;
}

}  // namespace llmconform::multiturn
