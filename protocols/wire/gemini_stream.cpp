// The Gemini API's stream accumulator (gemini.h).
#include <cstdint>
#include <limits>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/gemini.h"

namespace llmconform::wire {
namespace {

// At most this many distinct unmodelled fields are named, and this many
// candidates read (a huge or ever-new index costs no more).
constexpr std::size_t kMaxOtherNames = 64;
constexpr std::size_t kMaxCandidates = 16;

// Part fields that say something about the part, not what kind it is.
bool IsPartMetadata(std::string_view key) {
  return key == "thought" || key == "thoughtSignature" || key == "partMetadata" ||
         key == "videoMetadata" || key == "mediaResolution";
}

// A candidate's `index`: an int32 from 0 (proto3 JSON leaves out a 0).
std::optional<std::int64_t> CandidateIndex(const Json& c) {
  auto it = c.find("index");
  if (it == c.end()) return 0;
  if (it->is_number_unsigned() &&
      it->get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    return static_cast<std::int64_t>(it->get<std::uint64_t>());
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0 &&
      it->get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max())
    return it->get<std::int64_t>();
  return std::nullopt;
}

}  // namespace

void GeminiAccumulator::Report(std::string_view rule, std::size_t event, const std::string& pointer,
                               std::string message) {
  // One finding per rule (its first place); the others are counted.
  if (reported_.contains(rule)) {
    ++repeats_[std::string(rule)];
    return;
  }
  reported_.emplace(std::string(rule), out_.findings.size());
  std::string text;
  if (body_) {
    text = Format("{}: {}", pointer.empty() ? "/" : pointer, message);
  } else {
    const std::string where = event == 0 ? std::string("the stream") : Format("event {}", event);
    text = pointer.empty() ? Format("{}: {}", where, message)
                           : Format("{} {}: {}", where, pointer, message);
  }
  out_.findings.push_back({std::string(rule), std::move(text), event, pointer});
}

void GeminiAccumulator::NoteComments(std::size_t) {
  // Comments are no event: clients skip them.
}

void GeminiAccumulator::NoteOther(std::string name) {
  if (other_seen_.contains(name)) return;
  if (other_seen_.size() >= kMaxOtherNames) {
    ++other_dropped_;
    return;
  }
  other_seen_.insert(name);
  out_.other_events.push_back(std::move(name));
}

void GeminiAccumulator::AddEvent(const SseEventView& event) {
  const std::size_t n = ++out_.events;
  if (end_event_ != 0) {
    Report(
        "GEM-AFTER-FINISH", n, "",
        Format("an event after the stream's end (event {}); read on, as the SDKs do", end_event_));
  }
  if (event.data == "[DONE]") {
    Report("GEM-EVENT-JSON", n, "",
           "data is Chat Completions' '[DONE]' sentinel; a Gemini stream ends with its "
           "candidates' finishReason");
    return;
  }
  const Json data = ReadJsonOrDiscarded(event.data);
  if (data.is_discarded() || !data.is_object()) {
    Report("GEM-EVENT-JSON", n, "",
           data.is_discarded() ? Format("data is not JSON: {}", event.data.substr(0, 80))
                               : Format("data is {}, not a GenerateContentResponse object",
                                        JsonTypeNameWithArticle(data)));
    return;
  }
  ReadChunk(data, n, "");
}

void GeminiAccumulator::ReadChunk(const Json& data, std::size_t event, const std::string& prefix) {
  ++chunks_;
  last_event_ = event;
  if (auto e = data.find("error"); e != data.end() && !data.contains("candidates")) {
    ReadError(*e, event, prefix + "/error");
    last_had_usage_ = true;  // an error carries none
    return;
  }
  auto text_field = [&](std::string_view key, std::string& into) {
    auto it = data.find(key);
    if (it == data.end()) return;
    if (!it->is_string()) {
      Report("GEM-EVENT-JSON", event, Format("{}/{}", prefix, key),
             Format("{} is {}, not a string", key, JsonTypeNameWithArticle(*it)));
    } else if (into.empty()) {
      into = it->get<std::string>();
    }
  };
  text_field("responseId", out_.id);
  text_field("modelVersion", out_.model);
  for (const auto& [key, value] : data.items()) {
    if (key != "candidates" && key != "usageMetadata" && key != "responseId" &&
        key != "modelVersion")
      NoteOther(key);
  }
  if (auto f = data.find("promptFeedback"); f != data.end() && f->is_object()) {
    if (auto r = f->find("blockReason"); r != f->end() && r->is_string()) {
      out_.incomplete_reason = r->get<std::string>();
      blocked_ = true;
    }
  }
  auto usage = data.find("usageMetadata");
  last_had_usage_ = usage != data.end();
  if (last_had_usage_) {
    if (usage->is_object()) {
      out_.usage = *usage;
    } else {
      Report("GEM-EVENT-JSON", event, prefix + "/usageMetadata",
             Format("usageMetadata is {}, not an object", JsonTypeNameWithArticle(*usage)));
    }
  }
  auto candidates = data.find("candidates");
  if (candidates == data.end()) return;
  if (!candidates->is_array()) {
    Report("GEM-EVENT-JSON", event, prefix + "/candidates",
           Format("candidates is {}, not an array", JsonTypeNameWithArticle(*candidates)));
    return;
  }
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < candidates->size(); ++i)
    ReadCandidate((*candidates)[i], i, event, Format("{}/candidates/{}", prefix, i), seen);
}

void GeminiAccumulator::ReadCandidate(const Json& c, std::size_t position, std::size_t event,
                                      const std::string& at, std::set<std::int64_t>& seen) {
  if (!c.is_object()) {
    Report("GEM-EVENT-JSON", event, at,
           Format("a candidate is {}, not an object", JsonTypeNameWithArticle(c)));
    return;
  }
  auto index = CandidateIndex(c);
  if (!index) {
    Report("GEM-CANDIDATE-INDEX", event, at + "/index",
           Format("index {} is not an integer from 0 to 2^31-1; read as {}",
                  c["index"].dump().substr(0, 40), position));
    index = static_cast<std::int64_t>(position);
  }
  if (!seen.insert(*index).second) {
    Report("GEM-CANDIDATE-INDEX", event, at + "/index",
           Format("a second candidate with index {} in one response; not read", *index));
    return;
  }
  auto it = candidates_.find(*index);
  if (it == candidates_.end()) {
    if (candidates_.size() >= kMaxCandidates) {
      Report(
          "GEM-CANDIDATE-INDEX", event, at + "/index",
          Format("candidate index {}: more than {} candidates; not read", *index, kMaxCandidates));
      return;
    }
    it = candidates_.emplace(*index, Candidate{.index = *index}).first;
    if (first_ < 0) first_ = *index;
  }
  Candidate& s = it->second;
  if (s.finish_chunk != 0) {
    Report("GEM-AFTER-FINISH", event, at,
           s.finish_event == 0 ? Format("candidate {} again after its finishReason", *index)
                               : Format("candidate {} again after its finishReason (event {})",
                                        *index, s.finish_event));
  }
  for (const auto& [key, value] : c.items()) {
    if (key != "content" && key != "finishReason" && key != "index") NoteOther("candidate." + key);
  }
  if (auto content = c.find("content"); content != c.end()) {
    auto parts = content->is_object() ? content->find("parts") : content->end();
    if (!content->is_object()) {
      Report("GEM-EVENT-JSON", event, at + "/content",
             Format("content is {}, not an object", JsonTypeNameWithArticle(*content)));
    } else if (parts != content->end() && !parts->is_array()) {
      Report("GEM-EVENT-JSON", event, at + "/content/parts",
             Format("parts is {}, not an array", JsonTypeNameWithArticle(*parts)));
    } else if (parts != content->end()) {
      for (std::size_t p = 0; p < parts->size(); ++p) {
        ReadPart(s, (*parts)[p], event, Format("{}/content/parts/{}", at, p));
        if (*index != first_) s.parts.push_back((*parts)[p]);
      }
    }
  }
  auto finish = c.find("finishReason");
  if (finish == c.end()) return;
  if (!finish->is_string()) {
    Report("GEM-EVENT-JSON", event, at + "/finishReason",
           Format("finishReason is {}, not a string", JsonTypeNameWithArticle(*finish)));
    return;
  }
  const std::string reason = finish->get<std::string>();
  if (!IsGeminiFinishReason(reason)) {
    Report("GEM-FINISH-REASON", event, at + "/finishReason",
           Format("finishReason '{}' is none of the documented values", reason.substr(0, 60)));
  }
  s.finish = reason;
  s.finish_event = event;
  s.finish_chunk = chunks_;
  bool all = true;
  for (const auto& [i, other] : candidates_) all = all && other.finish_chunk != 0;
  if (all && event != 0) end_event_ = event;
}

void GeminiAccumulator::ReadPart(Candidate& c, const Json& part, std::size_t event,
                                 const std::string& at) {
  if (!part.is_object()) {
    Report("GEM-EVENT-JSON", event, at,
           Format("a part is {}, not an object", JsonTypeNameWithArticle(part)));
    return;
  }
  std::optional<std::string> signature;
  if (auto sig = part.find("thoughtSignature"); sig != part.end()) {
    if (sig->is_string()) {
      signature = sig->get<std::string>();
    } else {
      Report("GEM-EVENT-JSON", event, at + "/thoughtSignature",
             Format("thoughtSignature is {}, not a string", JsonTypeNameWithArticle(*sig)));
    }
  }
  bool thought = false;
  if (auto t = part.find("thought"); t != part.end()) {
    if (t->is_boolean()) {
      thought = t->get<bool>();
    } else {
      Report("GEM-EVENT-JSON", event, at + "/thought",
             Format("thought is {}, not a boolean", JsonTypeNameWithArticle(*t)));
    }
  }
  std::vector<OutputItem>& items = c.items;
  if (auto text = part.find("text"); text != part.end()) {
    if (!text->is_string()) {
      Report("GEM-EVENT-JSON", event, at + "/text",
             Format("text is {}, not a string", JsonTypeNameWithArticle(*text)));
      return;
    }
    const ItemKind kind = thought ? ItemKind::kReasoning : ItemKind::kMessage;
    const std::string& delta = text->get_ref<const std::string&>();
    if (!items.empty() && items.back().kind == kind && !(signature && items.back().encrypted)) {
      items.back().text += delta;  // a delta of the text (or thought) already under way
      if (signature) items.back().encrypted = signature;
    } else if (!delta.empty() || signature) {
      items.push_back({.kind = kind,
                       .type = thought ? "thought" : "text",
                       .text = delta,
                       .encrypted = signature});
    }
    return;
  }
  if (auto call = part.find("functionCall"); call != part.end()) {
    OutputItem item{
        .kind = ItemKind::kFunctionCall, .type = "functionCall", .encrypted = signature};
    item.raw = part;
    item.arguments = "{}";
    if (!call->is_object()) {
      Report("GEM-FUNCTION-CALL", event, at + "/functionCall",
             Format("functionCall is {}, not an object", JsonTypeNameWithArticle(*call)));
      items.push_back(std::move(item));
      return;
    }
    auto name = call->find("name");
    if (name != call->end() && name->is_string()) item.name = name->get<std::string>();
    if (item.name.empty())
      Report("GEM-FUNCTION-CALL", event, at + "/functionCall/name",
             "a functionCall without a name (a string naming the function)");
    if (auto id = call->find("id"); id != call->end() && id->is_string()) item.call_id = *id;
    if (auto args = call->find("args"); args != call->end()) {
      if (!args->is_object())
        Report("GEM-FUNCTION-CALL", event, at + "/functionCall/args",
               Format("args is {}, not an object", JsonTypeNameWithArticle(*args)));
      item.arguments = DumpJson(*args);
    }
    items.push_back(std::move(item));
    return;
  }
  // A kind the toolkit does not model: kept whole, named by its field.
  OutputItem item{.kind = ItemKind::kOther, .type = "part", .encrypted = signature};
  for (const auto& [key, value] : part.items()) {
    if (!IsPartMetadata(key)) {
      item.type = key;
      break;
    }
  }
  item.raw = part;
  items.push_back(std::move(item));
}

void GeminiAccumulator::ReadError(const Json& error, std::size_t event, const std::string& at) {
  end_event_ = event;
  out_.terminated = true;
  out_.error = ErrorBodyFromJson(Json{{"error", error}});
  if (!out_.error) out_.error = ErrorBody{error.dump().substr(0, 200), "", nullptr, nullptr};
  if (!error.is_object()) {
    Report("GEM-ERROR-STATUS", event, at,
           Format("error is {}, not an object with code, message and status",
                  JsonTypeNameWithArticle(error)));
    return;
  }
  auto code = error.find("code");
  auto status = error.find("status");
  auto message = error.find("message");
  if (code == error.end() || !code->is_number_integer() || status == error.end() ||
      !status->is_string() || message == error.end() || !message->is_string()) {
    Report("GEM-ERROR-STATUS", event, at,
           "the error lacks an integer code, a string message or a string status");
    return;
  }
  const int want = GeminiStatusHttpCode(status->get<std::string>());
  if (want != code->get<std::int64_t>()) {
    Report("GEM-ERROR-STATUS", event, at + "/status",
           want == 0 ? Format("status '{}' is no google.rpc.Code",
                              status->get<std::string>().substr(0, 60))
                     : Format("status '{}' is HTTP {}, but code is {}", status->get<std::string>(),
                              want, code->dump()));
  }
}

CanonicalResult GeminiAccumulator::Finish() {
  const bool failed = out_.error.has_value();
  if (candidates_.empty() && !failed && !blocked_) {
    Report("GEM-FINISHED", 0, "", "no candidate, no promptFeedback.blockReason and no error");
  }
  for (const auto& [index, c] : candidates_) {
    if (!c.finish && !failed)
      Report("GEM-FINISHED", 0, "",
             Format("candidate {} has no finishReason: {} cut before its end", index,
                    body_ ? "the response was" : "the stream was"));
  }
  if (chunks_ > 0 && !last_had_usage_) {
    Report("GEM-USAGE-LAST", body_ ? 0 : last_event_, "/usageMetadata",
           body_ ? "the response has no usageMetadata"
                 : "the last event has no usageMetadata (the SDKs read the usage from it)");
  }
  bool all_finished = !candidates_.empty();
  for (const auto& [index, c] : candidates_) all_finished = all_finished && c.finish.has_value();
  out_.terminated = failed || blocked_ || all_finished;
  for (auto& [index, c] : candidates_) {
    if (index == first_) {
      out_.status = c.finish;
      for (auto& item : c.items) out_.items.push_back(std::move(item));
    }
  }
  for (auto& [index, c] : candidates_) {
    if (index == first_) continue;
    OutputItem item{.kind = ItemKind::kOther, .type = "candidate"};
    item.raw = {{"index", index},
                {"finishReason", c.finish ? Json(*c.finish) : Json(nullptr)},
                {"parts", std::move(c.parts)}};
    out_.items.push_back(std::move(item));
  }
  for (const auto& [rule, n] : repeats_) {
    out_.findings[reported_[rule]].message += Format(" (and {} more)", n);
  }
  if (other_dropped_ > 0) out_.other_events.push_back(Format("… {} more names", other_dropped_));
  if (body_) out_.events = 0;
  return std::move(out_);
}

}  // namespace llmconform::wire
