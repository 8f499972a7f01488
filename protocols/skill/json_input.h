// Reading skill inputs out of JSON: the one reader of each, used by the
// oracle operations and by the harness's skill suite (a scenario's "input").
// `at` is the pointer of the value read in its document; errors are
// kInvalidInput and name the value by its JSON pointer
// ("/parameters/0/1: expected string, number, boolean or null, got array").
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "base/json_fields.h"
#include "protocols/skill/session.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::skill {

// `parameters`: an array of [key, value] pairs, in order. The key is a
// string; the value a string, or a number, boolean or null written as
// JavaScript's template literal would ("5", "true", "null").
// Errors: "/parameters/1: expected [key, value], got object".
std::expected<Parameters, Error> ParametersFromJson(const nlohmann::json& parameters,
                                                    const JsonPointer& at);

// The session inputs of an object: "skillName" (required), "skillMarkdown"
// (required), "basePrompt"?, "serverContext"?, "parameters"?, "customPrompt"?,
// "maxSteps"? (≥ 1).
std::expected<SessionSetup, Error> SessionSetupFromJson(const nlohmann::json& in,
                                                        const JsonPointer& at = JsonPointer());

// skill.buildInitialUserPrompt's input: "skillName" (required),
// "parameters"?, "customPrompt"?, "step"? (default 1), "maxSteps"? (default
// kDefaultMaxSteps).
struct InitialPromptInput {
  std::string skill_name;
  Parameters parameters;
  std::string custom_prompt;
  std::int64_t step = 1;
  std::int64_t max_steps = kDefaultMaxSteps;
};
std::expected<InitialPromptInput, Error> InitialPromptInputFromJson(
    const nlohmann::json& in, const JsonPointer& at = JsonPointer());

}  // namespace llmconform::skill
