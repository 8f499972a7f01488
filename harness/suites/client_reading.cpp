#include "harness/suites/client_reading.h"

#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness::client_suite {
namespace {


Json ErrorJson(int status, std::string_view kind, std::string message) {
  return Json{{"status", status >= 400 ? Json(status) : Json(nullptr)},
              {"kind", kind},
              {"message", std::move(message)}};
}

// text, reasoning and tool_calls of `m`, reasoning moved out of the content.
void ReadMessage(wire::ChatMessage m, Json& out) {
  wire::MoveContentThinking(m);
  wire::MoveInlineThink(m);
  out["text"] = m.Text();
  std::string reasoning = m.reasoning_content.value_or("");
  if (const Json& r = MemberOf(m.extra, "reasoning"); r.is_string() && reasoning.empty())
    reasoning = r.get<std::string>();
  out["reasoning"] = reasoning;
  Json calls = Json::array();
  for (const wire::ToolCall& tc : m.tool_calls)
    calls.push_back(
        {{"id", tc.id}, {"name", tc.function.name}, {"arguments", tc.function.arguments}});
  out["tool_calls"] = std::move(calls);
}

Json Empty() {
  return Json{{"text", ""},       {"reasoning", ""},   {"tool_calls", Json::array()},
              {"usage", nullptr}, {"finish", nullptr}, {"error", nullptr}};
}

Json ReadStream(const Reply& r) {
  Json out = Empty();
  wire::AccumulatedStream acc = wire::AccumulateStream(r.body);
  ReadMessage(std::move(acc.message), out);
  out["usage"] = acc.usage;
  out["finish"] = acc.finish_reason ? Json(*acc.finish_reason) : Json(nullptr);
  if (acc.error) {
    out["error"] = ErrorJson(r.status, "in_stream", acc.error->message);
  } else if (r.cut || (!acc.saw_done && !acc.finish_reason)) {
    out["error"] = ErrorJson(r.status, "cut",
                             r.cut ? "the connection closed before the stream ended"
                                   : "the stream ended with neither a finish_reason nor [DONE]");
  }
  return out;
}

Json ReadBody(const Reply& r) {
  Json out = Empty();
  const Json body = ReadJsonOrDiscarded(r.body);
  if (r.cut) {
    out["error"] = ErrorJson(r.status, "cut", "the connection closed before the body ended");
    return out;
  }
  const bool completion = body.is_object() && body.contains("choices");
  if (!completion) {
    if (auto e = wire::ErrorBodyFromJson(body)) {
      out["error"] = ErrorJson(r.status, r.status >= 400 ? "http" : "in_body", e->message);
      return out;
    }
  }
  if (r.status >= 400) {
    out["error"] = ErrorJson(r.status, "http", std::string(r.body.substr(0, 200)));
    return out;
  }
  auto parsed =
      body.is_discarded() ? std::unexpected(Error{"not JSON"}) : wire::ResponseFromJson(body);
  if (!parsed || parsed->choices.empty()) {
    out["error"] =
        ErrorJson(r.status, "malformed", "a 200 body that is neither a completion nor an error");
    return out;
  }
  ReadMessage(std::move(parsed->choices[0].message), out);
  out["usage"] = parsed->usage.value_or(nullptr);
  out["finish"] =
      parsed->choices[0].finish_reason ? Json(*parsed->choices[0].finish_reason) : Json(nullptr);
  return out;
}

// The surface's own token counts as {prompt_tokens, completion_tokens, total_tokens}.
Json UsageOf(const Json& usage) {
  if (!usage.is_object()) return nullptr;
  const auto count = [&](std::initializer_list<const char*> keys) -> Json {
    for (const char* k : keys)
      if (const Json& v = MemberOf(usage, k); v.is_number_integer()) return v;
    return nullptr;
  };
  return Json{{"prompt_tokens", count({"input_tokens", "promptTokenCount"})},
              {"completion_tokens", count({"output_tokens", "candidatesTokenCount"})},
              {"total_tokens", count({"total_tokens", "totalTokenCount"})}};
}

// A reply of the responses, messages or gemini surface. A Gemini stream
// framed as one JSON array (streamGenerateContent without alt=sse,
// DIA-GEM-STREAM-JSON-ARRAY) is read as the body it is.
Json ReadSurfaceReply(const Reply& r, bool sse) {
  Json out = Empty();
  wire::CanonicalResult c;
  if (r.surface == wire::Surface::kGemini) {
    const std::size_t first = r.body.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && r.body[first] == '[') sse = false;
  }
  if (sse && r.status < 400) {
    c = wire::AccumulateSurfaceStream(r.surface, r.body);
  } else {
    const Json body = ReadJsonOrDiscarded(r.body);
    if (r.cut) {
      out["error"] = ErrorJson(r.status, "cut", "the connection closed before the body ended");
      return out;
    }
    if (r.status >= 400) {
      const auto e = wire::ErrorBodyFromJson(body);
      out["error"] =
          ErrorJson(r.status, "http", e ? e->message : std::string(r.body.substr(0, 200)));
      return out;
    }
    if (!body.is_object() && !(r.surface == wire::Surface::kGemini && body.is_array())) {
      out["error"] = ErrorJson(r.status, "malformed", "a 200 body that is not a JSON object");
      return out;
    }
    c = wire::ReadSurfaceBody(r.surface, body);
  }
  out["text"] = c.Text();
  out["reasoning"] = c.Reasoning();
  for (const wire::OutputItem* f : c.FunctionCalls())
    out["tool_calls"].push_back(
        {{"id", f->call_id}, {"name", f->name}, {"arguments", f->arguments}});
  out["usage"] = UsageOf(c.usage);
  out["finish"] = c.status ? Json(*c.status) : Json(nullptr);
  if (c.error) {
    out["error"] = ErrorJson(r.status, sse ? "in_stream" : "in_body", c.error->message);
  } else if (sse && (r.cut || !c.terminated)) {
    out["error"] = ErrorJson(r.status, "cut",
                             r.cut ? "the connection closed before the stream ended"
                                   : "the stream ended before its terminal event");
  }
  return out;
}

}  // namespace

Json ReadReply(const Reply& r) {
  try {
    const bool sse = r.stream || r.content_type.find("event-stream") != std::string_view::npos;
    if (r.surface != wire::Surface::kChat) return ReadSurfaceReply(r, sse);
    return sse && r.status < 400 ? ReadStream(r) : ReadBody(r);
  } catch (const std::exception& e) {
    Json out = Empty();
    out["error"] = ErrorJson(r.status, "malformed", e.what());
    return out;
  }
}

Json ReadReplied(const Json& replied) {
  if (!replied.is_object()) return nullptr;
  const Json& status = MemberOf(replied, "status");
  const std::string type = StringOf(replied, "content_type");
  const std::string body = StringOf(replied, "body");
  return ReadReply(Reply{
      .status = status.is_number_integer() ? status.get<int>() : 200,
      .content_type = type,
      .body = body,
      .stream = MemberOf(replied, "stream") == true,
      .cut = MemberOf(replied, "cut") == true,
      .surface =
          wire::SurfaceFromName(StringOf(replied, "surface")).value_or(wire::Surface::kChat)});
}

std::size_t CommentLines(std::string_view body) {
  std::size_t n = 0, at = 0;
  while (at < body.size()) {
    const std::size_t nl = body.find('\n', at);
    if (body[at] == ':' || body.substr(at).starts_with("event: ping\n") ||
        body.substr(at).starts_with("event: ping\r"))
      ++n;
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return n;
}

}  // namespace llmconform::harness::client_suite
