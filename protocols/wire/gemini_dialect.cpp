// Dialect detection for the Gemini API (protocols/wire/dialect.h): the
// DIA-GEM-* deviations of specs/wire/dialects.json, each located as
// "event N /pointer" in an SSE stream, or by JSON pointer in a body or in a
// stream framed as one JSON array ("/2/createTime").
#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/dialect_report.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/sse_blocks.h"

namespace llmconform::wire {
namespace {

// A GenerateContentResponse (not an error object, not some other value).
bool IsResponse(const Json& j) {
  return j.is_object() && !j.contains("error") &&
         (j.contains("candidates") || j.contains("usageMetadata") || j.contains("promptFeedback"));
}

bool HasUsageMetadata(const Json& r) {
  auto u = r.find("usageMetadata");
  return u != r.end() && u->is_object();
}

// What one response shows by itself; `at` prefixes its pointers ("event 3 ", "/2").
void VertexFields(const Json& r, const std::string& at, DeviationReport& out) {
  if (r.contains("createTime"))
    out.Add("DIA-GEM-VERTEX-FIELDS", at + "/createTime", "Vertex AI's `createTime` on a response");
  else if (HasUsageMetadata(r) && r["usageMetadata"].contains("trafficType"))
    out.Add("DIA-GEM-VERTEX-FIELDS", at + "/usageMetadata/trafficType",
            "Vertex AI's `usageMetadata.trafficType`");
}

// Usage across a stream's responses: reported at the first response without
// usageMetadata when the last one has it (`where` of each response, in order).
void UsageLastOnly(const std::vector<std::pair<std::string, bool>>& responses,
                   DeviationReport& out) {
  if (responses.size() < 2 || !responses.back().second) return;
  for (std::size_t i = 0; i + 1 < responses.size(); ++i) {
    if (responses[i].second) continue;
    out.Add("DIA-GEM-USAGE-LAST-ONLY", responses[i].first + "/usageMetadata",
            Format("no `usageMetadata` on response {} of {}; only the last carries it", i + 1,
                   responses.size()));
    return;
  }
}

// A stream (or a body) framed as a JSON array of responses.
void JsonArrayStream(const Json& array, DeviationReport& out) {
  out.Add("DIA-GEM-STREAM-JSON-ARRAY", "",
          Format("the stream is one JSON array of {} responses, not SSE events", array.size()));
  std::vector<std::pair<std::string, bool>> responses;
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (!IsResponse(array[i])) continue;
    const std::string at = Format("/{}", i);
    VertexFields(array[i], at, out);
    responses.emplace_back(at, HasUsageMetadata(array[i]));
  }
  UsageLastOnly(responses, out);
}

}  // namespace

std::vector<Deviation> DetectGeminiStreamDialect(std::string_view raw) {
  DeviationReport r;
  std::string_view rest = raw;
  if (rest.starts_with(kSseBom)) rest.remove_prefix(kSseBom.size());
  const std::size_t first = rest.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && rest[first] == '[') {
    const Json array = ReadJsonOrDiscarded(rest);
    if (array.is_array()) {
      JsonArrayStream(array, r);
    } else {
      r.Add("DIA-GEM-STREAM-JSON-ARRAY", "",
            "the stream opens a JSON array (not SSE events) that does not parse whole");
    }
    return r.Take();
  }
  SseParser parser;
  std::size_t event_no = 0;
  std::vector<std::pair<std::string, bool>> responses;  // "event N " -> has usage
  parser.Feed(raw, [&](const SseEventView& ev) {
    ++event_no;
    const Json data = ReadJsonOrDiscarded(ev.data);
    if (!IsResponse(data)) return;
    const std::string at = Format("event {} ", event_no);
    VertexFields(data, at, r);
    responses.emplace_back(at, HasUsageMetadata(data));
  });
  parser.Finish();
  UsageLastOnly(responses, r);
  return r.Take();
}

std::vector<Deviation> DetectGeminiBodyDialect(std::string_view body, std::optional<int> status) {
  DeviationReport r;
  const Json j = ReadJsonOrDiscarded(body);
  if (j.is_array()) {
    if (!j.empty() && j[0].is_object() && j[0].contains("error")) {
      r.Add("DIA-GEM-ERROR-ARRAY", "/0/error", "the error body is a JSON array of error objects");
    } else if (!j.empty() && IsResponse(j[0])) {
      JsonArrayStream(j, r);
    }
    return r.Take();
  }
  if (status && *status >= 400) return r.Take();
  if (IsResponse(j)) VertexFields(j, "", r);
  return r.Take();
}

}  // namespace llmconform::wire
