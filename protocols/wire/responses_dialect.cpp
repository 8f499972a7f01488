// Dialect detection for the Responses API (protocols/wire/dialect.h): the
// DIA-RESP-* deviations of specs/wire/dialects.json, each located as
// "event N /pointer" in a stream or by JSON pointer in a body.
#include <map>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/dialect_report.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface_reading.h"

namespace llmconform::wire {
namespace {

bool Terminal(std::string_view type) {
  return type == "response.completed" || type == "response.incomplete";
}

bool HasUsage(const Json& response) {
  auto u = response.find("usage");
  return u != response.end() && u->is_object();
}

// Deviations one event of a Responses stream shows by itself or against
// the items added before it. `added`: output index -> the call_id its output_item.added gave (""
// for none, or for an item that is no function call).
void ResponsesEvent(const Json& data, const std::string& at,
                    std::map<std::int64_t, std::string>& added, DeviationReport& r) {
  if (!data.contains("sequence_number"))
    r.Add("DIA-RESP-NO-SEQUENCE-NUMBER", at + " /sequence_number",
          "an event without `sequence_number`");
  const std::string type = StringAt(data, "type");
  const auto index = IndexAt(data, "output_index");
  auto item = data.find("item");
  const bool call =
      item != data.end() && item->is_object() && StringAt(*item, "type") == "function_call";
  const std::string call_id = call ? StringAt(*item, "call_id") : "";
  if (type == "response.output_item.added") {
    if (index) added[*index] = call_id;
    if (call && call_id.empty())
      r.Add("DIA-RESP-CALL-ID-AT-DONE", at + " /item/call_id",
            "a function_call item added without its `call_id` (it comes at `.done`)");
  } else if (type == "response.output_item.done" && call && index && added.contains(*index) &&
             !added[*index].empty() && added[*index] != call_id) {
    r.Add("DIA-RESP-CALL-ID-AT-DONE", at + " /item/call_id",
          Format("the call_id at `.done` ({}) differs from the one added ({})", call_id,
                 added[*index]));
  }
  if (type != "response.output_item.added" && index && !added.contains(*index)) {
    r.Add("DIA-RESP-NO-ITEM-ADDED", at + " /output_index",
          Format("`{}` for output item {}, which no `response.output_item.added` opened", type,
                 *index));
  }
  if (Terminal(type)) {
    auto resp = data.find("response");
    if (resp != data.end() && resp->is_object() && !HasUsage(*resp))
      r.Add("DIA-RESP-NO-USAGE", at + " /response/usage",
            Format("`{}` without a usage object", type));
  }
}

}  // namespace

std::vector<Deviation> DetectResponsesStreamDialect(std::string_view raw_sse) {
  DeviationReport r;
  SseParser parser;
  std::size_t event_no = 0;
  std::map<std::int64_t, std::string> added;  // output index -> call_id (ResponsesEvent)
  parser.Feed(raw_sse, [&](const SseEventView& ev) {
    ++event_no;
    const std::string at = Format("event {}", event_no);
    if (ev.data == "[DONE]") {
      r.Add("DIA-RESP-DONE-SENTINEL", at, "Chat Completions' `data: [DONE]` in a Responses stream");
      return;
    }
    const Json data = ReadJsonOrDiscarded(ev.data);
    if (!data.is_object()) return;
    if (ev.event == "message" && !StringAt(data, "type").empty())
      r.Add("DIA-RESP-UNNAMED-EVENTS", at,
            Format("an event without an `event:` line (type `{}` only in data)",
                   StringAt(data, "type")));
    ResponsesEvent(data, at, added, r);
  });
  parser.Finish();
  return r.Take();
}

std::vector<Deviation> DetectResponsesBodyDialect(std::string_view body,
                                                  std::optional<int> status) {
  DeviationReport r;
  const Json j = ReadJsonOrDiscarded(body);
  if (!j.is_object() || (status && *status >= 400)) return r.Take();
  if (auto e = j.find("error"); e != j.end() && !e->is_null()) return r.Take();  // an error body
  const std::string s = StringAt(j, "status");
  if ((s == "completed" || s == "incomplete") && !HasUsage(j))
    r.Add("DIA-RESP-NO-USAGE", "/usage", Format("a `{}` response without a usage object", s));
  return r.Take();
}

}  // namespace llmconform::wire
