// The Responses API's stream accumulator (responses.h).
#include <cstdint>
#include <limits>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/responses.h"

namespace llmconform::wire {
namespace {

bool IsTerminal(std::string_view type) {
  return type == "response.completed" || type == "response.failed" || type == "response.incomplete";
}

// What RESP-TERMINAL-OUTPUT compares: the item as a client reads it. Not the
// encrypted content: it is opaque, and OpenAI issues it anew in the terminal
// response (recordings show a different ciphertext there than in
// output_item.done).
bool SameItem(const OutputItem& a, const OutputItem& b) {
  return a.kind == b.kind && a.type == b.type && a.id == b.id && a.text == b.text &&
         a.refusal == b.refusal && a.summary == b.summary && a.call_id == b.call_id &&
         a.name == b.name && a.arguments == b.arguments;
}

}  // namespace

void ResponsesAccumulator::Report(std::string_view rule, std::string_view pointer,
                                  std::string message) {
  ReportAt(rule, out_.events, pointer, std::move(message));
}

void ResponsesAccumulator::ReportAt(std::string_view rule, std::size_t event,
                                    std::string_view pointer, std::string message) {
  log_.Report(rule, event, pointer, std::move(message));
}

void ResponsesAccumulator::NoteComments(std::size_t) {
  // Comments (keep-alives, ': OPENROUTER PROCESSING') are no event: clients skip them.
}

void ResponsesAccumulator::AddEvent(const SseEventView& event) {
  ++out_.events;
  if (terminal_event_ != 0) {
    Report("RESP-AFTER-TERMINAL", "",
           Format("an event after the stream's end (event {}); clients stop reading there",
                  terminal_event_));
    return;
  }
  if (event.data == "[DONE]") {
    Report("RESP-EVENT-JSON", "",
           "data is Chat Completions' '[DONE]' sentinel; Responses streams end with a terminal "
           "event");
    return;
  }
  auto read = ReadNamedEvent(event, "RESP", out_.events, log_);
  if (!read) return;
  const Json& data = read->data;
  const std::string& type = read->type;
  CheckSequence(data);
  if (!any_json_ && type != "response.created") {
    Report("RESP-CREATED-FIRST", "/type",
           Format("the first event is '{}', not 'response.created'", type));
  }
  any_json_ = true;
  Dispatch(type, data);
}

void ResponsesAccumulator::CheckSequence(const Json& data) {
  auto it = data.find("sequence_number");
  if (it == data.end()) {
    Report("RESP-SEQUENCE", "/sequence_number", "no sequence_number");
    ++next_sequence_;
    return;
  }
  const auto n = IndexAt(data, "sequence_number");
  if (!n) {
    Report(
        "RESP-SEQUENCE", "/sequence_number",
        Format("sequence_number {} is not an integer from 0 to 2^63-1", it->dump().substr(0, 40)));
    ++next_sequence_;
    return;
  }
  if (static_cast<std::uint64_t>(*n) != next_sequence_) {
    Report("RESP-SEQUENCE", "/sequence_number",
           Format("sequence_number {}, expected {}", *n, next_sequence_));
  }
  next_sequence_ = static_cast<std::uint64_t>(*n) + 1;
}

void ResponsesAccumulator::Dispatch(std::string_view type, const Json& data) {
  if (type == "response.created" || type == "response.in_progress" || type == "response.queued") {
    OnResponseSnapshot(data);
  } else if (type == "response.output_item.added") {
    OnItemAdded(data);
  } else if (type == "response.output_item.done") {
    OnItemDone(data);
  } else if (type == "response.content_part.added") {
    OnPartAdded(data, false);
  } else if (type == "response.reasoning_summary_part.added") {
    OnPartAdded(data, true);
  } else if (type == "response.output_text.delta" || type == "response.refusal.delta" ||
             type == "response.function_call_arguments.delta" ||
             type == "response.reasoning_summary_text.delta" ||
             type == "response.reasoning_text.delta" || type == "response.reasoning.delta") {
    OnDelta(type, data);
  } else if (type == "response.output_text.done" || type == "response.refusal.done" ||
             type == "response.function_call_arguments.done" ||
             type == "response.reasoning_summary_text.done" ||
             type == "response.reasoning_text.done" || type == "response.reasoning.done") {
    OnDone(type, data);
  } else if (type == "response.content_part.done" ||
             type == "response.reasoning_summary_part.done") {
    ItemOf(data, type);  // the item must exist; the part's text was checked at its .done
  } else if (IsTerminal(type)) {
    OnTerminal(type, data);
  } else if (type == "error") {
    OnError(data);
  } else {
    other_.Note(type, out_.other_events);
  }
}

void ResponsesAccumulator::OnResponseSnapshot(const Json& data) {
  auto r = data.find("response");
  if (r == data.end() || !r->is_object()) return;
  if (out_.id.empty()) out_.id = StringAt(*r, "id");
  if (out_.model.empty()) out_.model = StringAt(*r, "model");
  if (auto s = r->find("status"); s != r->end() && s->is_string()) out_.status = *s;
}

void ResponsesAccumulator::OnItemAdded(const Json& data) {
  auto item = data.find("item");
  if (item == data.end() || !item->is_object()) {
    Report("RESP-EVENT-JSON", "/item", "output_item.added without an item object");
    return;
  }
  const auto index = IndexAt(data, "output_index");
  const auto expected = static_cast<std::int64_t>(items_.size());
  if (!index || *index != expected) {
    Report(
        "RESP-INDEXES", "/output_index",
        Format("output_index {} for the item added as number {} (from 0)",
               data.contains("output_index") ? data["output_index"].dump() : "missing", expected));
  }
  ItemState state;
  state.item = ResponsesItemFromJson(*item);
  state.output_index = index.value_or(expected);
  if (state.item.kind == ItemKind::kFunctionCall) {
    for (const char* key : {"call_id", "name"}) {
      if (StringAt(*item, key).empty())
        Report("RESP-FUNCTION-CALL-IDS", Format("/item/{}", key),
               Format("a function_call item added without its {}", key));
    }
    state.item.arguments.clear();  // what the deltas build
  }
  by_index_[state.output_index] = items_.size();
  if (!state.item.id.empty()) by_id_[state.item.id] = items_.size();
  items_.push_back(std::move(state));
}

ResponsesAccumulator::ItemState* ResponsesAccumulator::ItemOf(const Json& data,
                                                              std::string_view type) {
  const auto index = IndexAt(data, "output_index");
  const std::string id = StringAt(data, "item_id");
  ItemState* found = nullptr;
  if (index) {
    if (auto it = by_index_.find(*index); it != by_index_.end()) found = &items_[it->second];
  } else if (!id.empty()) {
    if (auto it = by_id_.find(id); it != by_id_.end()) found = &items_[it->second];
  }
  if (!found) {
    Report("RESP-ITEM-ADDED-FIRST", index ? "/output_index" : "/item_id",
           Format("'{}' for an item never added ({})", type,
                  index ? Format("output_index {}", *index) : Format("item_id '{}'", id)));
    return nullptr;
  }
  if (!id.empty() && !found->item.id.empty() && id != found->item.id) {
    Report("RESP-INDEXES", "/item_id",
           Format("item_id '{}' but output_index {} is item '{}'", id, found->output_index,
                  found->item.id));
  }
  return found;
}

void ResponsesAccumulator::OnPartAdded(const Json& data, bool summary) {
  ItemState* s = ItemOf(
      data, summary ? "response.reasoning_summary_part.added" : "response.content_part.added");
  if (!s) return;
  const char* key = summary ? "summary_index" : "content_index";
  auto& parts = summary ? s->summaries : s->parts;
  const auto index = IndexAt(data, key);
  const auto expected = static_cast<std::int64_t>(parts.size());
  if (!index || *index != expected) {
    Report("RESP-INDEXES", Format("/{}", key),
           Format("{} {} for part number {} (from 0) of item {}", key,
                  data.contains(key) ? data[key].dump() : "missing", expected, s->output_index));
  }
  parts.try_emplace(index.value_or(expected));
}

void ResponsesAccumulator::OnDelta(std::string_view type, const Json& data) {
  ItemState* s = ItemOf(data, type);
  if (!s) return;
  auto d = data.find("delta");
  if (d == data.end() || !d->is_string()) {
    Report("RESP-EVENT-JSON", "/delta", Format("'{}' without a string delta", type));
    return;
  }
  if (type == "response.function_call_arguments.delta") {
    s->arguments += d->get_ref<const std::string&>();
    s->argument_deltas = true;
    return;
  }
  const bool summary = type == "response.reasoning_summary_text.delta";
  const char* key = summary ? "summary_index" : "content_index";
  auto& parts = summary ? s->summaries : s->parts;
  const auto index = IndexAt(data, key).value_or(0);
  auto part = parts.find(index);
  if (part == parts.end()) {
    Report(
        "RESP-INDEXES", Format("/{}", key),
        Format("'{}' for {} {} of item {}, a part never added", type, key, index, s->output_index));
    part = parts.try_emplace(index).first;
  }
  part->second += d->get_ref<const std::string&>();
}

void ResponsesAccumulator::OnDone(std::string_view type, const Json& data) {
  ItemState* s = ItemOf(data, type);
  if (!s) return;
  const bool args = type == "response.function_call_arguments.done";
  const bool summary = type == "response.reasoning_summary_text.done";
  const char* field = args ? "arguments" : type == "response.refusal.done" ? "refusal" : "text";
  auto v = data.find(field);
  if (v == data.end() || !v->is_string()) {
    Report("RESP-EVENT-JSON", Format("/{}", field),
           Format("'{}' without a string {}", type, field));
    return;
  }
  const std::string& done = v->get_ref<const std::string&>();
  std::string joined;
  bool any = true;
  if (args) {
    joined = s->arguments;
    any = s->argument_deltas;
  } else {
    const auto& parts = summary ? s->summaries : s->parts;
    auto part = parts.find(IndexAt(data, summary ? "summary_index" : "content_index").value_or(0));
    joined = part == parts.end() ? "" : part->second;
  }
  if (any && joined != done) {
    Report("RESP-DELTAS-MATCH-DONE", Format("/{}", field),
           Format("'{}' says {} bytes, the deltas joined are {} bytes ({} differs)", type,
                  done.size(), joined.size(), field));
  }
}

void ResponsesAccumulator::OnItemDone(const Json& data) {
  auto item = data.find("item");
  if (item == data.end() || !item->is_object()) {
    Report("RESP-EVENT-JSON", "/item", "output_item.done without an item object");
    return;
  }
  ItemState* s = ItemOf(data, "response.output_item.done");
  OutputItem done = ResponsesItemFromJson(*item);
  if (!s) {
    // Read anyway: a client keeps the item it was given whole.
    ItemState state;
    state.output_index =
        IndexAt(data, "output_index").value_or(static_cast<std::int64_t>(items_.size()));
    by_index_[state.output_index] = items_.size();
    if (!done.id.empty()) by_id_[done.id] = items_.size();
    items_.push_back(std::move(state));
    s = &items_.back();
  } else if (s->item.kind == ItemKind::kFunctionCall && s->argument_deltas &&
             s->arguments != done.arguments) {
    Report("RESP-DELTAS-MATCH-DONE", "/item/arguments",
           "the function call's arguments differ from its deltas joined");
  } else if (s->item.kind == ItemKind::kMessage && !s->parts.empty()) {
    std::string joined;
    for (const auto& [i, text] : s->parts) joined += text;
    if (joined != done.text + done.refusal) {
      Report("RESP-DELTAS-MATCH-DONE", "/item/content",
             "the message's text differs from its deltas joined");
    }
  }
  s->item = std::move(done);
  s->done = true;
}

void ResponsesAccumulator::OnError(const Json& data) {
  terminal_event_ = out_.events;
  out_.terminated = true;
  auto body = ErrorBodyFromJson(data);
  if (!body) body = ErrorBody{data.dump().substr(0, 200), "", nullptr, nullptr};
  if (body->type == "error") body->type.clear();  // the flat event's own type
  out_.error = std::move(body);
  out_.status = "failed";
}

void ResponsesAccumulator::OnTerminal(std::string_view type, const Json& data) {
  terminal_event_ = out_.events;
  out_.terminated = true;
  auto r = data.find("response");
  if (r == data.end() || !r->is_object()) {
    Report("RESP-EVENT-JSON", "/response", Format("'{}' without a response object", type));
    out_.status = std::string(type.substr(type.find('.') + 1));
    return;
  }
  for (const char* key : {"id", "model"}) {
    if (StringAt(*r, key).empty())
      Report("RESP-TERMINAL-ID-MODEL", Format("/response/{}", key),
             Format("the terminal response has no {} (clients such as Codex need it)", key));
  }
  if (!StringAt(*r, "id").empty()) out_.id = StringAt(*r, "id");
  if (!StringAt(*r, "model").empty()) out_.model = StringAt(*r, "model");
  const std::string want(type.substr(type.find('.') + 1));
  out_.status = StringAt(*r, "status");
  if (*out_.status != want) {
    Report("RESP-STATUS", "/response/status",
           Format("status '{}' on a '{}' event", *out_.status, type));
    if (out_.status->empty()) out_.status = want;
  }
  if (auto d = r->find("incomplete_details"); d != r->end() && d->is_object())
    if (auto reason = d->find("reason"); reason != d->end() && reason->is_string())
      out_.incomplete_reason = *reason;
  if (want == "incomplete" && !out_.incomplete_reason)
    Report("RESP-STATUS", "/response/incomplete_details",
           "an incomplete response without incomplete_details.reason");
  if (auto u = r->find("usage"); u != r->end()) out_.usage = *u;
  if (auto e = r->find("error"); e != r->end() && e->is_object())
    out_.error = ErrorBodyFromJson(Json{{"error", *e}});
  auto output = r->find("output");
  if (output == r->end() || !output->is_array()) {
    Report("RESP-TERMINAL-OUTPUT", "/response/output", "the terminal response has no output array");
    return;
  }
  CompareTerminalOutput(*output);
}

void ResponsesAccumulator::CompareTerminalOutput(const Json& output) {
  if (items_.empty() && !output.empty()) {
    Report("RESP-TERMINAL-OUTPUT", "/response/output",
           Format("{} output item(s) that no output_item event streamed; read from here",
                  output.size()));
    for (const Json& item : output) {
      ItemState state;
      state.item = ResponsesItemFromJson(item);
      state.output_index = static_cast<std::int64_t>(items_.size());
      state.done = true;
      items_.push_back(std::move(state));
    }
    return;
  }
  if (output.size() != items_.size()) {
    Report("RESP-TERMINAL-OUTPUT", "/response/output",
           Format("{} output item(s), {} streamed", output.size(), items_.size()));
    return;
  }
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (!SameItem(ResponsesItemFromJson(output[i]), items_[i].item)) {
      Report("RESP-TERMINAL-OUTPUT", Format("/response/output/{}", i),
             Format("output item {} differs from the streamed item", i));
      return;
    }
  }
}

CanonicalResult ResponsesAccumulator::Finish() {
  if (terminal_event_ == 0) {
    ReportAt("RESP-ONE-TERMINAL", 0, "",
             "the stream ended without response.completed, response.failed, response.incomplete "
             "or an error event");
  }
  for (auto& s : items_) {
    if (!s.done && s.item.kind == ItemKind::kFunctionCall) s.item.arguments = s.arguments;
    if (!s.done && (s.item.kind == ItemKind::kMessage || s.item.kind == ItemKind::kReasoning)) {
      // A stream cut before the item's end: what its deltas built.
      std::string text;
      for (const auto& [i, t] : s.parts) text += t;
      if (s.item.kind == ItemKind::kMessage) s.item.text = text;
      if (s.item.kind == ItemKind::kReasoning) {
        s.item.text = text;
        s.item.summary.clear();
        for (const auto& [i, t] : s.summaries) s.item.summary.push_back(t);
      }
    }
    out_.items.push_back(std::move(s.item));
  }
  out_.findings = log_.Take();
  other_.Finish(out_.other_events);
  return std::move(out_);
}

}  // namespace llmconform::wire
