#include "protocols/multiturn/json_input.h"

namespace llmconform::multiturn {

std::expected<BuildArgs, Error> BuildArgsFromJson(const nlohmann::json& in, const JsonPointer& at) {
  if (auto ok = RequireObjectAt(in, at); !ok) return std::unexpected(ok.error());
  BuildArgs args;
  auto system = RequireString(in, at, "systemPrompt");
  if (!system) return std::unexpected(system.error());
  args.system_prompt = std::move(*system);
  auto current = RequireString(in, at, "currentUserMessage");
  if (!current) return std::unexpected(current.error());
  args.current_user_message = std::move(*current);
  auto budget = RequireInt(in, at, "maxTokenBudget");
  if (!budget) return std::unexpected(budget.error());
  args.max_token_budget = *budget;
  auto history = RequireArray(in, at, "history");
  if (!history) return std::unexpected(history.error());
  for (std::size_t i = 0; i < history->size(); ++i) {
    const nlohmann::json& h = (*history)[i];
    const JsonPointer item = at / "history" / i;
    if (auto ok = RequireObjectAt(h, item); !ok) return std::unexpected(ok.error());
    auto role = RequireString(h, item, "role");
    if (!role) return std::unexpected(role.error());
    auto content = RequireString(h, item, "content");
    if (!content) return std::unexpected(content.error());
    args.history.push_back({std::move(*role), std::move(*content)});
  }
  return args;
}

}  // namespace llmconform::multiturn
