#include "protocols/action/json_input.h"

namespace llmconform::action {
namespace {

// The fields both inputs share: the session id and the supported commands.
std::expected<void, Error> ReadSession(const nlohmann::json& in, const JsonPointer& at,
                                       std::optional<std::string>& session_id,
                                       std::vector<std::string>& supported_commands) {
  auto id = OptionalString(in, at, "sessionId");
  if (!id) return std::unexpected(id.error());
  session_id = std::move(*id);
  auto commands = OptionalStrings(in, at, "supportedCommands");
  if (!commands) return std::unexpected(commands.error());
  if (*commands) supported_commands = std::move(**commands);
  return {};
}

}  // namespace

std::expected<ParseInput, Error> ParseInputFromJson(const nlohmann::json& in,
                                                    const JsonPointer& at) {
  if (auto ok = RequireObjectAt(in, at); !ok) return std::unexpected(ok.error());
  ParseInput input;
  auto text = RequireString(in, at, "text");
  if (!text) return std::unexpected(text.error());
  input.text = std::move(*text);
  if (auto ok = ReadSession(in, at, input.session_id, input.supported_commands); !ok)
    return std::unexpected(ok.error());
  return input;
}

std::expected<AssistantRequest, Error> AssistantRequestFromJson(const nlohmann::json& in,
                                                                const JsonPointer& at) {
  if (auto ok = RequireObjectAt(in, at); !ok) return std::unexpected(ok.error());
  AssistantRequest request;
  auto utterance = RequireString(in, at, "utterance");
  if (!utterance) return std::unexpected(utterance.error());
  request.utterance = std::move(*utterance);
  auto model = OptionalString(in, at, "model");
  if (!model) return std::unexpected(model.error());
  if (*model) request.model = std::move(**model);
  if (auto ok = ReadSession(in, at, request.session_id, request.supported_commands); !ok)
    return std::unexpected(ok.error());
  return request;
}

}  // namespace llmconform::action
