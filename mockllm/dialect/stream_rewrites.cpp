#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "base/format.h"
#include "base/hash.h"
#include "mockllm/dialect/rewrites.h"

namespace llmconform::mockllm::dialect {

void KeepaliveComments(std::vector<StreamEvent>& evs, const OJson& p) {
  if (evs.empty()) return;
  const std::string comment = p["comment"].get<std::string>();
  const auto n = p["count"].get<std::int64_t>();
  std::vector<StreamEvent> ins;
  for (std::int64_t i = 0; i < n; ++i) {
    StreamEvent e;
    e.raw = ": " + comment + "\n\n";
    e.t_ms = 0;
    ins.push_back(std::move(e));
  }
  evs.insert(evs.begin(), ins.begin(), ins.end());
}

void EmptyFirstChunk(std::vector<StreamEvent>& evs, const OJson& p) {
  auto first = std::find_if(evs.begin(), evs.end(), [](const StreamEvent& e) { return e.is_json; });
  if (first == evs.end() || !HasChoices(*first)) return;
  StreamEvent e;
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

void ContentFilterResults(std::vector<StreamEvent>& evs, const OJson& p) {
  for (StreamEvent& e : evs) {
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
void WholeToolCalls(std::vector<StreamEvent>& evs, const OJson&) {
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
  std::vector<StreamEvent> kept;
  for (std::size_t ei = 0; ei < evs.size(); ++ei) {
    StreamEvent& e = evs[ei];
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

namespace {

// Drops `key` from every streamed tool-call delta.
void EraseFromToolCalls(std::vector<StreamEvent>& evs, const char* key) {
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

}  // namespace

void ToolCallsWithoutIndex(std::vector<StreamEvent>& evs, const OJson& p) {
  WholeToolCalls(evs, p);
  EraseFromToolCalls(evs, "index");
}

void ToolCallIdRepeated(std::vector<StreamEvent>& evs, const OJson&) {
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

void ToolCallNoType(std::vector<StreamEvent>& evs, const OJson&) {
  EraseFromToolCalls(evs, "type");
}

namespace {

// Index of the first chunk that says something (content, tool calls or a
// finish_reason), or evs.size().
std::size_t FirstSayingChunk(const std::vector<StreamEvent>& evs) {
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

}  // namespace

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

StreamRewrite StreamReasoning(std::string field) {
  return [field](std::vector<StreamEvent>& evs, const OJson& p) {
    auto slot =
        std::find_if(evs.begin(), evs.end(), [](const StreamEvent& e) { return e.reasoning; });
    if (slot == evs.end()) {
      const std::size_t at = FirstSayingChunk(evs);
      if (at == evs.size()) return;
      StreamEvent e = ChunkLike(evs[at]);
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

void ThinkTags(std::vector<StreamEvent>& evs, const OJson& p) {
  bool done = false;
  ForEachDelta(evs, [&](OJson&, OJson& d) {
    if (done || !IsString(d, "content") || d["content"].get<std::string>().empty()) return false;
    d["content"] = ThinkPrefix(p) + d["content"].get<std::string>();
    done = true;
    return true;
  });
}

void RoleEveryChunk(std::vector<StreamEvent>& evs, const OJson&) {
  ForEachDelta(evs, [](OJson&, OJson& d) {
    if (d.contains("role")) return false;
    d = WithKeyAfter(d, "", "role", "assistant");
    return true;
  });
}

void FinishReasonNotToolCalls(std::vector<StreamEvent>& evs, const OJson& p) {
  for (StreamEvent& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (c.is_object() && c.contains("finish_reason") && c["finish_reason"] == "tool_calls") {
        c["finish_reason"] = p["finish_reason"];
        e.changed = true;
      }
    }
  }
}

void FinishReasonRepeated(std::vector<StreamEvent>& evs, const OJson&) {
  auto it = std::find_if(evs.begin(), evs.end(), HasFinish);
  if (it == evs.end()) return;
  StreamEvent copy = *it;
  copy.changed = true;
  copy.reasoning = false;
  copy.json.erase("obfuscation");
  copy.json.erase("p");
  if (copy.json.contains("usage")) copy.json["usage"] = nullptr;
  for (OJson& c : copy.json["choices"])
    if (c.is_object() && c.contains("delta")) c["delta"] = OJson::object();
  evs.insert(it + 1, std::move(copy));
}

void FinishReasonOmitted(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (c.is_object() && c.contains("finish_reason") && c["finish_reason"].is_null()) {
        c.erase("finish_reason");
        e.changed = true;
      }
    }
  }
}

void NoDone(std::vector<StreamEvent>& evs, const OJson&) {
  std::erase_if(evs, [](const StreamEvent& e) { return e.done; });
}

namespace {

// The last usage object of the stream, or null.
OJson StreamUsage(const std::vector<StreamEvent>& evs) {
  for (auto it = evs.rbegin(); it != evs.rend(); ++it)
    if (it->is_json && it->json.contains("usage") && it->json["usage"].is_object())
      return it->json["usage"];
  return nullptr;
}

}  // namespace

void UsageEveryChunk(std::vector<StreamEvent>& evs, const OJson&) {
  const OJson usage = StreamUsage(evs);
  if (usage.is_null()) return;
  for (StreamEvent& e : evs) {
    if (!HasChoices(e) || (e.json.contains("usage") && e.json["usage"] == usage)) continue;
    e.json["usage"] = usage;
    e.changed = true;
  }
}

void UsageXGroq(std::vector<StreamEvent>& evs, const OJson&) {
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

void PaddingField(std::vector<StreamEvent>& evs, const OJson& p) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const std::string field = p["field"].get<std::string>();
  for (StreamEvent& e : evs) {
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

}  // namespace llmconform::mockllm::dialect
