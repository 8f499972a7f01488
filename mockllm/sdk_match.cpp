#include "mockllm/sdk_match.h"

#include <array>
#include <utility>

namespace llmconform::mockllm {
namespace {

using Json = nlohmann::json;

// Fields whose value, when equal to this, is the API's default.
const std::array<std::pair<std::string_view, Json>, 11>& PlainDefaults() {
  static const std::array<std::pair<std::string_view, Json>, 11> defaults = {{
      {"stream", false},
      {"n", 1},
      {"temperature", 1},
      {"top_p", 1},
      {"presence_penalty", 0},
      {"frequency_penalty", 0},
      {"logprobs", false},
      {"store", false},
      {"service_tier", "auto"},
      {"parallel_tool_calls", true},
      {"response_format", {{"type", "text"}}},
  }};
  return defaults;
}

bool UsageOnly(const Json& options) {
  if (!options.is_object()) return false;
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (it.key() != "include_usage" || !it->is_boolean()) return false;
  }
  return true;
}

}  // namespace

Json SdkNormalize(Json body) {
  if (!body.is_object()) return body;
  for (auto it = body.begin(); it != body.end();) {
    if (it->is_null()) {
      it = body.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [key, value] : PlainDefaults()) {
    // 1 equals 1.0: nlohmann compares numbers as values.
    if (auto it = body.find(std::string(key)); it != body.end() && *it == value) body.erase(it);
  }
  if (auto it = body.find("tools"); it != body.end() && it->is_array() && it->empty()) {
    body.erase(it);
  }
  const bool tools = body.contains("tools");
  if (auto it = body.find("tool_choice");
      it != body.end() && *it == (tools ? Json("auto") : Json("none"))) {
    body.erase(it);
  }
  if (auto it = body.find("stream_options"); it != body.end() && UsageOnly(*it)) body.erase(it);
  return body;
}

std::string_view SdkDefaultsHelp() {
  return R"(  any top-level field whose value is null; stream:false, n:1, temperature:1,
  top_p:1, presence_penalty:0, frequency_penalty:0, logprobs:false, store:false,
  service_tier:"auto", parallel_tool_calls:true, response_format:{"type":"text"},
  tools:[], tool_choice:"auto" with tools ("none" without), stream_options that
  only ask for usage ({"include_usage":...}))";
}

}  // namespace llmconform::mockllm
