#include "protocols/action/oracle_ops.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "protocols/action/assistant_response.h"
#include "protocols/action/response_json.h"
#include "protocols/wire/chat.h"

namespace llmconform::action {
namespace {

using Json = nlohmann::json;

std::expected<std::vector<std::string>, Error> SupportedCommands(const Json& in) {
  const auto it = in.find("supportedCommands");
  if (it == in.end() || it->is_null()) return DefaultSupportedCommands();
  if (!it->is_array()) {
    return std::unexpected(
        Error{Format("field \"supportedCommands\": expected array, got {}", JsonTypeName(*it))});
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& name = (*it)[i];
    if (!name.is_string()) {
      return std::unexpected(Error{Format(
          "field \"supportedCommands\"[{}]: expected string, got {}", i, JsonTypeName(name))});
    }
    out.push_back(name.get<std::string>());
  }
  return out;
}

std::expected<Json, Error> Parse(const Json& in) {
  if (auto ok = RequireObjectInput(in); !ok) return std::unexpected(ok.error());
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  auto session_id = OptionalString(in, "sessionId");
  if (!session_id) return std::unexpected(session_id.error());
  auto supported = SupportedCommands(in);
  if (!supported) return std::unexpected(supported.error());

  return ToJson(ParseAssistantResponse(*text, *session_id, *supported));
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"action.parse",
       "read an assistant reply (plain text or JSON with an open_app command): "
       "{\"text\",\"sessionId\"?,\"supportedCommands\"?} -> "
       "{\"text\",\"command\",\"mcpPayload\",\"findings\"}",
       Parse},
  };
}

}  // namespace llmconform::action
