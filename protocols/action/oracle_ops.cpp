#include "protocols/action/oracle_ops.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_read.h"
#include "protocols/action/assistant_response.h"
#include "protocols/action/json_input.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/mcp_payload.h"
#include "protocols/action/response_json.h"
#include "protocols/wire/chat.h"

namespace llmconform::action {
namespace {

std::expected<Json, Error> Parse(const Json& in) {
  auto input = ParseInputFromJson(in);
  if (!input) return std::unexpected(input.error());
  return ToJson(ParseAssistantResponse(input->text, input->session_id, input->supported_commands));
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
