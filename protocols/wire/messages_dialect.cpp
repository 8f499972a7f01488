// Dialect detection for Anthropic Messages (protocols/wire/dialect.h): the
// DIA-MSG-* deviations of specs/wire/dialects.json, each located as
// "event N /pointer" in a stream or by JSON pointer in a body.
#include <map>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/dialect_report.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface_reading.h"

namespace llmconform::wire {
namespace {

bool IsZero(const Json& j, const char* key) {
  auto v = j.find(key);
  return v != j.end() && v->is_number_integer() && v->get<std::int64_t>() == 0;
}

// A streamed tool_use or thinking block, as far as the deviations need it.
struct OpenBlock {
  std::string type;
  std::size_t start_event = 0;
  std::size_t first_delta_event = 0;
  std::size_t json_deltas = 0;
  std::string joined;     // the input_json_delta fragments joined
  std::string signature;  // the start's signature and every signature_delta
};

// What the scan of one stream keeps.
struct Scan {
  DeviationReport r;
  std::map<std::int64_t, OpenBlock> open;  // index -> a tool_use or thinking block not closed
};

void MessageStart(const Json& data, const std::string& at, Scan& s) {
  auto m = data.find("message");
  if (m == data.end() || !m->is_object()) return;
  auto u = m->find("usage");
  if (u != m->end() && u->is_object() && IsZero(*u, "input_tokens") && IsZero(*u, "output_tokens"))
    s.r.Add("DIA-MSG-START-USAGE-ZERO", at + " /message/usage",
            "message_start's usage is all zeros (the counts come on message_delta)");
}

void BlockStart(const Json& data, std::int64_t index, std::size_t n, Scan& s) {
  auto block = data.find("content_block");
  if (block == data.end() || !block->is_object()) return;
  OpenBlock b{.type = StringAt(*block, "type"), .start_event = n};
  const std::string at = Format("event {}", n);
  if (b.type == "tool_use") {
    auto input = block->find("input");
    if (input != block->end() && input->is_object() && !input->empty())
      s.r.Add("DIA-MSG-TOOL-INPUT-AT-START", at + " /content_block/input",
              "a tool_use block's input already in its content_block_start");
  } else if (b.type == "thinking") {
    if (!block->contains("signature"))
      s.r.Add("DIA-MSG-THINKING-START-NO-SIGNATURE", at + " /content_block",
              "a thinking block's content_block_start without `signature`");
    b.signature = StringAt(*block, "signature");
  } else {
    return;
  }
  s.open[index] = std::move(b);
}

void BlockDelta(const Json& data, std::int64_t index, std::size_t n, Scan& s) {
  auto it = s.open.find(index);
  auto delta = data.find("delta");
  if (it == s.open.end() || delta == data.end() || !delta->is_object()) return;
  OpenBlock& b = it->second;
  const std::string type = StringAt(*delta, "type");
  if (type == "input_json_delta") {
    if (b.json_deltas++ == 0) b.first_delta_event = n;
    b.joined += StringAt(*delta, "partial_json");
  } else if (type == "signature_delta") {
    b.signature += StringAt(*delta, "signature");
  }
}

void BlockStop(std::int64_t index, Scan& s) {
  auto it = s.open.find(index);
  if (it == s.open.end()) return;
  const OpenBlock b = std::move(it->second);
  s.open.erase(it);
  if (b.type == "tool_use" && b.json_deltas == 1 && ReadJsonOrDiscarded(b.joined).is_object())
    s.r.Add("DIA-MSG-TOOL-INPUT-WHOLE-DELTA",
            Format("event {} /delta/partial_json", b.first_delta_event),
            "a tool_use block's whole input in one input_json_delta");
  if (b.type == "thinking" && b.signature.empty())
    s.r.Add("DIA-MSG-THINKING-NO-SIGNATURE",
            Format("event {} /content_block/signature", b.start_event),
            "a thinking block closed without a signature");
}

// The deviations event `n` (its data `data`, an object) shows.
void Event(const Json& data, std::size_t n, Scan& s) {
  const std::string type = StringAt(data, "type");
  if (type == "message_start") return MessageStart(data, Format("event {}", n), s);
  const auto index = IndexAt(data, "index");
  if (!index) return;
  if (type == "content_block_start") {
    BlockStart(data, *index, n, s);
  } else if (type == "content_block_delta") {
    BlockDelta(data, *index, n, s);
  } else if (type == "content_block_stop") {
    BlockStop(*index, s);
  }
}

}  // namespace

std::vector<Deviation> DetectMessagesStreamDialect(std::string_view raw_sse) {
  Scan scan;
  SseParser parser;
  std::size_t event_no = 0;
  parser.Feed(raw_sse, [&](const SseEventView& ev) {
    ++event_no;
    const Json data = ReadJsonOrDiscarded(ev.data);
    if (data.is_object()) Event(data, event_no, scan);
  });
  parser.Finish();
  return scan.r.Take();
}

std::vector<Deviation> DetectMessagesBodyDialect(std::string_view body, std::optional<int> status) {
  DeviationReport r;
  const Json j = ReadJsonOrDiscarded(body);
  if (!j.is_object()) return r.Take();
  auto e = j.find("error");
  if (e != j.end() && e->is_object()) {
    if (StringAt(j, "type") != "error")
      r.Add("DIA-MSG-OPENAI-ERROR-BODY", "/error",
            "an error body in OpenAI's envelope (no `\"type\": \"error\"` around it)");
    return r.Take();
  }
  auto content = j.find("content");
  if ((status && *status >= 400) || content == j.end() || !content->is_array()) return r.Take();
  for (std::size_t i = 0; i < content->size(); ++i) {
    const Json& block = (*content)[i];
    if (StringAt(block, "type") == "thinking" && StringAt(block, "signature").empty())
      r.Add("DIA-MSG-THINKING-NO-SIGNATURE", Format("/content/{}/signature", i),
            "a thinking block without a signature");
  }
  return r.Take();
}

}  // namespace llmconform::wire
