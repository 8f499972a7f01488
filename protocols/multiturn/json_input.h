// Reading multiturn inputs out of JSON: the one reader of buildLLMMessages'
// arguments, used by the oracle (`multiturn.buildLLMMessages`) and by the
// harness's multiturn suite (a scenario's "input").
#pragma once

#include <expected>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_fields.h"
#include "protocols/multiturn/multiturn.h"

namespace llmconform::multiturn {

// {"systemPrompt","history":[{"role","content"}…],"currentUserMessage",
//  "maxTokenBudget"}, every field required; other fields are ignored. `at`
// is the pointer of `in` in its document; errors are kInvalidInput and name
// the value: "/history/2/role: expected string, got number".
std::expected<BuildArgs, Error> BuildArgsFromJson(const nlohmann::json& in,
                                                  const JsonPointer& at = JsonPointer());

}  // namespace llmconform::multiturn
