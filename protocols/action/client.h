// The reference client of the action protocol: asks the model through an
// OpenAI-compatible endpoint, with the session id in the request, and yields
// what the user's device receives — the text for speech and, when the reply
// holds a kept command, the `__MCP__` payload.
//
// The request is a non-streaming chat completion:
//   {"model", "messages":[{"role":"system","content":SystemPrompt(…)},
//                         {"role":"user","content":utterance}]}
// Recorded traces hold exactly this body, so changing the prompt means
// re-recording them (harness/suites/action_suite_test.cpp compares them).
#pragma once

#include <chrono>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "protocols/action/assistant_response.h"
#include "protocols/wire/transport.h"

namespace llmconform::action {

struct AssistantRequest {
  std::string model = "gpt-4o-mini";
  std::string utterance;                  // what the user said
  std::optional<std::string> session_id;  // none: the request carries no session id
  std::vector<std::string> supported_commands = DefaultSupportedCommands();
};

// The system prompt: the two reply formats of seed 004 (§Общий формат,
// §Обязательные поля, §Поддерживаемые команды), in the seed's language, and
// the session id to return, when there is one (an empty id counts as none).
std::string SystemPrompt(std::optional<std::string_view> session_id,
                         const std::vector<std::string>& supported_commands);

// The chat completion body for `request`.
nlohmann::json BuildChatRequest(const AssistantRequest& request);

struct ClientOutcome {
  std::string reply;                       // the model's message content, as received
  AssistantResponse response;              // ParseAssistantResponse of it
  std::optional<std::string> mcp_payload;  // set exactly when response.command is
};

// Posts the request to "/chat/completions" and reads the reply. Errors: the
// transport's, an HTTP status other than 200 ("the LLM answered HTTP 400:
// <body>"), or a body that is not a chat completion with a choice.
std::expected<ClientOutcome, Error> AskAssistant(wire::ChatTransport& transport,
                                                 const AssistantRequest& request,
                                                 std::chrono::milliseconds timeout);

}  // namespace llmconform::action
