// Shared by the GymBro harness tests: upstream traces for the reference
// service, as mockllm replays them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmconform::harness {

// The text of a trace (id "gymbro/test") whose one exchange answers the
// service's upstream request for "hi" with `pieces` of streamed content, then
// a finish (unless `finish` is false) and [DONE]; `fault`, when not null, is
// the exchange's mockllm fault.
inline std::string GymbroUpstreamTrace(const std::vector<std::string>& pieces,
                                       const nlohmann::json& fault = nullptr, bool finish = true) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& p : pieces) {
    events.push_back(
        {{"data",
          {{"id", "chatcmpl-1"},
           {"object", "chat.completion.chunk"},
           {"model", "gpt-4o-mini-2024"},
           {"choices",
            {{{"index", 0}, {"delta", {{"content", p}}}, {"finish_reason", nullptr}}}}}}});
  }
  if (finish) {
    events.push_back(
        {{"data",
          {{"id", "chatcmpl-1"},
           {"object", "chat.completion.chunk"},
           {"choices",
            {{{"index", 0}, {"delta", nlohmann::json::object()}, {"finish_reason", "stop"}}}}}}});
    events.push_back({{"data", "[DONE]"}});
  }
  nlohmann::json exchange{{"seq", 1},
                          {"request",
                           {{"method", "POST"},
                            {"path", "/v1/chat/completions"},
                            {"body",
                             {{"model", "gpt-4o-mini"},
                              {"messages", {{{"role", "user"}, {"content", "hi"}}}},
                              {"stream", true}}}}},
                          {"response",
                           {{"status", 200},
                            {"headers", {{"content-type", "text/event-stream"}}},
                            {"events", events}}}};
  if (!fault.is_null()) exchange["fault"] = fault;
  const nlohmann::json header{
      {"format", "llmconform-trace/1"}, {"id", "gymbro/test"}, {"origin", "synthesized"}};
  return header.dump() + "\n" + exchange.dump() + "\n";
}

}  // namespace llmconform::harness
