#include "protocols/multiturn/oracle_ops.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "protocols/multiturn/json_input.h"
#include "protocols/multiturn/multiturn.h"

namespace llmconform::multiturn {
namespace {

std::expected<Json, Error> Estimate(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  return Json{{"tokens", EstimateMessageTokens(*text)}};
}

std::expected<Json, Error> Build(const Json& in) {
  auto args = BuildArgsFromJson(in);
  if (!args) return std::unexpected(args.error());
  auto built = BuildLLMMessages(*args);
  if (!built) return std::unexpected(built.error());
  Json messages = Json::array();
  for (const auto& m : built->messages)
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
