#include "protocols/skill/json_input.h"

#include "base/format.h"
#include "base/json.h"

namespace llmconform::skill {
namespace {

std::expected<std::string, Error> ScalarText(const Json& v, const JsonPointer& at) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return std::unexpected(
      ErrorAt(at, Format("expected string, number, boolean or null, got {}", JsonTypeName(v))));
}

// Sets `into` from the optional string field `key`.
std::expected<void, Error> OptionalInto(const Json& in, const JsonPointer& at, std::string_view key,
                                        std::string& into) {
  auto v = OptionalString(in, at, key);
  if (!v) return std::unexpected(v.error());
  if (*v) into = std::move(**v);
  return {};
}

// The fields the session and the first user message share: "skillName",
// "parameters"?, "customPrompt"?.
std::expected<void, Error> ReadSkillCall(const Json& in, const JsonPointer& at,
                                         std::string& skill_name, Parameters& parameters,
                                         std::string& custom_prompt) {
  auto name = RequireString(in, at, "skillName");
  if (!name) return std::unexpected(name.error());
  skill_name = std::move(*name);
  if (auto it = in.find("parameters"); it != in.end() && !it->is_null()) {
    auto p = ParametersFromJson(*it, at / "parameters");
    if (!p) return std::unexpected(p.error());
    parameters = std::move(*p);
  }
  return OptionalInto(in, at, "customPrompt", custom_prompt);
}

}  // namespace

std::expected<Parameters, Error> ParametersFromJson(const Json& parameters, const JsonPointer& at) {
  if (!parameters.is_array()) {
    return std::unexpected(ErrorAt(at, Format("expected array, got {}", JsonTypeName(parameters))));
  }
  Parameters out;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Json& pair = parameters[i];
    if (!pair.is_array() || pair.size() != 2) {
      return std::unexpected(
          ErrorAt(at / i, Format("expected [key, value], got {}",
                                 pair.is_array() ? Format("an array of {}", pair.size())
                                                 : std::string(JsonTypeName(pair)))));
    }
    if (!pair[0].is_string()) {
      return std::unexpected(
          ErrorAt(at / i / 0, Format("expected string, got {}", JsonTypeName(pair[0]))));
    }
    auto value = ScalarText(pair[1], at / i / 1);
    if (!value) return std::unexpected(value.error());
    out.emplace_back(pair[0].get<std::string>(), std::move(*value));
  }
  return out;
}

std::expected<SessionSetup, Error> SessionSetupFromJson(const Json& in, const JsonPointer& at) {
  if (auto ok = RequireObjectAt(in, at); !ok) return std::unexpected(ok.error());
  SessionSetup setup;
  if (auto ok = ReadSkillCall(in, at, setup.skill_name, setup.parameters, setup.custom_prompt);
      !ok) {
    return std::unexpected(ok.error());
  }
  auto markdown = RequireString(in, at, "skillMarkdown");
  if (!markdown) return std::unexpected(markdown.error());
  setup.skill_markdown = std::move(*markdown);
  for (auto [key, into] :
       {std::pair<std::string_view, std::string*>{"basePrompt", &setup.base_prompt},
        {"serverContext", &setup.server_context}}) {
    if (auto ok = OptionalInto(in, at, key, *into); !ok) return std::unexpected(ok.error());
  }
  auto max_steps = OptionalInt(in, at, "maxSteps");
  if (!max_steps) return std::unexpected(max_steps.error());
  if (*max_steps) {
    if (**max_steps < 1) {
      return std::unexpected(ErrorAt(
          at / "maxSteps", Format("expected an integer of at least 1, got {}", **max_steps)));
    }
    setup.max_steps = **max_steps;
  }
  return setup;
}

std::expected<InitialPromptInput, Error> InitialPromptInputFromJson(const Json& in,
                                                                    const JsonPointer& at) {
  if (auto ok = RequireObjectAt(in, at); !ok) return std::unexpected(ok.error());
  InitialPromptInput input;
  if (auto ok = ReadSkillCall(in, at, input.skill_name, input.parameters, input.custom_prompt);
      !ok) {
    return std::unexpected(ok.error());
  }
  auto step = OptionalInt(in, at, "step");
  if (!step) return std::unexpected(step.error());
  input.step = step->value_or(1);
  auto max_steps = OptionalInt(in, at, "maxSteps");
  if (!max_steps) return std::unexpected(max_steps.error());
  input.max_steps = max_steps->value_or(kDefaultMaxSteps);
  return input;
}

}  // namespace llmconform::skill
