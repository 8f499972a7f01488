// The message that carries a command to the client (seed 004 §Обработка на
// сервере, docs/protocols.md "action"):
//   __MCP__{"event":"mcp.command_request","payload":{"session_id":…,"command":…,"args":{…}}}
// compact JSON, keys in this order, `args` as the reply wrote it
// (Command::ArgsText(): numbers spelled exactly as in the reply).
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"
#include "protocols/action/assistant_response.h"

namespace llmconform::action {

inline constexpr std::string_view kMcpPrefix = "__MCP__";
inline constexpr std::string_view kMcpEvent = "mcp.command_request";

// Builds the payload. Error only when a string in `command` is not valid
// UTF-8 (never the case for a command ParseAssistantResponse kept):
// "__MCP__ payload: invalid UTF-8 …".
std::expected<std::string, Error> BuildMcpPayload(const Command& command);

// Reads a payload back: the prefix, then exactly the JSON object above with a
// string session_id and command and an object args. Error says what is wrong
// ("__MCP__ payload: expected the prefix \"__MCP__\"", "… /payload/args:
// expected object, got array"). For tests and for checking clients' output.
// The command's args_json keeps the payload's own number spellings.
std::expected<Command, Error> ParseMcpPayload(std::string_view payload);

}  // namespace llmconform::action
