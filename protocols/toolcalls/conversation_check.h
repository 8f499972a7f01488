// The back-fill rules of seed 001 §3.2, §4.1 and §7 checked on any list of
// Chat Completions messages (a request's `messages`): every assistant
// `tool_calls` entry is answered, in order, by a `tool` message with its id
// right after the assistant message; no tool message answers nothing; tool
// contents are strings holding a JSON ToolResult; function names match
// OpenAI's pattern; arguments are JSON objects; only the roles system, user,
// assistant and tool; no unexpanded `templateRef`.
#pragma once

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace llmconform::toolcalls {

// Findings carry rule ids of specs/toolcalls/rules.json and say where
// ("messages[2].tool_calls[1] (id \"call_b\") …"). Never throws; a message
// that is not an object is a finding too.
Findings CheckConversation(const nlohmann::json& messages);

}  // namespace llmconform::toolcalls
