// The five tools as OpenAI function tools (seed 001 §4.1 OpenAIFunctionTool)
// with JSON Schemas for their arguments; names are the wire names fs_read …
// fs_apply_patch, which match OpenAI's ^[a-zA-Z0-9_-]{1,64}$.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "protocols/toolcalls/tool_host.h"

namespace llmconform::toolcalls {

// [{"type":"function","function":{"name","description","parameters"}}, …]
// for `tools`, in the order given.
nlohmann::json FunctionTools(const std::vector<Tool>& tools);

// Whether `name` satisfies OpenAI's function-name pattern.
bool IsValidFunctionName(std::string_view name);

}  // namespace llmconform::toolcalls
