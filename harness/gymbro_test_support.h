// Shared by the GymBro harness tests: what the reference service's upstream
// streams, as net::FakeHttpClient chunks or as a trace mockllm replays.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmconform::harness {

// The chunks the upstream streams for the service's request for "hi":
// `pieces` of content, then a finish (unless `finish` is false) and [DONE],
// each the `data` of one event.
inline nlohmann::json GymbroUpstreamEvents(const std::vector<std::string>& pieces,
                                           bool finish = true) {
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
  return events;
}

// The same events as text/event-stream frames, one chunk each.
inline std::vector<std::string> GymbroUpstreamChunks(const std::vector<std::string>& pieces,
                                                     bool finish = true) {
  std::vector<std::string> chunks;
  for (const auto& e : GymbroUpstreamEvents(pieces, finish)) {
    const auto& data = e["data"];
    chunks.push_back("data: " + (data.is_string() ? data.get<std::string>() : data.dump()) +
                     "\n\n");
  }
  return chunks;
}

// The text of a trace (id "gymbro/test") whose one exchange answers the
// service's upstream request for "hi" with GymbroUpstreamEvents; `fault`,
// when not null, is the exchange's mockllm fault.
inline std::string GymbroUpstreamTrace(const std::vector<std::string>& pieces,
                                       const nlohmann::json& fault = nullptr, bool finish = true) {
  const nlohmann::json events = GymbroUpstreamEvents(pieces, finish);
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
