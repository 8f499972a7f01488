// The JSON form of a reading, as the `action.parse` oracle operation and the
// action suite's outputs give it:
//   {"text", "command":{"session_id","command","args"}|null,
//    "mcpPayload":"__MCP__…"|null, "findings":[{"rule","message"}]}
#pragma once

#include <expected>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json.h"
#include "protocols/action/assistant_response.h"

namespace llmconform::action {

// Error only when a string is not valid UTF-8 (never for a reading of valid
// UTF-8 text): JSON cannot carry it.
std::expected<Json, Error> ToJson(const AssistantResponse& response);

}  // namespace llmconform::action
