#include "protocols/multiturn/multiturn.h"

#include "protocols/wire/format.h"

namespace llmconform::multiturn {

std::int64_t EstimateMessageTokens(std::string_view text) {
  if (text.empty()) return 0;
  const auto bytes = static_cast<std::int64_t>(text.size());
  return (bytes + 3) / 4;  // ceil(bytes / 4) >= 1 for bytes >= 1
}

std::vector<Message> ToMessages(const std::vector<MessageView>& views) {
  std::vector<Message> out;
  out.reserve(views.size());
  for (const auto& v : views) out.push_back(v.ToMessage());
  return out;
}

std::expected<std::vector<MessageView>, Error> BuildLLMMessages(const BuildArgs& args) {
  const auto& history = args.history;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& role = history[i].role;
    if (role != "user" && role != "assistant") {
      return std::unexpected(Error{
          Format("history[{}].role: expected \"user\" or \"assistant\", got \"{}\"", i, role)});
    }
  }

  // Walk from the newest message back while the total still fits: the kept
  // history is the maximal newest run, and trimming from the oldest end stops
  // exactly where this walk stops.
  std::int64_t total =
      EstimateMessageTokens(args.system_prompt) + EstimateMessageTokens(args.current_user_message);
  std::size_t first_kept = history.size();
  while (first_kept > 0) {
    const std::int64_t next = total + EstimateMessageTokens(history[first_kept - 1].content);
    if (next > args.max_token_budget) break;
    total = next;
    --first_kept;
  }

  std::vector<MessageView> out;
  out.reserve(history.size() - first_kept + 2);
  out.push_back({"system", args.system_prompt});
  for (std::size_t i = first_kept; i < history.size(); ++i)
    out.push_back({history[i].role, history[i].content});
  out.push_back({"user", args.current_user_message});
  return out;
}

}  // namespace llmconform::multiturn
