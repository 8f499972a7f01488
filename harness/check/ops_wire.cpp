#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/check/gemini_generator.h"
#include "harness/check/gen_text.h"
#include "harness/check/messages_generator.h"
#include "harness/check/op_record.h"
#include "harness/check/responses_generator.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/gemini.h"
#include "protocols/wire/messages.h"
#include "protocols/wire/responses.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness::check {
namespace {

namespace gen = rc::gen;

rc::Gen<Json> SseParse() {
  auto line = gen::element<std::string>(
      "data: hello", "data:hello", "data:  two spaces", "data", "data:", "data: {\"a\":1}",
      "data: [DONE]", "event: message", "event:ping", "id: 7", "id: a\u0000b", "id", "retry: 1000",
      "retry: x", "retry:", ": keep-alive", ":", "field: v", "DATA: upper", " data: lead",
      "data: 你好 😀");
  auto eol = gen::element<std::string>("\n", "\n", "\r\n", "\r");
  auto stream = gen::apply(
      [](bool bom, std::vector<std::pair<std::string, std::string>> lines, bool blank_end) {
        std::string s = bom ? "\ufeff" : "";
        for (const auto& [l, e] : lines) s += l + e;
        if (blank_end) s += "\n";
        return s;
      },
      gen::element(false, false, false, true),
      gen::container<std::vector<std::pair<std::string, std::string>>>(
          gen::weightedOneOf<std::pair<std::string, std::string>>(
              {{5, gen::pair(line, eol)}, {2, gen::pair(gen::just(std::string()), eol)}})),
      gen::element(true, true, false));
  return gen::mapcat(stream, [](const std::string& s) {
    return gen::map(
        Opt(gen::container<std::vector<std::size_t>>(gen::inRange<std::size_t>(0, s.size() + 1))),
        [s](std::optional<std::vector<std::size_t>> splits) {
          Json in{{"stream", s}};
          if (splits) {
            std::sort(splits->begin(), splits->end());
            in["splits"] = *splits;
          }
          return in;
        });
  });
}

// One chunk of a Chat Completions stream before it is written, with the
// provider deviations of specs/wire/dialects.json as variants.
struct WireChunk {
  int kind = 0;  // 0 content, 1 reasoning_content, 2 reasoning, 3 tool call, 4 usage, 5 odd
  std::string text;
  int variant = 0;
};

rc::Gen<std::string> ChatStream() {
  auto chunk = gen::apply(
      [](int kind, std::string text, int variant) {
        return WireChunk{kind, std::move(text), variant};
      },
      gen::weightedOneOf<int>({{6, gen::just(0)},
                               {1, gen::just(1)},
                               {1, gen::just(2)},
                               {3, gen::just(3)},
                               {1, gen::just(4)},
                               {2, gen::just(5)}}),
      gen::resize(6, Text()), gen::element(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  return gen::apply(
      [](std::vector<WireChunk> chunks, int finish, bool done, int framing, bool empty_first) {
        std::string s;
        const std::string head =
            R"("id":"chatcmpl-1","object":"chat.completion.chunk","model":"m")";
        auto data = [&](const std::string& json) {
          s += framing == 1 ? "data:" + json + "\n\n" : "data: " + json + "\n\n";
        };
        auto choice = [&](const Json& delta, const Json& fr) {
          Json c{{"index", 0}, {"delta", delta}};
          if (!fr.is_discarded()) c["finish_reason"] = fr;
          return "{" + head + R"(,"choices":[)" + c.dump() + "]}";
        };
        if (framing == 2) s += ": OPENROUTER PROCESSING\n\n";
        if (empty_first)
          data("{" + head + R"(,"choices":[],"prompt_filter_results":[{"prompt_index":0}]})");
        data(choice(Json{{"role", "assistant"}, {"content", ""}}, nullptr));
        int call = 0;
        for (const auto& c : chunks) {
          // variant 6: the finish_reason key left out; 7: "stop" before the end.
          const Json fr = c.variant == 7   ? Json("stop")
                          : c.variant == 6 ? Json(Json::value_t::discarded)
                                           : Json(nullptr);
          switch (c.kind) {
            case 0: {
              Json d{{"content", c.text}};
              if (c.variant == 1) d["role"] = "assistant";
              data(choice(d, fr));
              break;
            }
            case 1:
              data(choice(Json{{"reasoning_content", c.text}}, fr));
              break;
            case 2:
              data(choice(Json{{"reasoning", c.text}}, fr));
              break;
            case 3: {
              // A call in fragments: the head (id, type, name), then the arguments in two.
              const Json args{{"q", c.text}, {"n", 12}};
              const std::string a = args.dump();
              Json tc{{"index", call},
                      {"id", "call_" + std::to_string(call)},
                      {"type", "function"},
                      {"function", {{"name", "fs_read"}, {"arguments", ""}}}};
              if (c.variant == 1) tc.erase("index");
              if (c.variant == 2) tc.erase("type");
              if (c.variant == 3) tc["function"]["arguments"] = a;  // whole in one delta
              data(choice(Json{{"tool_calls", Json::array({tc})}}, Json(nullptr)));
              if (c.variant != 3 && c.variant != 1) {
                // Split between code points: each fragment is a JSON string.
                const std::size_t half = Utf8Prefix(a, a.size() / 2);
                for (const std::string& part : {a.substr(0, half), a.substr(half)}) {
                  Json more{{"index", call}, {"function", {{"arguments", part}}}};
                  if (c.variant == 4) more["id"] = "call_" + std::to_string(call);
                  if (c.variant == 5) more["id"] = "call_other";
                  data(choice(Json{{"tool_calls", Json::array({more})}}, Json(nullptr)));
                }
              }
              ++call;
              break;
            }
            case 4:
              if (c.variant % 2) {
                data(
                    "{" + head +
                    R"(,"choices":[],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}})");
              } else {
                data(
                    "{" + head +
                    R"(,"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}})");
              }
              break;
            default:
              switch (c.variant) {
                case 0:
                  s += ": keep-alive\n\n";
                  break;
                case 1:
                  // `message` is the unnamed event's type (WHATWG); llama.cpp
                  // names others (DIA-NAMED-EVENT).
                  s += c.text.size() % 2 ? "event: message\n" : "event: completion\n";
                  data(choice(Json{{"content", c.text}}, nullptr));
                  break;
                case 2:
                  data(R"({"error":{"message":"upstream failed","code":502}})");
                  break;
                case 3:
                  data("{\"choices\":[{\"delta\":");
                  break;  // malformed JSON
                case 4:
                  data("{" + head + "}");
                  break;  // no choices
                case 5:
                  data(choice(Json{{"content", 7}}, nullptr));
                  break;
                case 6:
                  data(
                      choice(Json{{"content", Json::array({{{"type", "text"}, {"text", c.text}}})}},
                             nullptr));
                  break;
                case 8:  // OpenRouter's typed reasoning blocks
                  data(choice(Json{{"reasoning_details",
                                    Json::array({{{"type", "reasoning.text"}, {"text", c.text}}})}},
                              nullptr));
                  break;
                case 9:  // reasoning inline in content
                  data(choice(Json{{"content", "<think>" + c.text + "</think>ok"}}, nullptr));
                  break;
                case 10: {  // a padding field
                  Json d = Json::parse(choice(Json{{"content", c.text}}, nullptr));
                  d["obfuscation"] = "Xq3";
                  data(d.dump());
                  break;
                }
                default:  // a frame cut off in the middle
                  s += "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
                       c.text.substr(0, OffsetOfCodePoint(c.text, 3)) + "\n\n";
                  break;
              }
          }
        }
        static const char* const kReasons[] = {"stop", "tool_calls", "length", "content_filter"};
        if (finish >= 0 && finish < 4) data(choice(Json::object(), kReasons[finish]));
        if (finish == 4) {  // repeated
          data(choice(Json::object(), "stop"));
          data(choice(Json::object(), "stop"));
        }
        if (finish == 5) {  // changed
          data(choice(Json::object(), "length"));
          data(choice(Json::object(), "stop"));
        }
        if (done)
          s += framing == 3 ? "data: [DONE]\n\ndata: {\"choices\":[]}\n\n" : "data: [DONE]\n\n";
        if (framing == 4) {
          for (auto& ch : s)
            if (ch == '\n') ch = '\r';
        }
        return s;
      },
      gen::resize(10, gen::container<std::vector<WireChunk>>(chunk)), gen::inRange(-1, 6),
      gen::element(true, true, true, false), gen::element(0, 0, 0, 1, 2, 3, 4),
      gen::element(false, false, false, true));
}

rc::Gen<Json> WireAccumulate() {
  return gen::map(ChatStream(), [](std::string s) { return Json{{"stream", std::move(s)}}; });
}

rc::Gen<Json> WireDialect() {
  auto body = gen::apply(
      [](int kind, std::string text) -> std::string {
        const Json message{{"role", "assistant"}, {"content", text}};
        switch (kind) {
          case 0:
            return Json{
                {"id", "c"},
                {"object", "chat.completion"},
                {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}}}
                .dump();
          case 1:
            return Json{
                {"choices",
                 {{{"index", 0},
                   {"message",
                    {{"role", "assistant"}, {"content", text}, {"reasoning_content", "because"}}},
                   {"finish_reason", "stop"}}}}}
                .dump();
          case 2:
            return Json{{"choices",
                         {{{"index", 0},
                           {"message",
                            {{"role", "assistant"},
                             {"content", Json::array({{{"type", "thinking"}, {"thinking", "x"}},
                                                      {{"type", "text"}, {"text", text}}})}}},
                           {"finish_reason", "stop"}}}}}
                .dump();
          case 3:
            return Json{{"message", text}}.dump();
          case 4:
            return Json{{"object", "error"}, {"message", text}, {"code", 400}}.dump();
          case 5:
            return Json::array({{{"error", {{"code", 429}, {"message", text}}}}}).dump();
          case 6:
            return Json{{"error", {{"message", text}, {"code", 502}}}}.dump();
          case 7:
            return "<html><body>502 Bad Gateway</body></html>";
          case 8:
            return Json{{"detail", text}}.dump();
          default:
            return Json{{"choices",
                         {{{"index", 0},
                           {"message", message},
                           {"finish_reason", "stop"},
                           {"content_filter_results", {{"hate", {{"filtered", false}}}}}}}},
                        {"prompt_filter_results", Json::array()}}
                .dump();
        }
      },
      gen::inRange(0, 10), gen::resize(6, Text()));
  return gen::weightedOneOf<Json>(
      {{3, gen::map(ChatStream(),
                    [](std::string s) {
                      return Json{{"stream", std::move(s)}};
                    })},
       {2, gen::apply(
               [](std::string b, std::optional<int> status) {
                 Json in{{"body", std::move(b)}};
                 if (status) in["status"] = *status;
                 return in;
               },
               body, Opt(gen::element(200, 200, 400, 429, 500, 502)))}});
}

}  // namespace

std::vector<OpRecord> WireOps() {
  std::vector<std::string> dialect_ids;
  for (std::string_view id : wire::DialectIds()) dialect_ids.emplace_back(id);
  // The accumulator's own rules, and the deviations it names by their DIA-* ids.
  std::vector<std::string> accumulate_rules = {"WIRE-STREAM-"};
  for (std::string_view id : wire::kAccumulatorDeviationIds) accumulate_rules.emplace_back(id);
  return {
      {"sse.parse",
       SseParse(),
       {"WIRE-SSE-"},
       [](const Json&, const Json&, std::set<std::string>& rules) {
         rules.insert("WIRE-SSE-FRAMING");
       }},
      {"wire.accumulate", WireAccumulate(), std::move(accumulate_rules), {}},
      {"responses.accumulate",
       ResponsesAccumulateInput(),
       {wire::kResponsesRuleIds.begin(), wire::kResponsesRuleIds.end()},
       {}},
      {"gemini.accumulate",
       GeminiAccumulateInput(),
       {wire::kGeminiRuleIds.begin(), wire::kGeminiRuleIds.end()},
       {}},
      {"messages.accumulate",
       MessagesAccumulateInput(),
       {wire::kMessagesRuleIds.begin(), wire::kMessagesRuleIds.end()},
       {}},
      {"wire.dialect", WireDialect(), std::move(dialect_ids),
       [](const Json&, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("deviations") || !output["deviations"].is_array()) return;
         for (const Json& d : output["deviations"])
           if (d.is_object() && d.contains("id") && d["id"].is_string())
             rules.insert(d["id"].get<std::string>());
       }},
  };
}

}  // namespace llmconform::harness::check
