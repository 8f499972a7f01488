#include "protocols/action/oracle_ops.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/action/assistant_response.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/mcp_payload.h"
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

// The parse output as `ref` writes it: command.args as the reply spelled it
// (ACT-14), taken from the args of mcpPayload, which keep every number's
// spelling where the JSON value holds a double.
std::string WriteParse(const Json& out) {
  const auto payload = out.find("mcpPayload");
  const auto command = out.find("command");
  if (payload == out.end() || !payload->is_string() || command == out.end() ||
      !command->is_object()) {
    return DumpJson(out);
  }
  const std::string_view text = payload->get_ref<const std::string&>();
  if (!text.starts_with(kMcpPrefix)) return DumpJson(out);
  const auto args = SpelledJsonAt(text.substr(kMcpPrefix.size()), {"payload", "args"});
  if (!args) return DumpJson(out);
  constexpr std::string_view kPath[] = {"command", "args"};
  return DumpWithTextAt(out, kPath, *args);
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"action.parse",
       "read an assistant reply (plain text or JSON with an open_app command): "
       "{\"text\",\"sessionId\"?,\"supportedCommands\"?} -> "
       "{\"text\",\"command\",\"mcpPayload\",\"findings\"}",
       Parse, WriteParse},
  };
}

}  // namespace llmconform::action
