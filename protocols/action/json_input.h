// Reading action inputs out of JSON: the one reader of each, used by the
// oracle (`action.parse`) and by the harness's action suite (a scenario's
// "input"). `at` is the pointer of `in` in its document; errors are
// kInvalidInput and name the value: "/supportedCommands/1: expected string,
// got number".
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json_fields.h"
#include "protocols/action/client.h"

namespace llmconform::action {

// action.parse's input: {"text","sessionId"?,"supportedCommands"?}.
struct ParseInput {
  std::string text;                       // the assistant's reply
  std::optional<std::string> session_id;  // absent or null: the request has none
  std::vector<std::string> supported_commands = DefaultSupportedCommands();
};
std::expected<ParseInput, Error> ParseInputFromJson(const nlohmann::json& in,
                                                    const JsonPointer& at = JsonPointer());

// A request to the assistant: {"utterance","sessionId"?,"model"?,"supportedCommands"?}.
// sessionId, model and supportedCommands absent or null: AssistantRequest's defaults.
std::expected<AssistantRequest, Error> AssistantRequestFromJson(
    const nlohmann::json& in, const JsonPointer& at = JsonPointer());

}  // namespace llmconform::action
