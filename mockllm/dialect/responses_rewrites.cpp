// The Responses API's rewrites (DIA-RESP-*, mockllm/dialect/rewrites.h): each
// touches only the events (or the body member) its deviation is about.
#include <set>

#include "mockllm/dialect/rewrites.h"

namespace llmconform::mockllm::dialect {
namespace {

bool IsTerminal(std::string_view type) {
  return type == "response.completed" || type == "response.incomplete";
}

// Removes `key` from `obj` (an object); true when it was there.
bool Erase(OJson& obj, const char* key) { return obj.is_object() && obj.erase(key) > 0; }

void RespNoSequenceNumber(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs)
    if (e.is_json && Erase(e.json, "sequence_number")) e.changed = true;
}

// Drops each event's `event:` line (comments and other fields stay).
void RespUnnamedEvents(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs) {
    if (!e.is_json) continue;
    std::string kept;
    std::string_view lines = e.field_lines;
    while (!lines.empty()) {
      const std::size_t end = lines.find('\n');
      const std::string_view line = lines.substr(0, end == std::string_view::npos ? end : end + 1);
      lines.remove_prefix(line.size());
      if (!line.starts_with("event:")) kept.append(line);
    }
    if (kept.size() == e.field_lines.size()) continue;
    e.field_lines = std::move(kept);
    e.changed = true;
  }
}

void RespNoItemAdded(std::vector<StreamEvent>& evs, const OJson&) {
  std::erase_if(evs, [](const StreamEvent& e) {
    const std::string type = TypeOf(e);
    return type == "response.output_item.added" || type == "response.content_part.added";
  });
}

void RespCallIdAtDone(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs) {
    if (TypeOf(e) != "response.output_item.added" || !e.json.contains("item")) continue;
    OJson& item = e.json["item"];
    if (TextOr(item, "type") == "function_call" && Erase(item, "call_id")) e.changed = true;
  }
}

void RespNoUsage(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs)
    if (IsTerminal(TypeOf(e)) && e.json.contains("response") && Erase(e.json["response"], "usage"))
      e.changed = true;
}

void RespDoneSentinel(std::vector<StreamEvent>& evs, const OJson&) {
  // After the terminal event (or the last event), before any unparsed tail.
  std::size_t at = evs.size();
  while (at > 0 && !evs[at - 1].is_json && !evs[at - 1].done) --at;
  if (at == 0 || evs[at - 1].done) return;
  StreamEvent done;
  done.raw = "data: [DONE]\n\n";
  done.data = "[DONE]";
  done.done = true;
  done.t_ms = evs[at - 1].t_ms;
  evs.insert(evs.begin() + static_cast<std::ptrdiff_t>(at), std::move(done));
}

void BodyRespNoUsage(BodyView& b, const OJson&, bool) {
  if (b.r.status >= 400 || !b.json.is_object()) return;
  const std::string status = TextOr(b.json, "status");
  if ((status == "completed" || status == "incomplete") && Erase(b.json, "usage")) b.changed = true;
}

}  // namespace

void AddResponsesRows(std::vector<Rewrite>& t) {
  const OJson none = OJson::object();
  t.push_back({{"DIA-RESP-NO-SEQUENCE-NUMBER", "`sequence_number` left out of every event", ""},
               none,
               RespNoSequenceNumber,
               nullptr});
  t.push_back({{"DIA-RESP-UNNAMED-EVENTS",
                "no `event:` lines: each event's type only in its data's `type`", ""},
               none,
               RespUnnamedEvents,
               nullptr});
  t.push_back({{"DIA-RESP-NO-ITEM-ADDED",
                "no `response.output_item.added` or `response.content_part.added` events", ""},
               none,
               RespNoItemAdded,
               nullptr});
  t.push_back({{"DIA-RESP-CALL-ID-AT-DONE",
                "a function_call item's `call_id` left out of its `output_item.added`", ""},
               none,
               RespCallIdAtDone,
               nullptr});
  t.push_back({{"DIA-RESP-NO-USAGE",
                "no `usage` on the completed/incomplete response (terminal event or body)", ""},
               none,
               RespNoUsage,
               BodyRespNoUsage});
  t.push_back({{"DIA-RESP-DONE-SENTINEL", "`data: [DONE]` after the terminal event", ""},
               none,
               RespDoneSentinel,
               nullptr});
}

}  // namespace llmconform::mockllm::dialect
