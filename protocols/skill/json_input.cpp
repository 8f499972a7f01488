#include "protocols/skill/json_input.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "protocols/wire/chat.h"

namespace llmconform::skill {
namespace {

using Json = nlohmann::json;

std::expected<std::string, Error> ScalarText(const Json& v, std::size_t i) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return std::unexpected(
      Error{Format("field \"parameters\"[{}][1]: expected string, number, boolean or null, got {}",
                   i, JsonTypeName(v))});
}

// Sets `into` from the optional string field `key`.
std::expected<void, Error> OptionalInto(const Json& in, std::string_view key, std::string& into) {
  auto v = OptionalString(in, key);
  if (!v) return std::unexpected(v.error());
  if (*v) into = std::move(**v);
  return {};
}

}  // namespace

std::expected<Parameters, Error> ParametersFromJson(const Json& parameters) {
  if (!parameters.is_array()) {
    return std::unexpected(
        Error{Format("field \"parameters\": expected array, got {}", JsonTypeName(parameters))});
  }
  Parameters out;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Json& pair = parameters[i];
    if (!pair.is_array() || pair.size() != 2) {
      return std::unexpected(
          Error{Format("field \"parameters\"[{}]: expected [key, value], got {}", i,
                       pair.is_array() ? Format("an array of {}", pair.size())
                                       : std::string(JsonTypeName(pair)))});
    }
    if (!pair[0].is_string()) {
      return std::unexpected(Error{Format("field \"parameters\"[{}][0]: expected string, got {}", i,
                                          JsonTypeName(pair[0]))});
    }
    auto value = ScalarText(pair[1], i);
    if (!value) return std::unexpected(value.error());
    out.emplace_back(pair[0].get<std::string>(), std::move(*value));
  }
  return out;
}

std::expected<SessionSetup, Error> SessionSetupFromJson(const Json& in) {
  if (auto ok = RequireObjectInput(in); !ok) return std::unexpected(ok.error());
  SessionSetup setup;
  auto name = RequireString(in, "skillName");
  if (!name) return std::unexpected(name.error());
  setup.skill_name = std::move(*name);
  auto markdown = RequireString(in, "skillMarkdown");
  if (!markdown) return std::unexpected(markdown.error());
  setup.skill_markdown = std::move(*markdown);
  for (auto [key, into] :
       {std::pair<std::string_view, std::string*>{"basePrompt", &setup.base_prompt},
        {"serverContext", &setup.server_context},
        {"customPrompt", &setup.custom_prompt}}) {
    if (auto ok = OptionalInto(in, key, *into); !ok) return std::unexpected(ok.error());
  }
  if (auto it = in.find("parameters"); it != in.end() && !it->is_null()) {
    auto params = ParametersFromJson(*it);
    if (!params) return std::unexpected(params.error());
    setup.parameters = std::move(*params);
  }
  auto max_steps = OptionalInt(in, "maxSteps");
  if (!max_steps) return std::unexpected(max_steps.error());
  if (*max_steps) {
    if (**max_steps < 1) {
      return std::unexpected(Error{
          Format("field \"maxSteps\": expected an integer of at least 1, got {}", **max_steps)});
    }
    setup.max_steps = **max_steps;
  }
  return setup;
}

}  // namespace llmconform::skill
