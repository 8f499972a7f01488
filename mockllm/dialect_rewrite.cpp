#include "mockllm/dialect_rewrite.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "base/format.h"
#include "base/hash.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "mockllm/replay_plan.h"

namespace llmconform::mockllm {
namespace {

// j[key] when it is a string, else "" (value() would throw on another type).
std::string TextOr(const OJson& j, const char* key) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A choice's "index", or `fallback` when it is absent or not an integer (a
// recording may hold a string or null there; value() would throw).
std::int64_t ChoiceIndex(const OJson& choice, std::int64_t fallback) {
  const auto it = choice.find("index");
  return it != choice.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

using llmconform::Format;

// ---------------------------------------------------------------------------
// The event list a stream rewrite works on.

struct Ev {
  std::string raw;          // the bytes as recorded (written when !changed)
  std::string field_lines;  // the event's non-data lines (comments, event:, id:), each with "\n"
  OJson json;               // the data, parsed (is_json)
  std::string data;         // the data text
  bool is_json = false;     // data is a JSON object
  bool done = false;        // data is [DONE]
  bool changed = false;     // write field_lines + "data: " + json instead of raw
  bool reasoning = false;   // inserted to carry reasoning (the REASONING rewrites share it)
  std::int64_t t_ms = 0;
};

std::string Dump(const OJson& j) { return j.dump(-1, ' ', false, OJson::error_handler_t::replace); }

std::string Write(const Ev& e) {
  if (!e.changed) return e.raw;
  return e.field_lines + "data: " + (e.is_json ? Dump(e.json) : e.data) + "\n\n";
}

// Splits a recorded stream into events (the blank line that ends a block with
// data closes an event), each at the time of the chunk holding its last byte.
// Bytes after the last event become a final, unparsed entry.
std::vector<Ev> SplitEvents(const std::vector<Chunk>& chunks) {
  std::string raw;
  std::vector<std::pair<std::size_t, std::int64_t>> chunk_end;  // (end offset, t_ms)
  for (const Chunk& c : chunks) {
    raw += c.raw;
    chunk_end.emplace_back(raw.size(), c.t_ms);
  }
  auto time_at = [&](std::size_t last_byte) {
    for (const auto& [end, t] : chunk_end)
      if (last_byte < end) return t;
    return chunk_end.empty() ? std::int64_t{0} : chunk_end.back().second;
  };
  std::vector<Ev> out;
  std::size_t from = 0;
  for (std::size_t end : SseEventEnds(raw)) {
    Ev e;
    e.raw = raw.substr(from, end - from);
    e.t_ms = time_at(end - 1);
    std::string data;
    bool has_data = false;
    std::size_t at = 0;
    while (at < e.raw.size()) {
      std::size_t nl = e.raw.find_first_of("\r\n", at);
      if (nl == std::string::npos) nl = e.raw.size();
      const std::string line = e.raw.substr(at, nl - at);
      at = nl + (e.raw.compare(nl, 2, "\r\n") == 0 ? 2 : 1);
      if (line.empty()) continue;
      if (line.starts_with("data")) {
        std::string v = line.substr(4);
        if (!v.empty() && v[0] == ':') v.erase(0, 1);
        if (!v.empty() && v[0] == ' ') v.erase(0, 1);
        if (has_data) data += '\n';
        data += v;
        has_data = true;
      } else {
        e.field_lines += line + "\n";
      }
    }
    e.data = data;
    e.done = data == "[DONE]";
    if (!e.done) {
      OJson j = OJson::parse(data, nullptr, false);
      if (j.is_object()) {
        e.json = std::move(j);
        e.is_json = true;
      }
    }
    out.push_back(std::move(e));
    from = end;
  }
  if (from < raw.size()) {
    Ev tail;
    tail.raw = raw.substr(from);
    tail.t_ms = time_at(raw.size() - 1);
    out.push_back(std::move(tail));
  }
  return out;
}

bool HasChoices(const Ev& e) {
  return e.is_json && e.json.contains("choices") && e.json["choices"].is_array() &&
         !e.json["choices"].empty();
}

bool IsString(const OJson& j, const char* key) { return j.contains(key) && j[key].is_string(); }

// Calls f(choice, delta) for every choice with a delta object; marks the
// event changed when f returns true.
template <typename F>
void ForEachDelta(std::vector<Ev>& evs, F f) {
  for (Ev& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (!c.is_object() || !c.contains("delta") || !c["delta"].is_object()) continue;
      if (f(c, c["delta"])) e.changed = true;
    }
  }
}

// A chunk to insert next to `like`: its id, object, created, model and
// fingerprint, one choice with an empty delta and no finish_reason yet.
Ev ChunkLike(const Ev& like) {
  Ev e;
  e.is_json = true;
  e.changed = true;
  e.t_ms = like.t_ms;
  e.json = like.json;
  e.json.erase("obfuscation");
  e.json.erase("p");
  if (e.json.contains("usage")) e.json["usage"] = nullptr;
  OJson choice = OJson::object();
  choice["index"] = 0;
  choice["delta"] = OJson::object();
  if (HasChoices(like) && like.json["choices"][0].is_object()) {
    for (const auto& [k, v] : like.json["choices"][0].items()) {
      if (k == "index" || k == "delta") continue;
      choice[k] = k == "finish_reason" || k == "logprobs" ? OJson(nullptr) : v;
    }
  }
  e.json["choices"] = OJson::array({choice});
  return e;
}

// Rebuilds `obj` with `key: value` right after `after` (or first).
OJson WithKeyAfter(const OJson& obj, std::string_view after, const std::string& key,
                   const OJson& value) {
  OJson out = OJson::object();
  if (after.empty()) out[key] = value;
  for (const auto& [k, v] : obj.items()) {
    if (k == key) continue;
    out[k] = v;
    if (!after.empty() && k == after) out[key] = value;
  }
  if (!out.contains(key)) out[key] = value;
  return out;
}

// ---------------------------------------------------------------------------
// Stream rewrites. Each returns nothing; events it changes are marked.

using StreamRewrite = std::function<void(std::vector<Ev>&, const OJson& params)>;

void KeepaliveComments(std::vector<Ev>& evs, const OJson& p) {
  if (evs.empty()) return;
  const std::string comment = p["comment"].get<std::string>();
  const auto n = p["count"].get<std::int64_t>();
  std::vector<Ev> ins;
  for (std::int64_t i = 0; i < n; ++i) {
    Ev e;
    e.raw = ": " + comment + "\n\n";
    e.t_ms = 0;
    ins.push_back(std::move(e));
  }
  evs.insert(evs.begin(), ins.begin(), ins.end());
}

void EmptyFirstChunk(std::vector<Ev>& evs, const OJson& p) {
  auto first = std::find_if(evs.begin(), evs.end(), [](const Ev& e) { return e.is_json; });
  if (first == evs.end() || !HasChoices(*first)) return;
  Ev e;
  e.is_json = true;
  e.changed = true;
  e.t_ms = first->t_ms;
  e.json = OJson{{"choices", OJson::array()},
                 {"created", 0},
                 {"id", ""},
                 {"model", ""},
                 {"object", ""},
                 {"prompt_filter_results", p["prompt_filter_results"]}};
  evs.insert(first, std::move(e));
}

void ContentFilterResults(std::vector<Ev>& evs, const OJson& p) {
  for (Ev& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (!c.is_object() || c.contains("content_filter_results")) continue;
      c["content_filter_results"] = p["content_filter_results"];
      e.changed = true;
    }
  }
}

// Every tool call's fragments joined into its first delta; the later
// deltas of that call removed (and chunks left with nothing to say).
void WholeToolCalls(std::vector<Ev>& evs, const OJson&) {
  struct At {
    std::size_t ev, choice, call;
  };
  std::map<std::pair<std::size_t, std::int64_t>, std::vector<At>> calls;  // (choice, index)
  for (std::size_t ei = 0; ei < evs.size(); ++ei) {
    if (!HasChoices(evs[ei])) continue;
    const OJson& choices = evs[ei].json["choices"];
    for (std::size_t ci = 0; ci < choices.size(); ++ci) {
      const OJson& c = choices[ci];
      if (!c.is_object() || !c.contains("delta") || !c["delta"].is_object()) continue;
      const OJson& d = c["delta"];
      if (!d.contains("tool_calls") || !d["tool_calls"].is_array()) continue;
      for (std::size_t ti = 0; ti < d["tool_calls"].size(); ++ti) {
        const OJson& tc = d["tool_calls"][ti];
        if (!tc.is_object() || !tc.contains("index") || !tc["index"].is_number_integer()) continue;
        const auto choice_index =
            static_cast<std::size_t>(ChoiceIndex(c, static_cast<std::int64_t>(ci)));
        calls[{choice_index, tc["index"].get<std::int64_t>()}].push_back(At{ei, ci, ti});
      }
    }
  }
  std::set<std::tuple<std::size_t, std::size_t, std::size_t>> drop;
  for (const auto& [key, at] : calls) {
    if (at.size() < 2) continue;
    std::string args;
    for (const At& a : at) {
      const OJson& tc = evs[a.ev].json["choices"][a.choice]["delta"]["tool_calls"][a.call];
      if (tc.contains("function") && tc["function"].is_object() &&
          IsString(tc["function"], "arguments"))
        args += tc["function"]["arguments"].get<std::string>();
    }
    OJson& first = evs[at[0].ev].json["choices"][at[0].choice]["delta"]["tool_calls"][at[0].call];
    if (!first.contains("function") || !first["function"].is_object())
      first["function"] = OJson::object();
    first["function"]["arguments"] = args;
    evs[at[0].ev].changed = true;
    for (std::size_t i = 1; i < at.size(); ++i) drop.insert({at[i].ev, at[i].choice, at[i].call});
  }
  if (drop.empty()) return;
  std::vector<Ev> kept;
  for (std::size_t ei = 0; ei < evs.size(); ++ei) {
    Ev& e = evs[ei];
    bool emptied = false;
    if (HasChoices(e)) {
      OJson& choices = e.json["choices"];
      for (std::size_t ci = 0; ci < choices.size(); ++ci) {
        if (!choices[ci].is_object() || !choices[ci].contains("delta")) continue;
        OJson& d = choices[ci]["delta"];
        if (!d.is_object() || !d.contains("tool_calls") || !d["tool_calls"].is_array()) continue;
        OJson left = OJson::array();
        for (std::size_t ti = 0; ti < d["tool_calls"].size(); ++ti)
          if (!drop.contains({ei, ci, ti})) left.push_back(d["tool_calls"][ti]);
        if (left.size() == d["tool_calls"].size()) continue;
        e.changed = true;
        if (left.empty()) {
          d.erase("tool_calls");
        } else {
          d["tool_calls"] = std::move(left);
        }
      }
      // Nothing left to say: every delta empty, no finish_reason, no usage.
      emptied = std::all_of(choices.begin(), choices.end(), [](const OJson& c) {
        return c.is_object() && c.contains("delta") && c["delta"].is_object() &&
               c["delta"].empty() && (!c.contains("finish_reason") || c["finish_reason"].is_null());
      });
      if (e.json.contains("usage") && !e.json["usage"].is_null()) emptied = false;
      emptied = emptied && e.changed;
    }
    if (!emptied) kept.push_back(std::move(e));
  }
  evs = std::move(kept);
}

// Drops `key` from every streamed tool-call delta.
void EraseFromToolCalls(std::vector<Ev>& evs, const char* key) {
  ForEachDelta(evs, [key](OJson&, OJson& d) {
    if (!d.contains("tool_calls") || !d["tool_calls"].is_array()) return false;
    bool changed = false;
    for (OJson& tc : d["tool_calls"]) {
      if (tc.is_object() && tc.contains(key)) {
        tc.erase(key);
        changed = true;
      }
    }
    return changed;
  });
}

void ToolCallsWithoutIndex(std::vector<Ev>& evs, const OJson& p) {
  WholeToolCalls(evs, p);
  EraseFromToolCalls(evs, "index");
}

void ToolCallIdRepeated(std::vector<Ev>& evs, const OJson&) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> ids;  // (choice, index) -> id
  ForEachDelta(evs, [&](OJson& c, OJson& d) {
    if (!d.contains("tool_calls") || !d["tool_calls"].is_array()) return false;
    bool changed = false;
    for (OJson& tc : d["tool_calls"]) {
      if (!tc.is_object() || !tc.contains("index") || !tc["index"].is_number_integer()) continue;
      const auto key = std::make_pair(ChoiceIndex(c, 0), tc["index"].get<std::int64_t>());
      if (IsString(tc, "id") && !tc["id"].get<std::string>().empty()) {
        ids.try_emplace(key, tc["id"].get<std::string>());
      } else if (auto it = ids.find(key); it != ids.end()) {
        tc = WithKeyAfter(tc, "index", "id", it->second);
        changed = true;
      }
    }
    return changed;
  });
}

void ToolCallNoType(std::vector<Ev>& evs, const OJson&) { EraseFromToolCalls(evs, "type"); }

// Index of the first chunk that says something (content, tool calls or a
// finish_reason), or evs.size().
std::size_t FirstSayingChunk(const std::vector<Ev>& evs) {
  for (std::size_t i = 0; i < evs.size(); ++i) {
    if (!HasChoices(evs[i])) continue;
    for (const OJson& c : evs[i].json["choices"]) {
      if (!c.is_object()) continue;
      if (c.contains("finish_reason") && !c["finish_reason"].is_null()) return i;
      if (!c.contains("delta") || !c["delta"].is_object()) continue;
      const OJson& d = c["delta"];
      if (d.contains("tool_calls")) return i;
      if (IsString(d, "content") && !d["content"].get<std::string>().empty()) return i;
    }
  }
  return evs.size();
}

OJson ReasoningValue(std::string_view field, const std::string& text) {
  if (field == "content")  // Mistral's reasoning models: a thinking block
    return OJson::array(
        {OJson{{"type", "thinking"},
               {"thinking", OJson::array({OJson{{"type", "text"}, {"text", text}}})}}});
  if (field == "reasoning_details")
    return OJson::array(
        {OJson{{"type", "reasoning.text"}, {"text", text}, {"format", "unknown"}, {"index", 0}}});
  return text;
}

// Puts the reasoning text in `field` of a reasoning chunk before the reply's
// first words (one chunk shared by every reasoning field).
StreamRewrite StreamReasoning(std::string field) {
  return [field](std::vector<Ev>& evs, const OJson& p) {
    auto slot = std::find_if(evs.begin(), evs.end(), [](const Ev& e) { return e.reasoning; });
    if (slot == evs.end()) {
      const std::size_t at = FirstSayingChunk(evs);
      if (at == evs.size()) return;
      Ev e = ChunkLike(evs[at]);
      e.reasoning = true;
      slot = evs.insert(evs.begin() + static_cast<std::ptrdiff_t>(at), std::move(e));
    }
    slot->json["choices"][0]["delta"][field] = ReasoningValue(field, p["text"].get<std::string>());
    slot->changed = true;
  };
}

std::string ThinkPrefix(const OJson& p) {
  return "<think>\n" + p["text"].get<std::string>() + "\n</think>\n\n";
}

void ThinkTags(std::vector<Ev>& evs, const OJson& p) {
  bool done = false;
  ForEachDelta(evs, [&](OJson&, OJson& d) {
    if (done || !IsString(d, "content") || d["content"].get<std::string>().empty()) return false;
    d["content"] = ThinkPrefix(p) + d["content"].get<std::string>();
    done = true;
    return true;
  });
}

void RoleEveryChunk(std::vector<Ev>& evs, const OJson&) {
  ForEachDelta(evs, [](OJson&, OJson& d) {
    if (d.contains("role")) return false;
    d = WithKeyAfter(d, "", "role", "assistant");
    return true;
  });
}

void FinishReasonNotToolCalls(std::vector<Ev>& evs, const OJson& p) {
  for (Ev& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (c.is_object() && c.contains("finish_reason") && c["finish_reason"] == "tool_calls") {
        c["finish_reason"] = p["finish_reason"];
        e.changed = true;
      }
    }
  }
}

bool HasFinish(const Ev& e) {
  if (!HasChoices(e)) return false;
  for (const OJson& c : e.json["choices"])
    if (c.is_object() && c.contains("finish_reason") && !c["finish_reason"].is_null()) return true;
  return false;
}

void FinishReasonRepeated(std::vector<Ev>& evs, const OJson&) {
  auto it = std::find_if(evs.begin(), evs.end(), HasFinish);
  if (it == evs.end()) return;
  Ev copy = *it;
  copy.changed = true;
  copy.reasoning = false;
  copy.json.erase("obfuscation");
  copy.json.erase("p");
  if (copy.json.contains("usage")) copy.json["usage"] = nullptr;
  for (OJson& c : copy.json["choices"])
    if (c.is_object() && c.contains("delta")) c["delta"] = OJson::object();
  evs.insert(it + 1, std::move(copy));
}

void FinishReasonOmitted(std::vector<Ev>& evs, const OJson&) {
  for (Ev& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (c.is_object() && c.contains("finish_reason") && c["finish_reason"].is_null()) {
        c.erase("finish_reason");
        e.changed = true;
      }
    }
  }
}

void NoDone(std::vector<Ev>& evs, const OJson&) {
  std::erase_if(evs, [](const Ev& e) { return e.done; });
}

// The last usage object of the stream, or null.
OJson StreamUsage(const std::vector<Ev>& evs) {
  for (auto it = evs.rbegin(); it != evs.rend(); ++it)
    if (it->is_json && it->json.contains("usage") && it->json["usage"].is_object())
      return it->json["usage"];
  return nullptr;
}

void UsageEveryChunk(std::vector<Ev>& evs, const OJson&) {
  const OJson usage = StreamUsage(evs);
  if (usage.is_null()) return;
  for (Ev& e : evs) {
    if (!HasChoices(e) || (e.json.contains("usage") && e.json["usage"] == usage)) continue;
    e.json["usage"] = usage;
    e.changed = true;
  }
}

void UsageXGroq(std::vector<Ev>& evs, const OJson&) {
  const OJson usage = StreamUsage(evs);
  if (usage.is_null()) return;
  for (auto it = evs.rbegin(); it != evs.rend(); ++it) {
    if (!HasFinish(*it)) continue;
    const std::string id = TextOr(it->json, "id");
    it->json["x_groq"] = OJson{{"id", Format("req_{:016x}", Fnv1a64(id))}, {"usage", usage}};
    it->changed = true;
    return;
  }
}

void PaddingField(std::vector<Ev>& evs, const OJson& p) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const std::string field = p["field"].get<std::string>();
  for (Ev& e : evs) {
    if (!e.is_json || e.json.contains(field)) continue;
    std::uint64_t h = Fnv1a64(Dump(e.json));
    std::string pad(1 + h % 16, 'A');
    for (char& ch : pad) {
      ch = kAlphabet[h % kAlphabet.size()];
      h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    e.json[field] = pad;
    e.changed = true;
  }
}

// ---------------------------------------------------------------------------
// Body rewrites (non-streamed replies).

struct BodyView {
  RecordedResponse& r;
  OJson json;  // the parsed body (discarded when not JSON)
  bool changed = false;
};

bool IsCompletion(const OJson& j) {
  return j.is_object() && j.contains("choices") && j["choices"].is_array();
}

// A canonical error: status >= 400 and {"error": {...}}.
bool IsCanonicalError(const BodyView& b) {
  return b.r.status >= 400 && b.json.is_object() && b.json.contains("error") &&
         b.json["error"].is_object();
}

bool StatusListed(const OJson& statuses, int status) {
  if (statuses.empty()) return true;
  for (const OJson& s : statuses)
    if (s == status) return true;
  return false;
}

using BodyRewrite = std::function<void(BodyView&, const OJson& params, bool stream_requested)>;

void BodyContentFilter(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || c.contains("content_filter_results")) continue;
    c["content_filter_results"] = p["content_filter_results"];
    b.changed = true;
  }
}

BodyRewrite BodyReasoning(std::string field) {
  return [field](BodyView& b, const OJson& p, bool) {
    if (!IsCompletion(b.json)) return;
    for (OJson& c : b.json["choices"]) {
      if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
      if (c["message"].contains(field)) continue;
      c["message"][field] = ReasoningValue(field, p["text"].get<std::string>());
      b.changed = true;
    }
  };
}

void BodyThinkTags(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
    OJson& m = c["message"];
    if (!IsString(m, "content") || m["content"].get<std::string>().empty()) continue;
    m["content"] = ThinkPrefix(p) + m["content"].get<std::string>();
    b.changed = true;
  }
}

// Mistral's reasoning replies: the message's string content becomes the
// block array [thinking, text].
void BodyContentArray(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
    OJson& m = c["message"];
    if (!IsString(m, "content")) continue;
    OJson blocks = ReasoningValue("content", p["text"].get<std::string>());
    blocks.push_back(OJson{{"type", "text"}, {"text", m["content"]}});
    m["content"] = std::move(blocks);
    b.changed = true;
  }
}

void SetContentType(RecordedResponse& r, const std::string& type) {
  OJson headers = OJson::object();
  for (const auto& [k, v] : r.headers.items()) {
    std::string lower = k;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (lower != "content-type" && lower != "content-length") headers[k] = v;
  }
  headers["content-type"] = type;
  r.headers = std::move(headers);
}

void BodyErrorInStream(BodyView& b, const OJson& p, bool stream_requested) {
  if (!stream_requested || !IsCanonicalError(b) || !StatusListed(p["statuses"], b.r.status)) return;
  const std::string event = "data: " + Dump(OJson{{"error", b.json["error"]}}) + "\n\n";
  b.r.status = 200;
  b.r.streamed = true;
  b.r.body.reset();
  b.r.raw.reset();
  b.r.chunks = {Chunk{0, event}, Chunk{0, "data: [DONE]\n\n"}};
  SetContentType(b.r, "text/event-stream");
  b.json = OJson::value_t::discarded;
}

void BodyErrorWith200(BodyView& b, const OJson& p, bool) {
  if (!IsCanonicalError(b) || !StatusListed(p["statuses"], b.r.status)) return;
  OJson& err = b.json["error"];
  if (!err.contains("code") || err["code"].is_null()) err["code"] = b.r.status;
  b.r.status = 200;
  b.changed = true;
}

void BodyFlatError(BodyView& b, const OJson& p, bool) {
  if (!IsCanonicalError(b)) return;
  const OJson err = b.json["error"];
  const std::string message = TextOr(err, "message");
  if (p["style"] == "detail") {
    b.json = OJson{{"detail", message}};
  } else {
    OJson flat{{"object", "error"}, {"message", message}};
    flat["type"] = err.contains("type") ? err["type"] : OJson("invalid_request_error");
    flat["param"] = err.contains("param") ? err["param"] : OJson(nullptr);
    flat["code"] = b.r.status;
    b.json = std::move(flat);
  }
  b.changed = true;
}

std::string_view GoogleStatus(int status) {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 501:
      return "UNIMPLEMENTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

void BodyErrorArray(BodyView& b, const OJson&, bool) {
  if (!IsCanonicalError(b)) return;
  const std::string message = TextOr(b.json["error"], "message");
  b.json = OJson::array({OJson{
      {"error",
       OJson{{"code", b.r.status}, {"message", message}, {"status", GoogleStatus(b.r.status)}}}}});
  b.changed = true;
}

// ---------------------------------------------------------------------------
// The table of rewrites.

struct Rewrite {
  RewritableDeviation doc;
  OJson defaults;        // parameter names and default values
  StreamRewrite stream;  // may be empty
  BodyRewrite body;      // may be empty
};

const OJson& DefaultFilterResults() {
  static const OJson r = {{"hate", {{"filtered", false}, {"severity", "safe"}}},
                          {"self_harm", {{"filtered", false}, {"severity", "safe"}}},
                          {"sexual", {{"filtered", false}, {"severity", "safe"}}},
                          {"violence", {{"filtered", false}, {"severity", "safe"}}}};
  return r;
}

constexpr std::string_view kReasoningText = "The user asked a question. I will answer it directly.";

const std::vector<Rewrite>& Rewrites() {
  static const std::vector<Rewrite> table = [] {
    std::vector<Rewrite> t;
    t.push_back(
        {{"DIA-KEEPALIVE-COMMENT", "COUNT SSE comment lines ': COMMENT' before the first event",
          "comment (\"keep-alive\"), count (1, 1..100)"},
         {{"comment", "keep-alive"}, {"count", 1}},
         KeepaliveComments,
         nullptr});
    t.push_back({{"DIA-EMPTY-FIRST-CHUNK",
                  "a first chunk with choices: [], empty id, object and model, created 0",
                  "prompt_filter_results (an array)"},
                 {{"prompt_filter_results",
                   OJson::array({{{"prompt_index", 0},
                                  {"content_filter_results", DefaultFilterResults()}}})}},
                 EmptyFirstChunk,
                 nullptr});
    t.push_back(
        {{"DIA-CONTENT-FILTER-RESULTS", "content_filter_results on every choice (streamed and not)",
          "content_filter_results (an object)"},
         {{"content_filter_results", DefaultFilterResults()}},
         ContentFilterResults,
         BodyContentFilter});
    t.push_back(
        {{"DIA-TOOLCALL-WHOLE-DELTA", "each streamed tool call whole in its first delta", ""},
         OJson::object(),
         WholeToolCalls,
         nullptr});
    t.push_back(
        {{"DIA-TOOLCALL-NO-INDEX", "each streamed tool call whole in one delta without index", ""},
         OJson::object(),
         ToolCallsWithoutIndex,
         nullptr});
    t.push_back({{"DIA-TOOLCALL-ID-REPEATED",
                  "the tool-call id repeated on every later delta of its call", ""},
                 OJson::object(),
                 ToolCallIdRepeated,
                 nullptr});
    t.push_back({{"DIA-TOOLCALL-NO-TYPE", "streamed tool-call deltas without type", ""},
                 OJson::object(),
                 ToolCallNoType,
                 nullptr});
    const OJson text = {{"text", kReasoningText}};
    t.push_back(
        {{"DIA-REASONING-CONTENT",
          "reasoning text in reasoning_content (a chunk before the reply, or the message)", "text"},
         text,
         StreamReasoning("reasoning_content"),
         BodyReasoning("reasoning_content")});
    t.push_back({{"DIA-REASONING-FIELD", "reasoning text in reasoning", "text"},
                 text,
                 StreamReasoning("reasoning"),
                 BodyReasoning("reasoning")});
    t.push_back({{"DIA-REASONING-DETAILS",
                  "reasoning as a reasoning_details array of one reasoning.text block", "text"},
                 text,
                 StreamReasoning("reasoning_details"),
                 BodyReasoning("reasoning_details")});
    t.push_back({{"DIA-CONTENT-ARRAY",
                  "reasoning as a content array's thinking block (a chunk before the reply; the "
                  "message's content becomes [thinking, text])",
                  "text"},
                 text,
                 StreamReasoning("content"),
                 BodyContentArray});
    t.push_back({{"DIA-THINK-TAGS-IN-CONTENT",
                  "reasoning inline at the start of content, between <think> tags", "text"},
                 text,
                 ThinkTags,
                 BodyThinkTags});
    t.push_back({{"DIA-ROLE-EVERY-CHUNK", "delta.role \"assistant\" on every delta", ""},
                 OJson::object(),
                 RoleEveryChunk,
                 nullptr});
    t.push_back({{"DIA-FINISH-REASON-NOT-TOOL-CALLS",
                  "a streamed finish_reason \"tool_calls\" becomes FINISH_REASON",
                  "finish_reason (\"stop\")"},
                 {{"finish_reason", "stop"}},
                 FinishReasonNotToolCalls,
                 nullptr});
    t.push_back({{"DIA-FINISH-REASON-REPEATED",
                  "the first finish_reason chunk sent again with an empty delta", ""},
                 OJson::object(),
                 FinishReasonRepeated,
                 nullptr});
    t.push_back({{"DIA-FINISH-REASON-OMITTED", "finish_reason: null left out of chunks", ""},
                 OJson::object(),
                 FinishReasonOmitted,
                 nullptr});
    t.push_back({{"DIA-NO-DONE", "no data: [DONE] at the end of the stream", ""},
                 OJson::object(),
                 NoDone,
                 nullptr});
    t.push_back(
        {{"DIA-USAGE-EVERY-CHUNK", "the stream's usage object on every chunk with choices", ""},
         OJson::object(),
         UsageEveryChunk,
         nullptr});
    t.push_back({{"DIA-USAGE-X-GROQ",
                  "the stream's usage also in x_groq.usage on the finish_reason chunk", ""},
                 OJson::object(),
                 UsageXGroq,
                 nullptr});
    t.push_back({{"DIA-PADDING-FIELD",
                  "a padding field of 1..16 characters (derived from the chunk) on every chunk",
                  "field (\"obfuscation\")"},
                 {{"field", "obfuscation"}},
                 PaddingField,
                 nullptr});
    t.push_back({{"DIA-ERROR-IN-STREAM",
                  "an error answer (status in STATUSES; [] = any) to a streamed request becomes a "
                  "200 stream: "
                  "data: {\"error\":…}, data: [DONE]",
                  "statuses ([500, 502, 503])"},
                 {{"statuses", OJson::array({500, 502, 503})}},
                 nullptr,
                 BodyErrorInStream});
    t.push_back({{"DIA-ERROR-WITH-200",
                  "an error answer (status in STATUSES; [] = any) sent with HTTP 200, the status "
                  "kept as error.code",
                  "statuses ([] = any)"},
                 {{"statuses", OJson::array()}},
                 nullptr,
                 BodyErrorWith200});
    t.push_back({{"DIA-FLAT-ERROR",
                  "the error body without its wrapper: "
                  "{\"object\":\"error\",\"message\",\"type\",\"param\",\"code\":STATUS} "
                  "(style \"object\") or {\"detail\": MESSAGE} (style \"detail\")",
                  "style (\"object\" | \"detail\")"},
                 {{"style", "object"}},
                 nullptr,
                 BodyFlatError});
    t.push_back(
        {{"DIA-ERROR-ARRAY",
          "the error body as [{\"error\":{\"code\":STATUS,\"message\",\"status\":GOOGLE_STATUS}}]",
          ""},
         OJson::object(),
         nullptr,
         BodyErrorArray});
    return t;
  }();
  return table;
}

const Rewrite* FindRewrite(std::string_view id) {
  for (const Rewrite& r : Rewrites())
    if (r.doc.id == id) return &r;
  return nullptr;
}

// A parameter value must have its default's JSON type; some are checked further.
std::optional<std::string> CheckParam(std::string_view id, const std::string& key, const OJson& v,
                                      const OJson& def) {
  const bool same = (v.is_number_integer() && def.is_number_integer()) ||
                    (v.is_string() && def.is_string()) || (v.is_array() && def.is_array()) ||
                    (v.is_object() && def.is_object()) || (v.is_boolean() && def.is_boolean());
  if (!same) return Format("expected {}, got {}", def.type_name(), v.type_name());
  if (key == "count" && (v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 100))
    return Format("{} out of range 1..100", v.get<std::int64_t>());
  if (key == "statuses") {
    for (const OJson& s : v)
      if (!s.is_number_integer() || s.get<std::int64_t>() < 400 || s.get<std::int64_t>() > 599)
        return std::string("expected HTTP error statuses 400..599");
  }
  if (key == "style" && v != "object" && v != "detail")
    return std::string("expected \"object\" or \"detail\"");
  if (key == "comment" && v.get<std::string>().find_first_of("\r\n") != std::string::npos)
    return std::string("a comment is one line");
  if (key == "field" && v.get<std::string>().empty()) return std::string("expected a field name");
  (void)id;
  return std::nullopt;
}

// "NAME:LINE:COL: POINTER: MESSAGE" for a value of the catalogue text.
std::string Located(std::string_view name, std::string_view text, const std::string& pointer,
                    const std::string& message) {
  const auto lc =
      llmconform::LineColumnOf(text, llmconform::LocateNearestJsonPointer(text, pointer));
  return Format("{}:{}:{}: {}: {}", name, lc.line, lc.column, pointer, message);
}

}  // namespace

std::vector<std::string> Dialect::Ids() const {
  std::vector<std::string> ids;
  for (const auto& s : steps) ids.push_back(s.id);
  return ids;
}

const std::vector<RewritableDeviation>& RewritableDeviations() {
  static const std::vector<RewritableDeviation> docs = [] {
    std::vector<RewritableDeviation> d;
    for (const Rewrite& r : Rewrites()) d.push_back(r.doc);
    return d;
  }();
  return docs;
}

std::expected<std::vector<Dialect>, Error> ParseDialects(std::string_view text,
                                                         std::string_view name) {
  auto doc = llmconform::ReadOrderedJson(name, text);
  if (!doc) return std::unexpected(Error{doc.error().message});
  auto fail = [&](const std::string& pointer, const std::string& message) {
    return std::unexpected(Error{Located(name, text, pointer, message)});
  };
  if (!doc->is_object() || !doc->contains("providers") || !(*doc)["providers"].is_array())
    return fail("/providers", "expected an array of dialects under \"providers\"");
  std::set<std::string> known;
  if (doc->contains("dialects") && (*doc)["dialects"].is_array())
    for (const auto& d : (*doc)["dialects"])
      if (d.is_object() && d.contains("id") && d["id"].is_string())
        known.insert(d["id"].get<std::string>());
  std::vector<Dialect> out;
  std::set<std::string> names;
  const auto& providers = (*doc)["providers"];
  for (std::size_t i = 0; i < providers.size(); ++i) {
    const auto& p = providers[i];
    const std::string at = Format("/providers/{}", i);
    if (!p.is_object()) return fail(at, "expected an object");
    Dialect d;
    if (!p.contains("name") || !p["name"].is_string() || p["name"].get<std::string>().empty())
      return fail(at + "/name", "expected a non-empty string");
    d.name = p["name"].get<std::string>();
    if (d.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos)
      return fail(at + "/name", "a dialect name is lower-case letters, digits, '-', '_' and '.'");
    if (!names.insert(d.name).second)
      return fail(at + "/name", Format("dialect \"{}\" defined twice", d.name));
    if (p.contains("about")) {
      if (!p["about"].is_string()) return fail(at + "/about", "expected a string");
      d.about = p["about"].get<std::string>();
    }
    if (!p.contains("deviations") || !p["deviations"].is_array())
      return fail(at + "/deviations", "expected an array");
    for (std::size_t k = 0; k < p["deviations"].size(); ++k) {
      const auto& s = p["deviations"][k];
      const std::string sat = Format("{}/deviations/{}", at, k);
      if (!s.is_object() || !s.contains("id") || !s["id"].is_string())
        return fail(sat, "expected {\"id\": \"DIA-…\", \"params\"?: {…}}");
      const std::string id = s["id"].get<std::string>();
      if (!known.empty() && !known.contains(id))
        return fail(sat + "/id", Format("\"{}\" is not in the catalogue (\"dialects\")", id));
      const Rewrite* r = FindRewrite(id);
      if (!r)
        return fail(sat + "/id",
                    Format("no rewrite for {} (mockllm dialects --help lists those with one)", id));
      DialectStep step{id, r->defaults};
      if (s.contains("params")) {
        if (!s["params"].is_object()) return fail(sat + "/params", "expected an object");
        for (const auto& [key, v] : s["params"].items()) {
          if (!r->defaults.contains(key))
            return fail(sat + "/params/" + key, Format("{} takes no parameter \"{}\"", id, key));
          if (auto bad = CheckParam(id, key, OJson(v), r->defaults[key]))
            return fail(sat + "/params/" + key, *bad);
          step.params[key] = v;
        }
      }
      for (const auto& [key, v] : s.items())
        if (key != "id" && key != "params")
          return fail(sat + "/" + key, "unknown member (id, params)");
      d.steps.push_back(std::move(step));
    }
    if (p.contains("not_reproduced")) {
      if (!p["not_reproduced"].is_object())
        return fail(at + "/not_reproduced", "expected an object");
      for (const auto& [id, why] : p["not_reproduced"].items()) {
        if (!why.is_string())
          return fail(at + "/not_reproduced/" + id, "expected a string (the reason)");
        d.not_reproduced[id] = why;
      }
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const Dialect& a, const Dialect& b) { return a.name < b.name; });
  return out;
}

const std::vector<Dialect>& BuiltinDialects() {
  static const std::vector<Dialect> dialects = [] {
    static constexpr std::string_view kText =
#include "mockllm/dialects.inc"
        ;
    auto parsed = ParseDialects(kText, "specs/wire/dialects.json");
    // The build compiles the file in and a test parses it: a broken file
    // fails the test suite, never a user's run.
    return parsed ? std::move(*parsed) : std::vector<Dialect>{};
  }();
  return dialects;
}

const Dialect* FindDialect(std::string_view name) {
  for (const Dialect& d : BuiltinDialects())
    if (d.name == name) return &d;
  return nullptr;
}

std::string DialectNames() {
  std::string out;
  for (const Dialect& d : BuiltinDialects()) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

bool RequestStreams(const RecordedRequest& request) {
  return request.body && request.body->is_object() && request.body->contains("stream") &&
         (*request.body)["stream"] == true;
}

RecordedResponse RewriteResponse(const RecordedResponse& canonical, const Dialect& dialect,
                                 bool stream_requested) {
  if (dialect.steps.empty()) return canonical;
  RecordedResponse out = canonical;
  if (!out.streamed) {
    BodyView b{out, OJson::parse(canonical.BodyBytes(), nullptr, false)};
    for (const DialectStep& s : dialect.steps) {
      const Rewrite* r = FindRewrite(s.id);
      if (!r || !r->body || out.streamed) continue;
      if (b.json.is_discarded()) break;
      r->body(b, s.params, stream_requested);
    }
    if (out.streamed) {
      // Became a stream (DIA-ERROR-IN-STREAM): the stream steps apply too.
    } else {
      if (b.changed) {
        out.body = b.json;
        out.raw.reset();
      }
      return out;
    }
  }
  std::vector<Ev> evs = SplitEvents(out.chunks);
  for (const DialectStep& s : dialect.steps) {
    const Rewrite* r = FindRewrite(s.id);
    if (r && r->stream) r->stream(evs, s.params);
  }
  std::vector<Chunk> chunks;
  std::string before, after;
  for (const Chunk& c : out.chunks) before += c.raw;
  std::int64_t t = 0;
  for (const Ev& e : evs) {
    t = std::max(t, e.t_ms);
    chunks.push_back(Chunk{t, Write(e)});
    after += chunks.back().raw;
  }
  if (after == before) return out;  // nothing to rewrite: the recorded chunking stays
  out.chunks = std::move(chunks);
  return out;
}

std::vector<std::string> DeviationsApplied(const std::vector<Exchange>& exchanges,
                                           const Dialect& dialect) {
  std::vector<std::string> out;
  Dialect before{.name = dialect.name, .about = {}, .steps = {}, .not_reproduced = {}};
  for (const DialectStep& step : dialect.steps) {
    Dialect after = before;
    after.steps.push_back(step);
    for (const Exchange& x : exchanges) {
      const bool streams = RequestStreams(x.request);
      if (RewriteResponse(x.response, before, streams) !=
          RewriteResponse(x.response, after, streams)) {
        out.push_back(step.id);
        break;
      }
    }
    before = std::move(after);
  }
  return out;
}

ResponsePlan PlanDialectResponse(const Exchange& x, const Dialect& dialect, const OJson& fault_json,
                                 std::uint64_t seed) {
  auto parsed = FaultFromJson(fault_json);
  Fault fault = parsed ? *parsed : Fault{};
  const bool streams = RequestStreams(x.request);
  if (!fault.status)
    return PlanResponse(RewriteResponse(x.response, dialect, streams), fault, seed);
  // The injected error as a recorded reply, rewritten, then the rest of the fault.
  Fault error_only;
  error_only.status = fault.status;
  error_only.body = fault.body;
  error_only.retry_after = fault.retry_after;
  error_only.retry_after_ms = fault.retry_after_ms;
  error_only.headers = fault.headers;
  const ResponsePlan error = PlanResponse(x.response, error_only, seed);
  RecordedResponse injected;
  injected.status = error.status;
  injected.headers["content-type"] = error.content_type;
  for (const auto& [name, value] : error.headers) injected.headers[name] = value;
  injected.raw = error.Body();
  fault.status.reset();
  fault.body.reset();
  fault.retry_after.reset();
  fault.retry_after_ms.reset();
  fault.headers = OJson::object();
  return PlanResponse(RewriteResponse(injected, dialect, streams), fault, seed);
}

}  // namespace llmconform::mockllm
