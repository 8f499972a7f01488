// The API surfaces' stream readers (protocols/wire/surface.h) beside the
// least any reader of the same bytes does: split the SSE events and parse
// each event's JSON data (nlohmann), keeping nothing. Each surface reads a
// 200-event text stream of its own shape, as its provider sends it (Chat
// Completions chunks, Responses API events, Anthropic Messages events,
// Gemini GenerateContentResponses). Targets (issues 30 and 31): each
// accumulator at >= 0.5x the bare parse of its own stream.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/ratio_main.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface.h"

namespace {

using llmconform::Json;
using llmconform::wire::Surface;

constexpr int kDeltas = 196;  // text deltas; with the framing events, 200 events a stream

std::string Piece(int i) { return "token" + std::to_string(i) + " "; }

// Pieces 0..n-1 joined: what a stream of n text deltas says.
std::string FullText(int n = kDeltas) {
  std::string text;
  for (int i = 0; i < n; ++i) text += Piece(i);
  return text;
}

constexpr int kGeminiChunks = 200;  // every Gemini event carries text

std::string Data(const Json& j) { return "data: " + j.dump() + "\n\n"; }
std::string Named(const std::string& name, const Json& j) {
  return "event: " + name + "\n" + Data(j);
}

std::string ChatStream() {
  auto chunk = [](const Json& delta, const Json& finish) {
    return Json{
        {"id", "chatcmpl-bench"},
        {"object", "chat.completion.chunk"},
        {"created", 1767225600},
        {"model", "gpt-4o-mini"},
        {"choices", Json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
  };
  std::string s = Data(chunk({{"role", "assistant"}, {"content", ""}}, nullptr));
  for (int i = 0; i < kDeltas; ++i) s += Data(chunk({{"content", Piece(i)}}, nullptr));
  s += Data(chunk(Json::object(), "stop"));
  s += Data(
      {{"id", "chatcmpl-bench"},
       {"object", "chat.completion.chunk"},
       {"choices", Json::array()},
       {"usage", {{"prompt_tokens", 20}, {"completion_tokens", kDeltas}, {"total_tokens", 216}}}});
  return s + "data: [DONE]\n\n";
}

std::string ResponsesStream() {
  const std::string text = FullText();
  const Json part_done = {{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}};
  const Json item_done = {{"id", "msg_1"},
                          {"type", "message"},
                          {"status", "completed"},
                          {"role", "assistant"},
                          {"content", Json::array({part_done})}};
  const Json response = {{"id", "resp_1"},
                         {"object", "response"},
                         {"model", "gpt-4o-mini"},
                         {"status", "in_progress"},
                         {"output", Json::array()}};
  int seq = 0;
  auto ev = [&seq](const std::string& type, Json j) {
    j["type"] = type;
    j["sequence_number"] = seq++;
    return Named(type, j);
  };
  std::string s = ev("response.created", {{"response", response}});
  s += ev("response.output_item.added", {{"output_index", 0},
                                         {"item",
                                          {{"id", "msg_1"},
                                           {"type", "message"},
                                           {"status", "in_progress"},
                                           {"role", "assistant"},
                                           {"content", Json::array()}}}});
  s += ev("response.content_part.added",
          {{"item_id", "msg_1"},
           {"output_index", 0},
           {"content_index", 0},
           {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", Json::array()}}}});
  for (int i = 0; i < kDeltas; ++i) {
    s += ev("response.output_text.delta",
            {{"item_id", "msg_1"}, {"output_index", 0}, {"content_index", 0}, {"delta", Piece(i)}});
  }
  s += ev("response.output_text.done",
          {{"item_id", "msg_1"}, {"output_index", 0}, {"content_index", 0}, {"text", text}});
  s += ev("response.content_part.done",
          {{"item_id", "msg_1"}, {"output_index", 0}, {"content_index", 0}, {"part", part_done}});
  s += ev("response.output_item.done", {{"output_index", 0}, {"item", item_done}});
  Json done = response;
  done["status"] = "completed";
  done["output"] = Json::array({item_done});
  done["usage"] = {{"input_tokens", 20}, {"output_tokens", kDeltas}, {"total_tokens", 216}};
  return s + ev("response.completed", {{"response", done}});
}

std::string MessagesStream() {
  auto ev = [](const std::string& type, Json j) {
    j["type"] = type;
    return Named(type, j);
  };
  std::string s =
      ev("message_start", {{"message",
                            {{"id", "msg_1"},
                             {"type", "message"},
                             {"role", "assistant"},
                             {"model", "claude-sonnet-4-5"},
                             {"content", Json::array()},
                             {"stop_reason", nullptr},
                             {"stop_sequence", nullptr},
                             {"usage", {{"input_tokens", 20}, {"output_tokens", 1}}}}}});
  s += ev("content_block_start",
          {{"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}});
  for (int i = 0; i < kDeltas; ++i) {
    s += ev("content_block_delta",
            {{"index", 0}, {"delta", {{"type", "text_delta"}, {"text", Piece(i)}}}});
  }
  s += ev("content_block_stop", {{"index", 0}});
  s += ev("message_delta", {{"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                            {"usage", {{"output_tokens", kDeltas}}}});
  return s + ev("message_stop", Json::object());
}

std::string GeminiStream() {
  auto chunk = [](const std::string& text, bool last) {
    Json candidate = {{"content", {{"parts", Json::array({{{"text", text}}})}, {"role", "model"}}},
                      {"index", 0}};
    if (last) candidate["finishReason"] = "STOP";
    Json j = {{"candidates", Json::array({candidate})},
              {"modelVersion", "gemini-2.5-flash"},
              {"responseId", "bench-1"}};
    if (last) {
      j["usageMetadata"] = {
          {"promptTokenCount", 20}, {"candidatesTokenCount", kDeltas}, {"totalTokenCount", 216}};
    }
    return Data(j);
  };
  std::string s;
  for (int i = 0; i < kGeminiChunks; ++i) s += chunk(Piece(i), i == kGeminiChunks - 1);
  return s;
}

const std::string& StreamOf(Surface surface) {
  static const std::string chat = ChatStream(), responses = ResponsesStream(),
                           messages = MessagesStream(), gemini = GeminiStream();
  switch (surface) {
    case Surface::kChat:
      return chat;
    case Surface::kResponses:
      return responses;
    case Surface::kMessages:
      return messages;
    case Surface::kGemini:
      break;
  }
  return gemini;
}

// The surface's accumulator over its whole stream, as the oracle op and lint
// read it. Aborts when the stream is not clean, so the figure is a reading,
// not an error path.
void BM_Accumulate(benchmark::State& state, Surface surface) {
  const std::string& s = StreamOf(surface);
  const auto check = llmconform::wire::AccumulateSurfaceStream(surface, s);
  const std::string want = FullText(surface == Surface::kGemini ? kGeminiChunks : kDeltas);
  if (!check.findings.empty() || check.Text() != want) {
    state.SkipWithError("the bench stream does not read cleanly");
    return;
  }
  for (auto _ : state) {
    auto r = llmconform::wire::AccumulateSurfaceStream(surface, s);
    benchmark::DoNotOptimize(r.items);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

// The floor: the same SSE split and a JSON parse of every event's data.
void BM_BareParse(benchmark::State& state, Surface surface) {
  const std::string& s = StreamOf(surface);
  for (auto _ : state) {
    llmconform::wire::SseParser parser;
    std::size_t n = 0;
    parser.Feed(s, [&n](const llmconform::wire::SseEventView& ev) {
      if (ev.data == "[DONE]") return;
      Json j = Json::parse(ev.data);
      n += j.size();
    });
    parser.Finish();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

BENCHMARK_CAPTURE(BM_Accumulate, chat, Surface::kChat);
BENCHMARK_CAPTURE(BM_BareParse, chat, Surface::kChat);
BENCHMARK_CAPTURE(BM_Accumulate, responses, Surface::kResponses);
BENCHMARK_CAPTURE(BM_BareParse, responses, Surface::kResponses);
BENCHMARK_CAPTURE(BM_Accumulate, messages, Surface::kMessages);
BENCHMARK_CAPTURE(BM_BareParse, messages, Surface::kMessages);
BENCHMARK_CAPTURE(BM_Accumulate, gemini, Surface::kGemini);
BENCHMARK_CAPTURE(BM_BareParse, gemini, Surface::kGemini);

}  // namespace

LLMCONFORM_BENCH_MAIN(
    {{"BM_Accumulate/chat", "BM_BareParse/chat", "bytes_per_second", 0.5, true},
     {"BM_Accumulate/responses", "BM_BareParse/responses", "bytes_per_second", 0.5, true},
     {"BM_Accumulate/messages", "BM_BareParse/messages", "bytes_per_second", 0.5, true},
     {"BM_Accumulate/gemini", "BM_BareParse/gemini", "bytes_per_second", 0.5, true}})
