#include "protocols/wire/stream_accumulator.h"

#include <climits>
#include <cstdint>

#include "base/format.h"
#include "base/json_read.h"

namespace llmconform::wire {

void StreamAccumulator::AddFinding(std::string rule, std::string message) {
  // One finding per rule: a deviation in every chunk is still one deviation.
  if (reported_.contains(rule)) return;
  reported_[rule] = true;
  out_.findings.push_back({std::move(rule), std::move(message)});
}

void StreamAccumulator::NoteComments(std::size_t count) {
  if (count > 0) {
    AddFinding("DIA-KEEPALIVE-COMMENT",
               Format("{} SSE comment line(s) (keep-alives such as ': keep-alive' or ': OPENROUTER "
                      "PROCESSING'); clients must ignore them",
                      count));
  }
}

void StreamAccumulator::AddEvent(const SseEventView& event) {
  ++events_;
  if (out_.saw_done) {
    if (!after_done_reported_) {
      after_done_reported_ = true;
      AddFinding("WIRE-STREAM-AFTER-DONE",
                 Format("event {} arrived after 'data: [DONE]'", events_));
    }
    return;
  }
  if (event.event != "message") {
    AddFinding(
        "DIA-NAMED-EVENT",
        Format("event {} is named '{}'; OpenAI streams use unnamed events", events_, event.event));
  }
  if (event.data == "[DONE]") {
    out_.saw_done = true;
    return;
  }
  Json chunk = ReadJsonOrDiscarded(event.data);
  if (chunk.is_discarded()) {
    AddFinding("WIRE-STREAM-MALFORMED-CHUNK",
               Format("event {}: data is not JSON: {}", events_, event.data.substr(0, 80)));
    return;
  }
  if (event.event == "error") {
    auto body = ErrorBodyFromJson(chunk);
    out_.error = body ? *body : ErrorBody{chunk.dump(), "", nullptr, nullptr};
    AddFinding("DIA-ERROR-IN-STREAM",
               Format("event {}: an error event inside an HTTP 200 stream: {}", events_,
                      out_.error->message));
    return;
  }
  AddChunk(chunk);
}

void StreamAccumulator::AddChunk(const Json& chunk) {
  const std::size_t chunk_no = ++out_.chunks;
  if (!chunk.is_object()) {
    AddFinding("WIRE-STREAM-MALFORMED-CHUNK",
               Format("chunk {}: expected an object, got {}", chunk_no, JsonTypeName(chunk)));
    return;
  }
  // Usage is read before an error ends the chunk: a provider that stops a stream
  // with an error may send the usage of what it generated in the same chunk.
  if (auto u = chunk.find("usage"); u != chunk.end() && !u->is_null()) out_.usage = *u;
  if (!chunk.contains("choices") || chunk.contains("error")) {
    if (auto body = ErrorBodyFromJson(chunk)) {
      out_.error = *body;
      AddFinding("DIA-ERROR-IN-STREAM",
                 Format("chunk {}: an error object inside an HTTP 200 stream: {}", chunk_no,
                        body->message));
      return;
    }
  }
  if (auto x = chunk.find("x_groq"); x != chunk.end() && x->is_object() && x->contains("usage")) {
    out_.usage = (*x)["usage"];
    AddFinding("DIA-USAGE-X-GROQ", "usage arrived as x_groq.usage (older Groq streams)");
  }
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) {
    AddFinding("WIRE-STREAM-MALFORMED-CHUNK", Format("chunk {}: no 'choices' array", chunk_no));
    return;
  }
  if (choices->empty()) {
    if (chunk_no == 1 && (!chunk.contains("usage") || chunk["usage"].is_null())) {
      AddFinding(
          "DIA-EMPTY-FIRST-CHUNK",
          "the first chunk has 'choices: []' (Azure prompt_filter_results); index choices[0] only "
          "when present");
    }
    return;
  }
  for (const auto& choice : *choices) {
    if (!choice.is_object()) continue;
    // Only the first choice is accumulated: index 0, or none (absent or null);
    // an index that is no number is some other choice, not an exception.
    if (auto ix = choice.find("index");
        ix != choice.end() && !ix->is_null() && !(ix->is_number() && *ix == 0)) {
      continue;
    }
    if (auto d = choice.find("delta"); d != choice.end() && d->is_object()) AddDelta(*d, chunk_no);
    if (auto fr = choice.find("finish_reason"); fr != choice.end() && fr->is_string()) {
      if (out_.finish_reason && *out_.finish_reason != fr->get<std::string>()) {
        AddFinding("DIA-FINISH-REASON-CHANGED",
                   Format("chunk {}: finish_reason '{}' after '{}'", chunk_no,
                          fr->get<std::string>(), *out_.finish_reason));
      } else if (out_.finish_reason) {
        AddFinding("DIA-FINISH-REASON-REPEATED",
                   Format("chunk {}: finish_reason '{}' repeated", chunk_no, *out_.finish_reason));
      }
      out_.finish_reason = fr->get<std::string>();
    }
  }
}

void StreamAccumulator::AddDelta(const Json& delta, std::size_t chunk_no) {
  if (auto r = delta.find("role"); r != delta.end() && r->is_string()) {
    if (!out_.message.role.empty() && chunk_no > 1) {
      AddFinding(
          "DIA-ROLE-EVERY-CHUNK",
          Format("chunk {}: delta.role repeated (Ollama sends it in every chunk)", chunk_no));
    }
    out_.message.role = r->get<std::string>();
  }
  if (auto c = delta.find("content"); c != delta.end() && c->is_string()) {
    if (blocks_) {
      AppendBlock(Json{{"type", "text"}, {"text", *c}});
    } else {
      content_ += c->get_ref<const std::string&>();
    }
    any_content_ = true;
  } else if (c != delta.end() && c->is_array()) {
    AddContentBlocks(*c, chunk_no);
    any_content_ = true;
  }
  if (auto c = delta.find("reasoning_content"); c != delta.end() && c->is_string()) {
    reasoning_content_ += c->get_ref<const std::string&>();
    if (!any_reasoning_content_) {
      AddFinding(
          "DIA-REASONING-CONTENT",
          "reasoning_content deltas (DeepSeek); keep them and send them back on tool-call turns");
    }
    any_reasoning_content_ = true;
  }
  if (auto c = delta.find("reasoning"); c != delta.end() && c->is_string()) {
    reasoning_ += c->get_ref<const std::string&>();
    if (!any_reasoning_)
      AddFinding("DIA-REASONING-FIELD", "reasoning deltas (Ollama's name for reasoning_content)");
    any_reasoning_ = true;
  }
  if (auto tcs = delta.find("tool_calls"); tcs != delta.end() && tcs->is_array()) {
    for (std::size_t i = 0; i < tcs->size(); ++i) AddToolCallDelta((*tcs)[i], chunk_no, i);
  }
}

void StreamAccumulator::AddContentBlocks(const Json& blocks, std::size_t chunk_no) {
  AddFinding("DIA-CONTENT-ARRAY",
             Format("chunk {}: delta.content is an array of content blocks (Mistral's reasoning "
                    "models: thinking blocks, then text); clients that expect a string break",
                    chunk_no));
  if (!blocks_) {
    blocks_ = Json::array();
    if (!content_.empty()) blocks_->push_back(Json{{"type", "text"}, {"text", content_}});
    content_.clear();
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Json& block = blocks[i];
    std::string kind = block.is_object() && block.contains("type") && block["type"].is_string()
                           ? block["type"].get<std::string>()
                           : "";
    if (kind != "text" && kind != "thinking") {
      AddFinding("WIRE-STREAM-UNKNOWN-CONTENT-BLOCK",
                 Format("chunk {}: /choices/0/delta/content/{} is {}; kept in the content as sent",
                        chunk_no, i,
                        kind.empty() ? Format("a {} without a string type", JsonTypeName(block))
                                     : Format("a block of type '{}'", kind)));
    }
    AppendBlock(block);
  }
}

namespace {
// {"type":"text","text":"…"} and nothing else.
bool IsTextPart(const Json& j) {
  return j.is_object() && j.size() == 2 && j.value("type", Json()) == "text" &&
         j.contains("text") && j["text"].is_string();
}
}  // namespace

// Merges `block` into the last block when it continues it (same type, text
// with text, thinking parts with thinking parts), else appends it whole.
void StreamAccumulator::AppendBlock(const Json& block) {
  Json& all = *blocks_;
  if (!all.empty() && block.is_object() && all.back().is_object() && block.contains("type") &&
      all.back().value("type", Json()) == block["type"]) {
    Json& last = all.back();
    const Json& type = block["type"];
    const char* field = type == "text" ? "text" : type == "thinking" ? "thinking" : nullptr;
    if (field && block.size() == 2 && last.size() == 2 && block.contains(field) &&
        last.contains(field)) {
      Json& into = last[field];
      const Json& more = block[field];
      if (into.is_string() && more.is_string()) {
        into.get_ref<std::string&>() += more.get_ref<const std::string&>();
        return;
      }
      if (into.is_array() && more.is_array()) {
        for (const Json& part : more) {
          if (!into.empty() && IsTextPart(into.back()) && IsTextPart(part)) {
            into.back()["text"].get_ref<std::string&>() +=
                part["text"].get_ref<const std::string&>();
          } else {
            into.push_back(part);
          }
        }
        return;
      }
    }
  }
  all.push_back(block);
}

void StreamAccumulator::AddToolCallDelta(const Json& tc, std::size_t chunk_no, std::size_t pos) {
  if (!tc.is_object()) {
    AddFinding("WIRE-STREAM-MALFORMED-CHUNK",
               Format("chunk {}: tool_calls[{}] is not an object", chunk_no, pos));
    return;
  }
  const std::string id =
      tc.contains("id") && tc["id"].is_string() ? tc["id"].get<std::string>() : "";
  int index;
  if (auto ix = tc.find("index"); ix != tc.end() && ix->is_number_integer()) {
    // An index no int holds would wrap into another call's slot.
    if (ix->is_number_unsigned()
            ? ix->get<std::uint64_t>() > INT_MAX
            : ix->get<std::int64_t>() < 0 || ix->get<std::int64_t>() > INT_MAX) {
      AddFinding("WIRE-STREAM-MALFORMED-CHUNK",
                 Format("chunk {}: tool_calls[{}] has index {}, not one from 0 to {}", chunk_no,
                        pos, ix->dump(), INT_MAX));
      return;
    }
    index = ix->get<int>();
  } else {
    AddFinding(
        "DIA-TOOLCALL-NO-INDEX",
        Format("chunk {}: a tool-call delta without 'index' (Gemini, old Ollama); taken as a whole "
               "call",
               chunk_no));
    index = next_free_index_;
    for (const auto& [k, call] : calls_) {
      if (!id.empty() && call.id == id) index = k;
    }
  }
  const bool is_new = !calls_.contains(index);
  ToolCall& call = calls_[index];
  if (is_new) {
    call.index = index;
    call.type.clear();  // set from the first delta that states it
  }
  next_free_index_ = std::max(next_free_index_, index + 1);
  if (!id.empty()) {
    if (call.id.empty()) {
      call.id = id;
    } else if (call.id == id) {
      AddFinding(
          "DIA-TOOLCALL-ID-REPEATED",
          Format("chunk {}: tool call {} repeats its id '{}' (DeepSeek, Qwen); not concatenated",
                 chunk_no, index, id));
    } else {
      AddFinding(
          "DIA-TOOLCALL-ID-CHANGED",
          Format("chunk {}: tool call {} changes its id from '{}' to '{}'; the first is kept",
                 chunk_no, index, call.id, id));
    }
  }
  if (auto t = tc.find("type"); t != tc.end() && t->is_string() && call.type.empty())
    call.type = t->get<std::string>();
  if (auto f = tc.find("function"); f != tc.end() && f->is_object()) {
    if (auto n = f->find("name");
        n != f->end() && n->is_string() && !n->get_ref<const std::string&>().empty()) {
      if (call.function.name.empty()) call.function.name = n->get<std::string>();
    }
    if (auto a = f->find("arguments"); a != f->end()) {
      if (a->is_string()) {
        call.function.arguments += a->get_ref<const std::string&>();
      } else if (!a->is_null()) {
        AddFinding("WIRE-STREAM-MALFORMED-CHUNK",
                   Format("chunk {}: tool call {} arguments is {}, not a string", chunk_no, index,
                          JsonTypeName(*a)));
      }
    }
  }
  for (auto it = tc.begin(); it != tc.end(); ++it) {
    if (it.key() != "index" && it.key() != "id" && it.key() != "type" && it.key() != "function") {
      call.extra[it.key()] = it.value();  // e.g. Gemini's extra_content.google.thought_signature
    }
  }
}

AccumulatedStream StreamAccumulator::Finish() {
  out_.message.role = out_.message.role.empty() ? "assistant" : out_.message.role;
  out_.message.content = blocks_ ? std::move(*blocks_) : Json(content_);
  if (!any_content_ && !calls_.empty()) out_.message.content = Json(nullptr);
  if (any_reasoning_content_) out_.message.reasoning_content = reasoning_content_;
  if (any_reasoning_) out_.message.extra["reasoning"] = reasoning_;
  if (!calls_.empty()) {
    out_.message.has_tool_calls = true;
    for (auto& [index, call] : calls_) {
      if (call.type.empty()) {
        AddFinding("DIA-TOOLCALL-NO-TYPE",
                   Format("tool call {} never stated its type; taken as 'function'", index));
        call.type = "function";
      }
      out_.message.tool_calls.push_back(std::move(call));
    }
    if (out_.finish_reason && *out_.finish_reason != "tool_calls") {
      AddFinding(
          "DIA-FINISH-REASON-NOT-TOOL-CALLS",
          Format(
              "tool calls were streamed but finish_reason is '{}' (Gemini, a named tool_choice); "
              "detect tool calls from tool_calls",
              *out_.finish_reason));
    }
  }
  if (!out_.finish_reason && !out_.error) {
    AddFinding("DIA-NO-FINISH-REASON", "the stream ended without a finish_reason");
  }
  if (!out_.saw_done) AddFinding("DIA-NO-DONE", "the stream ended without 'data: [DONE]'");
  return std::move(out_);
}

AccumulatedStream AccumulateStream(std::string_view raw_sse) {
  SseParser parser;
  StreamAccumulator acc;
  parser.Feed(raw_sse, [&acc](const SseEventView& ev) { acc.AddEvent(ev); });
  parser.Finish();
  acc.NoteComments(parser.comment_count());
  return acc.Finish();
}

}  // namespace llmconform::wire
