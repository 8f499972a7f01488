// Reading skill inputs out of JSON (oracle operations, scenario files), with
// errors that say where and what.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "protocols/skill/session.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::skill {

// `parameters`: an array of [key, value] pairs, in order. The key is a
// string; the value a string, or a number, boolean or null written as
// JavaScript's template literal would ("5", "true", "null").
// Errors: "field \"parameters\"[1]: expected [key, value], got object",
// "field \"parameters\"[0][1]: expected string, number, boolean or null, got array".
std::expected<Parameters, Error> ParametersFromJson(const nlohmann::json& parameters);

// The session inputs of an object: "skillName" (required), "skillMarkdown"
// (required), "basePrompt"?, "serverContext"?, "parameters"?, "customPrompt"?,
// "maxSteps"? (≥ 1). Errors name the field.
std::expected<SessionSetup, Error> SessionSetupFromJson(const nlohmann::json& in);

}  // namespace llmconform::skill
