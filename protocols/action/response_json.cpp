#include "protocols/action/response_json.h"

#include "protocols/action/json_text.h"
#include "protocols/action/mcp_payload.h"

namespace llmconform::action {

std::expected<Json, Error> ToJson(const AssistantResponse& response) {
  if (!IsValidUtf8(response.text)) {
    return std::unexpected(Error{"the reply text is not valid UTF-8"});
  }
  Json out = {{"text", response.text}, {"command", nullptr}, {"mcpPayload", nullptr}};
  if (response.command) {
    auto payload = BuildMcpPayload(*response.command);
    if (!payload) return std::unexpected(payload.error());
    out["command"] = {{"session_id", response.command->session_id},
                      {"command", response.command->command},
                      {"args", Json(response.command->args)}};
    out["mcpPayload"] = std::move(*payload);
  }
  Json findings = Json::array();
  for (const auto& f : response.findings) {
    findings.push_back({{"rule", f.rule}, {"message", f.message}});
  }
  out["findings"] = std::move(findings);
  return out;
}

}  // namespace llmconform::action
