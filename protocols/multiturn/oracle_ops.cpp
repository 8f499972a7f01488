#include "protocols/multiturn/oracle_ops.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "protocols/multiturn/multiturn.h"

namespace llmconform::multiturn {
namespace {

using Json = nlohmann::json;

std::expected<Json, Error> Estimate(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  return Json{{"tokens", EstimateMessageTokens(*text)}};
}

std::expected<Json, Error> Build(const Json& in) {
  BuildArgs args;
  auto system = RequireString(in, "systemPrompt");
  if (!system) return std::unexpected(system.error());
  args.system_prompt = std::move(*system);
  auto current = RequireString(in, "currentUserMessage");
  if (!current) return std::unexpected(current.error());
  args.current_user_message = std::move(*current);
  auto budget = RequireInt(in, "maxTokenBudget");
  if (!budget) return std::unexpected(budget.error());
  args.max_token_budget = *budget;
  auto history = RequireArray(in, "history");
  if (!history) return std::unexpected(history.error());
  for (std::size_t i = 0; i < history->size(); ++i) {
    const Json& h = (*history)[i];
    auto role = RequireString(h, "role");
    auto content = RequireString(h, "content");
    if (!role || !content) {
      return std::unexpected(
          Error{Format("history[{}]: {}", i, (!role ? role.error() : content.error()).message)});
    }
    args.history.push_back({std::move(*role), std::move(*content)});
  }
  auto built = BuildLLMMessages(args);
  if (!built) return std::unexpected(built.error());
  Json messages = Json::array();
  for (const auto& m : *built)
    messages.push_back({{"role", m.role}, {"content", m.content}});  // copies once, into JSON
  return Json{{"messages", std::move(messages)}};
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"multiturn.estimateMessageTokens", "token estimate of a text: {\"text\"} -> {\"tokens\"}",
       Estimate},
      {"multiturn.buildLLMMessages",
       "assemble [system, ...history, current] within a token budget: "
       "{\"systemPrompt\",\"history\","
       "\"currentUserMessage\",\"maxTokenBudget\"} -> {\"messages\"}",
       Build},
  };
}

}  // namespace llmconform::multiturn
