#include "protocols/wire/dialect.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/wire/dialect_report.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::wire {
namespace {

// Ids only the detectors below report (the accumulator does not).
constexpr std::string_view kOwnIds[] = {
    "DIA-REASONING-DETAILS",     "DIA-TOOLCALL-WHOLE-DELTA",
    "DIA-USAGE-EVERY-CHUNK",     "DIA-PADDING-FIELD",
    "DIA-FINISH-REASON-OMITTED", "DIA-FLAT-ERROR",
    "DIA-ERROR-ARRAY",           "DIA-ERROR-WITH-200",
    "DIA-THINK-TAGS-IN-CONTENT", "DIA-CONTENT-FILTER-RESULTS",
    "DIA-NOT-JSON-BODY",
};

using Report = DeviationReport;

bool IsString(const Json& j, const char* key) { return j.contains(key) && j[key].is_string(); }
bool NonNull(const Json& j, const char* key) { return j.contains(key) && !j[key].is_null(); }

// Deviations of a `message` (non-streamed) or `delta` object.
void MessageLike(const Json& m, const std::string& where, Report& r) {
  if (!m.is_object()) return;
  if (IsString(m, "reasoning_content"))
    r.Add("DIA-REASONING-CONTENT", where + "/reasoning_content",
          "reasoning text in `reasoning_content` beside `content`");
  if (IsString(m, "reasoning"))
    r.Add("DIA-REASONING-FIELD", where + "/reasoning", "reasoning text in `reasoning`");
  if (m.contains("reasoning_details") && m["reasoning_details"].is_array() &&
      !m["reasoning_details"].empty())
    r.Add("DIA-REASONING-DETAILS", where + "/reasoning_details",
          "reasoning as a `reasoning_details` array");
  if (m.contains("content") && m["content"].is_array())
    r.Add("DIA-CONTENT-ARRAY", where + "/content",
          "`content` is an array of blocks (e.g. thinking blocks), not a string");
  if (IsString(m, "content")) {
    const std::string& c = m["content"].get_ref<const std::string&>();
    if (c.starts_with("<think>"))
      r.Add("DIA-THINK-TAGS-IN-CONTENT", where + "/content",
            "reasoning inline in `content` between <think> tags");
  }
}

struct CallState {
  bool seen = false;
};

}  // namespace

bool IsDeviationId(std::string_view id) {
  static const std::vector<std::string_view> ids = DialectIds();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::vector<std::string_view> DialectIds() {
  std::vector<std::string_view> ids;
  for (Surface surface : AllSurfaces())
    for (auto id : DialectIds(surface)) ids.push_back(id);
  return ids;
}

std::vector<std::string_view> DialectIds(Surface surface) {
  std::vector<std::string_view> ids;
  switch (surface) {
    case Surface::kChat:
      for (auto id : kAccumulatorDeviationIds) ids.push_back(id);
      for (auto id : kOwnIds) ids.push_back(id);
      break;
    case Surface::kResponses:
      for (auto id : kResponsesDeviationIds) ids.push_back(id);
      break;
    case Surface::kMessages:
      for (auto id : kMessagesDeviationIds) ids.push_back(id);
      break;
    case Surface::kGemini:
      for (auto id : kGeminiDeviationIds) ids.push_back(id);
      break;
  }
  return ids;
}

std::vector<Deviation> DetectStreamDialect(std::string_view raw_sse) {
  Report r;
  SseParser parser;
  std::size_t event_no = 0;
  std::size_t chunk_no = 0;
  std::size_t usage_chunks = 0;
  std::map<int, CallState> calls;
  bool role_seen = false;
  parser.Feed(raw_sse, [&](const SseEventView& ev) {
    ++event_no;
    const std::string at = Format("event {}", event_no);
    if (ev.event != "message")
      r.Add("DIA-NAMED-EVENT", at, Format("a named event `event: {}`", ev.event));
    if (ev.data == "[DONE]") return;
    const Json chunk = ReadJsonOrDiscarded(ev.data);
    if (!chunk.is_object()) return;
    ++chunk_no;
    if (chunk.contains("error") && chunk["error"].is_object())
      r.Add("DIA-ERROR-IN-STREAM", at + " /error", "an error object inside an HTTP 200 stream");
    if (chunk.contains("obfuscation") || chunk.contains("p"))
      r.Add("DIA-PADDING-FIELD", at + (chunk.contains("obfuscation") ? " /obfuscation" : " /p"),
            "a padding field of random length on chunks");
    if (NonNull(chunk, "usage") && chunk["usage"].is_object()) ++usage_chunks;
    if (usage_chunks == 2)
      r.Add("DIA-USAGE-EVERY-CHUNK", at + " /usage", "usage on more than one chunk");
    if (chunk.contains("x_groq") && chunk["x_groq"].is_object() &&
        chunk["x_groq"].contains("usage"))
      r.Add("DIA-USAGE-X-GROQ", at + " /x_groq/usage", "usage inside `x_groq`");
    if (!chunk.contains("choices") || !chunk["choices"].is_array()) return;
    const Json& choices = chunk["choices"];
    if (choices.empty() && chunk_no == 1)
      r.Add("DIA-EMPTY-FIRST-CHUNK", at + " /choices", "the first chunk has `choices: []`");
    for (std::size_t ci = 0; ci < choices.size(); ++ci) {
      const Json& c = choices[ci];
      if (!c.is_object()) continue;
      const std::string cp = Format("{} /choices/{}", at, ci);
      if (!c.contains("finish_reason"))
        r.Add("DIA-FINISH-REASON-OMITTED", cp, "`finish_reason` left out instead of null");
      if (c.contains("content_filter_results"))
        r.Add("DIA-CONTENT-FILTER-RESULTS", cp + "/content_filter_results",
              "`content_filter_results` on choices");
      if (!c.contains("delta") || !c["delta"].is_object()) continue;
      const Json& d = c["delta"];
      MessageLike(d, cp + "/delta", r);
      if (d.contains("role")) {
        if (role_seen)
          r.Add("DIA-ROLE-EVERY-CHUNK", cp + "/delta/role",
                "`delta.role` repeated after the first chunk");
        role_seen = true;
      }
      if (!d.contains("tool_calls") || !d["tool_calls"].is_array()) continue;
      for (std::size_t ti = 0; ti < d["tool_calls"].size(); ++ti) {
        const Json& tc = d["tool_calls"][ti];
        if (!tc.is_object()) continue;
        const std::string tp = Format("{}/delta/tool_calls/{}", cp, ti);
        if (!tc.contains("index") || !tc["index"].is_number_integer()) {
          r.Add("DIA-TOOLCALL-NO-INDEX", tp, "a tool-call delta without `index`");
          continue;
        }
        const int idx = tc["index"].get<int>();
        CallState& st = calls[idx];
        const bool has_id = IsString(tc, "id") && !tc["id"].get_ref<const std::string&>().empty();
        if (st.seen && has_id)
          r.Add("DIA-TOOLCALL-ID-REPEATED", tp + "/id",
                "the tool-call `id` repeated on a later delta");
        if (!st.seen && tc.contains("function") && tc["function"].is_object() &&
            IsString(tc["function"], "arguments")) {
          const std::string& args = tc["function"]["arguments"].get_ref<const std::string&>();
          const Json parsed = ReadJsonOrDiscarded(args);
          if (!args.empty() && parsed.is_object())
            r.Add("DIA-TOOLCALL-WHOLE-DELTA", tp + "/function/arguments",
                  "a tool call's whole arguments in its first delta");
        }
        st.seen = true;
      }
    }
  });
  parser.Finish();
  // What the accumulator notices (it names deviations by the same ids),
  // where the scan above did not already place it.
  const AccumulatedStream acc = AccumulateStream(raw_sse);
  for (const Finding& f : acc.findings) {
    if (IsDeviationId(f.rule) && !r.Has(f.rule)) r.Add(f.rule, "stream", f.message);
  }
  return r.Take();
}

std::vector<Deviation> DetectBodyDialect(std::string_view body, std::optional<int> status) {
  Report r;
  const Json j = ReadJsonOrDiscarded(body);
  if (j.is_discarded()) {
    if (!body.empty()) r.Add("DIA-NOT-JSON-BODY", "", "the body is not JSON");
    return r.Take();
  }
  if (j.is_array()) {
    if (!j.empty() && j[0].is_object() && j[0].contains("error"))
      r.Add("DIA-ERROR-ARRAY", "/0/error", "the error body is a JSON array of error objects");
    return r.Take();
  }
  if (!j.is_object()) return r.Take();
  if (j.contains("error")) {
    if (status && *status < 400)
      r.Add("DIA-ERROR-WITH-200", "/error", Format("an error body with HTTP status {}", *status));
  } else if (!j.contains("choices") &&
             (j.contains("detail") || j.contains("message") || StringOf(j, "object") == "error")) {
    r.Add("DIA-FLAT-ERROR", j.contains("detail") ? "/detail" : "/message",
          "an error body without the `error` wrapper");
  }
  if (j.contains("choices") && j["choices"].is_array()) {
    for (std::size_t ci = 0; ci < j["choices"].size(); ++ci) {
      const Json& c = j["choices"][ci];
      if (!c.is_object()) continue;
      if (c.contains("content_filter_results"))
        r.Add("DIA-CONTENT-FILTER-RESULTS", Format("/choices/{}/content_filter_results", ci),
              "`content_filter_results` on choices");
      if (c.contains("message")) MessageLike(c["message"], Format("/choices/{}/message", ci), r);
    }
  }
  return r.Take();
}

std::vector<Deviation> DetectStreamDialect(Surface surface, std::string_view raw_sse) {
  switch (surface) {
    case Surface::kChat:
      return DetectStreamDialect(raw_sse);
    case Surface::kResponses:
      return DetectResponsesStreamDialect(raw_sse);
    case Surface::kMessages:
      return DetectMessagesStreamDialect(raw_sse);
    case Surface::kGemini:
      return DetectGeminiStreamDialect(raw_sse);
  }
  return {};
}

std::vector<Deviation> DetectBodyDialect(Surface surface, std::string_view body,
                                         std::optional<int> status) {
  switch (surface) {
    case Surface::kChat:
      return DetectBodyDialect(body, status);
    case Surface::kResponses:
      return DetectResponsesBodyDialect(body, status);
    case Surface::kMessages:
      return DetectMessagesBodyDialect(body, status);
    case Surface::kGemini:
      return DetectGeminiBodyDialect(body, status);
  }
  return {};
}

}  // namespace llmconform::wire
