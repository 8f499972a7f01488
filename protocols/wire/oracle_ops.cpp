#include "protocols/wire/oracle_ops.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/stream_accumulator.h"
#include "protocols/wire/surface.h"

namespace llmconform::wire {
namespace {

std::expected<Json, Error> SseParseOp(const Json& in) {
  auto stream = RequireString(in, "stream");
  if (!stream) return std::unexpected(stream.error());
  std::vector<std::size_t> splits;
  if (in.contains("splits") && !in["splits"].is_null()) {
    auto arr = RequireArray(in, "splits");
    if (!arr) return std::unexpected(arr.error());
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const Json& s = (*arr)[i];
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0) {
        return std::unexpected(
            Error::AtPointer(Format("/splits/{}", i),
                             Format("expected a byte offset (integer >= 0), got {}", s.dump())));
      }
      splits.push_back(s.get<std::size_t>());
    }
  }
  auto parsed = ParseSse(*stream, std::move(splits));
  Json events = Json::array();
  for (const auto& e : parsed.events)
    events.push_back({{"event", e.event}, {"data", e.data}, {"id", e.id}});
  Json out{{"events", std::move(events)}};
  if (parsed.retry) out["retry"] = *parsed.retry;
  return out;
}

std::expected<Json, Error> AccumulateOp(const Json& in) {
  auto stream = RequireString(in, "stream");
  if (!stream) return std::unexpected(stream.error());
  auto acc = AccumulateStream(*stream);
  Json findings = Json::array();
  for (const auto& f : acc.findings) findings.push_back({{"rule", f.rule}, {"message", f.message}});
  Json out{{"message", ToJson(acc.message)},
           {"finish_reason", acc.finish_reason ? Json(*acc.finish_reason) : Json(nullptr)},
           {"usage", acc.usage},
           {"findings", std::move(findings)}};
  if (acc.error) out["error"] = ToJson(*acc.error)["error"];
  return out;
}

// {"stream"} (a raw SSE body) or {"body"} (a parsed response body) of
// `surface` -> the canonical result (surface.h ToJson).
std::expected<Json, Error> SurfaceAccumulateOp(Surface surface, const Json& in) {
  if (in.is_object() && in.contains("body") && !in.contains("stream")) {
    return ToJson(ReadSurfaceBody(surface, in["body"]));
  }
  auto stream = RequireString(in, "stream");
  if (!stream) {
    return std::unexpected(
        Error{Format("{} (or give \"body\": a response body)", stream.error().message)});
  }
  return ToJson(AccumulateSurfaceStream(surface, *stream));
}

// The input's "surface" (a surface name; absent: Chat Completions).
std::expected<Surface, Error> DialectSurface(const Json& in) {
  if (!in.is_object() || !in.contains("surface")) return Surface::kChat;
  const Json& name = in["surface"];
  std::optional<Surface> surface;
  if (name.is_string()) surface = SurfaceFromName(name.get_ref<const std::string&>());
  if (surface) return *surface;
  std::string names;
  for (Surface s : AllSurfaces())
    names += Format("{}{}", names.empty() ? "" : ", ", SurfaceName(s));
  return std::unexpected(Error::AtPointer(
      "/surface", Format("expected a surface name ({}), got {}", names, name.dump())));
}

// {"stream"} or {"body", "status"?}, with "surface"? ->
// {"deviations": [{"id","where","message"}]}.
std::expected<Json, Error> DialectOp(const Json& in) {
  auto surface = DialectSurface(in);
  if (!surface) return std::unexpected(surface.error());
  std::vector<Deviation> found;
  if (in.contains("stream")) {
    auto stream = RequireString(in, "stream");
    if (!stream) return std::unexpected(stream.error());
    found = DetectStreamDialect(*surface, *stream);
  } else {
    auto body = RequireString(in, "body");
    if (!body) return std::unexpected(body.error());
    std::optional<int> status;
    if (in.contains("status") && in["status"].is_number_integer()) status = in["status"].get<int>();
    found = DetectBodyDialect(*surface, *body, status);
  }
  Json out = Json::array();
  for (const Deviation& d : found)
    out.push_back({{"id", d.id}, {"where", d.where}, {"message", d.message}});
  return Json{{"deviations", std::move(out)}};
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"sse.parse",
       "WHATWG SSE parse, optionally split into reads: {\"stream\",\"splits\"?} -> "
       "{\"events\":[{\"event\",\"data\","
       "\"id\"}],\"retry\"?}",
       SseParseOp},
      {"wire.accumulate",
       "accumulate a raw Chat Completions SSE body: {\"stream\"} -> "
       "{\"message\",\"finish_reason\",\"usage\","
       "\"findings\"}",
       AccumulateOp},
      {"responses.accumulate",
       "accumulate a Responses API SSE body or read a response body: {\"stream\"} | "
       "{\"body\"} -> {\"items\",\"text\",\"reasoning\",\"status\",\"usage\","
       "\"error\"?,\"findings\":[{\"rule\",\"message\",\"event\",\"pointer\"}],…}",
       [](const Json& in) { return SurfaceAccumulateOp(Surface::kResponses, in); }},
      {"gemini.accumulate",
       "accumulate a Gemini streamGenerateContent?alt=sse body or read a generateContent body: "
       "{\"stream\"} | {\"body\"} -> {\"items\",\"text\",\"reasoning\",\"status\","
       "\"usage\",\"error\"?,\"findings\":[{\"rule\",\"message\",\"event\",\"pointer\"}],…}",
       [](const Json& in) { return SurfaceAccumulateOp(Surface::kGemini, in); }},
      {"messages.accumulate",
       "accumulate an Anthropic Messages SSE body or read a message body: {\"stream\"} | "
       "{\"body\"} -> {\"items\",\"text\",\"reasoning\",\"status\",\"usage\","
       "\"error\"?,\"findings\":[{\"rule\",\"message\",\"event\",\"pointer\"}],…}",
       [](const Json& in) { return SurfaceAccumulateOp(Surface::kMessages, in); }},
      {"wire.dialect",
       "deviations of an exchange from its API surface's canonical wire format "
       "(specs/wire/dialects.json): {\"stream\"} | {\"body\",\"status\"?}, with "
       "\"surface\"?: chat (default) | responses | messages | gemini -> "
       "{\"deviations\":[{\"id\",\"where\",\"message\"}]}",
       DialectOp},
  };
}

}  // namespace llmconform::wire
