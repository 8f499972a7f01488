#include "harness/check/generators.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "harness/check/responses_generator.h"
#include "protocols/multiturn/multiturn.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/responses.h"

namespace llmconform::harness::check {
namespace {

using Json = nlohmann::json;
namespace gen = rc::gen;
using Strings = std::vector<std::string>;

std::string Join(const Strings& parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}

// ---- text building blocks -----------------------------------------------------

rc::Gen<std::string> Words() {
  return gen::element<std::string>("hello", "world", "Safari", "open", "the", "app", "Calculator",
                                   "please", "now", "OK", "yes", "no", "git", "status", "a", "x");
}
// Times, dates, URLs, numbers, e-mail-like text: what a rewriting client breaks.
rc::Gen<std::string> Facts() {
  return gen::element<std::string>(
      "10:30", "3:05 PM", "23:59:59", "2026-11-23", "11/23/2026", "https://example.com/a?b=1&c=2",
      "www.apple.com", "http://127.0.0.1:8080/", "3.14", "-42", "1e9", "100%", "$5.00", "1,000",
      "0", "007", "+1 (555) 010-9999", "me@example.com", "192.168.0.1", "v2.0.1");
}
rc::Gen<std::string> Spaces() {
  return gen::element<std::string>(" ", "  ", "\t", "\n", "\r\n", "\n\n", "\r", "\u00a0", "\u3000",
                                   " \n ");
}
rc::Gen<std::string> Scripts() {
  return gen::element<std::string>("介绍林默", "你好", "Привет", "مرحبا", "שלום", "こんにちは",
                                   "한국어", "Ελληνικά", "ñandú", "e\u0301");
}
rc::Gen<std::string> Emoji() {
  return gen::element<std::string>("😀", "👍🏽", "🇫🇷", "👨‍👩‍👧", "🍎", "✔️");
}
rc::Gen<std::string> Markdown() {
  return gen::element<std::string>("**bold**", "# Title\n", "- item\n", "> quote\n", "`code`",
                                   "```\n", "```json\n", "\n```", "[link](https://x.y)", "|a|b|\n",
                                   "1. first\n", "<b>", "&lt;", "\\n", "\"", "'", "{", "}", "[",
                                   "]", ":", ",");
}
rc::Gen<std::string> Ascii() { return gen::container<std::string>(gen::inRange<char>(32, 127)); }

// Text from fragments: the common ones, weighted, plus `extra` (an op's own
// tags and near-misses) at weight `extra_weight`.
rc::Gen<std::string> TextOf(rc::Gen<std::string> extra, int extra_weight) {
  auto fragment = gen::weightedOneOf<std::string>({{6, Words()},
                                                   {3, Spaces()},
                                                   {2, Facts()},
                                                   {2, Scripts()},
                                                   {1, Emoji()},
                                                   {2, Markdown()},
                                                   {1, Ascii()},
                                                   {extra_weight, std::move(extra)}});
  return gen::map(gen::container<Strings>(std::move(fragment)), Join);
}
rc::Gen<std::string> Text() { return TextOf(Words(), 1); }
rc::Gen<std::string> ShortText() { return gen::resize(12, Text()); }

template <typename T>
rc::Gen<std::optional<T>> Opt(rc::Gen<T> g) {
  return gen::oneOf(gen::just(std::optional<T>()),
                    gen::map(std::move(g), [](T v) { return std::optional<T>(std::move(v)); }));
}

// ---- action.parse ---------------------------------------------------------------

rc::Gen<std::string> ActionReply() {
  // A JSON reply, from a field set in which each field may be missing, null
  // or of the wrong type; then written out exactly, in a fence, with prose
  // around, or almost valid.
  auto command = Opt(gen::element<Json>("open_app", "open_app", "OPEN_APP", "open_app ", "openApp",
                                        "close_app", nullptr, 42, Json::array()));
  auto app_name = Opt(gen::oneOf(gen::map(ShortText(), [](std::string s) { return Json(s); }),
                                 gen::element<Json>("Safari", "Calculator", "", " ", 7, nullptr)));
  auto args_kind = gen::element(0, 0, 0, 1, 2, 3);  // object, missing, string, array
  auto session = Opt(gen::element<Json>("s-1", "session-123", "", 5, nullptr));
  auto text = Opt(gen::oneOf(gen::map(Text(), [](std::string s) { return Json(s); }),
                             gen::element<Json>("", nullptr, 3, Json::array())));
  auto extra_key = Opt(gen::element<std::string>("extra", "Text", "commands", "text "));
  auto doc = gen::apply(
      [](std::optional<Json> text, std::optional<Json> command, std::optional<Json> app_name,
         int args_kind, std::optional<Json> session, std::optional<std::string> extra) {
        Json o = Json::object();
        if (text) o["text"] = *text;
        if (command) o["command"] = *command;
        if (args_kind == 0) {
          o["args"] = Json::object();
          if (app_name) o["args"]["app_name"] = *app_name;
        } else if (args_kind == 2) {
          o["args"] = "Safari";
        } else if (args_kind == 3) {
          o["args"] = Json::array();
        }
        if (session) o["session_id"] = *session;
        if (extra) o[*extra] = "v";
        return o;
      },
      text, command, app_name, args_kind, session, extra_key);
  auto wrap = gen::element<std::string>("", "", "fence", "fence-json", "prose-before",
                                        "prose-after", "spaces", "trailing-comma", "single-quotes",
                                        "truncated", "two-objects", "newlines", "big-number");
  return gen::apply(
      [](Json o, std::string how, std::string prose) -> std::string {
        std::string s = o.dump(how == "newlines" ? 2 : -1);
        if (how == "fence") return "```\n" + s + "\n```";
        if (how == "fence-json") return "```json\n" + s + "\n```";
        if (how == "prose-before") return prose + " " + s;
        if (how == "prose-after") return s + "\n" + prose;
        if (how == "spaces") return "  \n" + s + "\t\n";
        if (how == "trailing-comma" && s.size() > 2) return s.substr(0, s.size() - 1) + ",}";
        if (how == "single-quotes") {
          std::replace(s.begin(), s.end(), '"', '\'');
          return s;
        }
        if (how == "truncated" && !s.empty()) return s.substr(0, s.size() - 1);
        if (how == "two-objects") return s + " " + s;
        if (how == "big-number") {
          // A number no double holds, spelled in args (ACT-14 keeps its spelling).
          const auto at = s.find("\"args\":{");
          if (at != std::string::npos)
            s.insert(at + 8, s[at + 8] == '}' ? "\"n\":12345678901234567890123"
                                              : "\"n\":12345678901234567890123,");
          return s;
        }
        return s;
      },
      doc, wrap, ShortText());
}

rc::Gen<Json> ActionParse() {
  auto text = gen::weightedOneOf<std::string>(
      {{2, TextOf(gen::element<std::string>("{", "}", "{\"text\":", "open_app", "__MCP__",
                                            "```json\n{", "}\n```"),
                  2)},
       {5, ActionReply()}});
  return gen::apply(
      [](std::string text, std::optional<Json> session, std::optional<Json> supported) {
        Json in{{"text", std::move(text)}};
        if (session) in["sessionId"] = *session;
        if (supported) in["supportedCommands"] = *supported;
        return in;
      },
      text, Opt(gen::element<Json>("s-1", "session-123", "", nullptr)),
      Opt(gen::element<Json>(Json::array({"open_app"}), Json::array({"open_app", "close_app"}),
                             Json::array(), nullptr)));
}

// ---- multiturn -------------------------------------------------------------------

rc::Gen<Json> EstimateTokens() {
  return gen::map(Text(), [](std::string t) { return Json{{"text", std::move(t)}}; });
}

rc::Gen<Json> BuildMessages() {
  auto message = gen::apply(
      [](std::string role, std::string content) {
        return Json{{"role", std::move(role)}, {"content", std::move(content)}};
      },
      // History is user and assistant turns (the reference refuses other roles);
      // a rare other role checks that refusal without starving the reference.
      gen::weightedElement<std::string>(
          {{50, "user"}, {50, "assistant"}, {1, "system"}, {1, "tool"}}),
      ShortText());
  // The budget sits at the edges that decide trimming: the total of system +
  // current, then each cut between history messages (newest first), ± a
  // little. It is computed from the other parts in a map (not a mapcat), so
  // each part shrinks on its own and the edge stays the same edge.
  return gen::apply(
      [](std::string system, std::vector<Json> history, std::string current, std::size_t edge,
         int offset) {
        std::int64_t budget =
            multiturn::EstimateMessageTokens(system) + multiturn::EstimateMessageTokens(current);
        for (std::size_t i = 0; i < std::min(edge, history.size()); ++i)
          budget += multiturn::EstimateMessageTokens(
              history[history.size() - 1 - i]["content"].get<std::string>());
        return Json{{"systemPrompt", std::move(system)},
                    {"history", std::move(history)},
                    {"currentUserMessage", std::move(current)},
                    {"maxTokenBudget", std::max<std::int64_t>(0, budget + offset)}};
      },
      ShortText(), gen::resize(10, gen::container<std::vector<Json>>(message)), ShortText(),
      gen::inRange<std::size_t>(0, 11), gen::element(0, 0, -1, 1, -2, 2, 5));
}

// ---- skill -------------------------------------------------------------------------

rc::Gen<std::string> SkillTags() {
  return gen::element<std::string>(
      "[CMD]", "[CMD] ", "[cmd]", "[Cmd]", "[ASK]", "[ASK:optional]", "[ASK:OPTIONAL]",
      "[ask:optional]", "[MESSAGE]", "[message]", "[DONE]", "[DONE] ", "[CMD", "CMD]", "[/CMD]",
      "[ ASK]", "[ASK optional]", "\n[CMD] ", "\n[DONE]", "\n[MESSAGE] ", "\n\n", "```bash\n",
      "```\n", "\n```", "git status", "ls -la", "lsblk", "echo 'hi' && pwd", "Which branch?",
      // Reference-fidelity cases (Unicode white space and the BOM around tags,
      // an unclosed fence ended by a tag line, a one-line fence).
      "\ufeff", "\u00a0", "\u3000", "\ufeff[DONE] Готово!", "[CMD]\u00a0ls -la",
      "[CMD]\n```bash\nnpm test\n\n[DONE] ok", "[CMD] ```bash ls -la```");
}
rc::Gen<Json> SkillText() {
  auto body = TextOf(SkillTags(), 8);
  return gen::apply(
      [](std::string lead, std::string rest) {
        return Json{{"text", lead + rest}};
      },
      gen::element<std::string>("", "[CMD] ", "[ASK] ", "[ASK:optional] ", "[MESSAGE] ", "[DONE]",
                                "[DONE] ", " [CMD] ", "\n[CMD]\n", "\ufeff", "\u00a0[CMD] ",
                                "\u3000", "[CMD]\u00a0"),
      body);
}

rc::Gen<Json> CleanOutput() {
  auto line = gen::weightedOneOf<std::string>(
      {{4, gen::element<std::string>("file.txt", "total 8", "drwxr-xr-x 2 me me 4096 .",
                                     "On branch main", "sda 8:0 0 20G 0 disk", "ls", "lsblk",
                                     "git status", "same line", "same line", "")},
       {2, gen::element<std::string>("C:\\Users\\me>", "C:\\Users\\me>dir", "user@host:~$ ",
                                     "root@box:/# ls", "me@pc:/tmp> ", "$ ", "> ")},
       {1, gen::element<std::string>("Microsoft Windows [Version 10.0.19045.3803]",
                                     "(c) Microsoft Corporation. All rights reserved.")},
       {2, gen::element<std::string>("\x1b[31mred\x1b[0m", "\x1b[1;32mok\x1b[m", "\x1b]0;title\x07",
                                     "\x1b[2K", "  padded  ", "\t", "\r")},
       // 8-bit CSI/OSC and other C1 controls; lines of Unicode white space.
       {1, gen::element<std::string>("ab\u009b31mcd", "\u009d0;title\u0007x", "\u0085", "\u00a0",
                                     "\u3000", "\u00a0 padded\u3000", "\ufefffile")},
       {2, ShortText()}});
  auto eol = gen::element<std::string>("\n", "\n", "\r\n", "\r", "\n\n");
  auto text = gen::map(
      gen::container<std::vector<std::pair<std::string, std::string>>>(gen::pair(line, eol)),
      [](const std::vector<std::pair<std::string, std::string>>& lines) {
        std::string s;
        for (const auto& [l, e] : lines) s += l + e;
        return s;
      });
  return gen::apply(
      [](std::string text, std::optional<std::string> command) {
        Json in{{"text", std::move(text)}};
        if (command) in["lastCommand"] = *command;
        return in;
      },
      text, Opt(gen::element<std::string>("ls", "lsblk", "git status", "", "dir")));
}

// ---- thinkingml --------------------------------------------------------------------

rc::Gen<std::string> TmlNearMiss() {
  return gen::element<std::string>("<Final>", "</FINAL>", "<final/>", "<phase>", "<phase id=1>",
                                   "<phase id='1'>", "<phase id=\"0\">", "<title x=\"y\">", "<b>",
                                   "</b>", "<br/>", "<final>", "</final>", "&lt;final&gt;",
                                   "<<ParsingError>>", "<think>", "</thinking>", "<serp>", "a < b",
                                   "<3", "<!-- c -->", "x>y");
}
rc::Gen<std::string> SerpBlock() {
  auto query = gen::oneOf(
      gen::map(gen::resize(6, Text()), [](std::string s) { return s; }),
      gen::element<std::string>(
          "weather paris", "weather paris", "mail me@example.com", "call +1 555 010 9999",
          "ip 10.0.0.1", std::string(90, 'q'), "",
          // Phone shapes and the numbers that only look like them,
          // addresses and card numbers (seed 002 §4).
          "13812345678", "+86 138 1234 5678", "010-12345678", "(555) 010-9999",
          "每天 10000-12000 步 减肥", "1700000000123", "ISBN 9787115428028", "学号 202312345678",
          "2023-2024-2025", "北京市朝阳区建国路 88 号 健身房", "上海市浦东新区世纪大道100号",
          "卡号 4111111111111111", "4111111111111112", "6222021234567890123"));
  return gen::apply(
      [](std::vector<std::string> queries, std::string how) -> std::string {
        const std::string array = Json(queries).dump();
        if (how == "none") return std::string();
        if (how == "indented") return "\n  <!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
        if (how == "one-line") return "\n<!-- <serp_queries>" + array + "</serp_queries> -->";
        if (how == "not-json") return "\n<!-- <serp_queries>\n[\"a\",]\n</serp_queries> -->";
        if (how == "two-blocks")
          return "\n<!-- <serp_queries>\n" + array + "\n</serp_queries> -->" +
                 "\n<!-- <serp_queries>\n[\"weather paris\"]\n</serp_queries> -->";
        return "\n<!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
      },
      gen::resize(7, gen::container<std::vector<std::string>>(query)),
      gen::element<std::string>("ok", "ok", "ok", "none", "indented", "one-line", "not-json",
                                "two-blocks"));
}
rc::Gen<Json> ThinkingMl() {
  auto phase =
      gen::apply([](int id_delta, std::string title, std::string text,
                    bool with_title) { return std::make_tuple(id_delta, title, text, with_title); },
                 gen::element(1, 1, 1, 1, 0, 2), gen::resize(6, Text()),
                 gen::resize(12, TextOf(TmlNearMiss(), 1)), gen::element(true, true, true, false));
  auto reply = gen::apply(
      [](std::optional<std::string> think, std::optional<std::string> serp,
         std::vector<std::tuple<int, std::string, std::string, bool>> phases,
         std::string final_text, std::string serp_block, std::string between, std::string after,
         bool final_present) {
        std::string s;
        if (think) s += "<think>" + *think + "</think>" + between;
        if (serp) s += "<serp>" + *serp + "</serp>" + between;
        s += "<thinking>";
        int id = 0;
        for (const auto& [delta, title, text, with_title] : phases) {
          id += delta;
          s += "<phase id=\"" + std::to_string(id) + "\">";
          if (with_title) s += "<title>" + title + "</title>";
          s += text + "</phase>";
        }
        s += "</thinking>" + between;
        if (final_present) s += "<final>" + final_text + serp_block + "</final>";
        return s + after;
      },
      Opt(gen::resize(8, Text())), Opt(gen::resize(8, Text())),
      gen::resize(
          4, gen::container<std::vector<std::tuple<int, std::string, std::string, bool>>>(phase)),
      gen::resize(16, TextOf(TmlNearMiss(), 1)), SerpBlock(),
      gen::element<std::string>("", "", "\n", " ", "x"),
      gen::element<std::string>("", "", "\n", " tail", "<final>x</final>"),
      gen::element(true, true, true, false));
  // Now and then a near-miss lands anywhere in an otherwise well-built reply.
  return gen::apply(
      [](std::string s, std::optional<std::pair<std::size_t, std::string>> insert) {
        if (insert && !s.empty()) s.insert(insert->first % (s.size() + 1), insert->second);
        return Json{{"text", std::move(s)}};
      },
      reply, Opt(gen::pair(gen::inRange<std::size_t>(0, 400), TmlNearMiss())));
}
rc::Gen<Json> EscapeLiterals() {
  return gen::map(gen::resize(20, TextOf(TmlNearMiss(), 6)), [](std::string s) {
    return Json{{"text", "<thinking>" + s + "</thinking><final>" + s + "</final>"}};
  });
}

// ---- sse.parse ---------------------------------------------------------------------

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

// ---- gymbro.checkEvents -------------------------------------------------------------

// Code points of UTF-8 text (continuation bytes not counted).
std::int64_t CodePoints(const std::string& s) {
  return std::count_if(s.begin(), s.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// One event of a GymBro stream before it is written: its kind and a flaw
// (0 = none) that breaks one rule of seed 002 §6.
struct GymEvent {
  int kind = 0;  // 0 status, 1 content_delta, 2 heartbeat, 3 an unknown name
  std::string text;
  int flaw = 0;
};

// Flaws and variants are picked with gen::element, not gen::inRange: inside
// gen::resize the latter only reaches the low end of its range.
rc::Gen<Json> GymbroEvents() {
  auto delta_text = gen::weightedOneOf<std::string>(
      {{6, gen::resize(10, TextOf(TmlNearMiss(), 1))},
       {1, gen::element<std::string>("<final>", "</final>", "<thinking><phase id=\"1\">",
                                     std::string(300, 'a'), "😀😀😀", "")}});
  auto event = gen::apply(
      [](int kind, std::string text, int flaw) {
        return GymEvent{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<int>(
          {{2, gen::just(0)}, {6, gen::just(1)}, {1, gen::just(2)}, {1, gen::element(3)}}),
      delta_text,
      gen::weightedOneOf<int>(
          {{12, gen::just(0)}, {1, gen::element(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}}));
  // The terminal: 0 completed, 1 error, 2 none, 3 completed then error,
  // 4 completed then a late delta.
  auto terminal = gen::element(0, 0, 0, 1, 1, 2, 3, 4);
  auto terminal_flaw =
      gen::weightedOneOf<int>({{8, gen::just(0)}, {1, gen::element(1, 2, 3, 4, 5, 6)}});
  return gen::apply(
      [](std::vector<GymEvent> events, int terminal, int terminal_flaw,
         std::optional<std::string> request_id, bool ids_in_order) {
        const std::string rid = request_id.value_or("r-1");
        Json list = Json::array();
        std::string reply;
        int seq = 0;
        static const char* const kStates[] = {"queued", "working", "routed"};
        int state = 0;
        auto base = [&](int flaw) {
          Json d{{"message_id", "m-1"}, {"request_id", rid}};
          if (flaw == 1) d.erase("message_id");
          if (flaw == 2) d["request_id"] = "r-other";
          if (flaw == 3) d["message_id"] = "";
          return d;
        };
        auto push = [&](std::string name, Json data, int flaw) {
          if (flaw == 4) {
            list.push_back({{"event", std::move(name)}, {"data", data.dump()}});
          } else if (flaw == 5) {
            list.push_back({{"event", std::move(name)}, {"data", "{\"message_id\": \"m-1\","}});
          } else if (flaw == 6) {
            list.push_back({{"event", "message"}, {"data", std::move(data)}});
          } else {
            list.push_back({{"event", std::move(name)}, {"data", std::move(data)}});
          }
        };
        for (const auto& e : events) {
          Json d = base(e.flaw);
          if (e.kind == 0) {
            const int at =
                ids_in_order ? std::min(state++, 2) : static_cast<int>(e.text.size() % 3);
            d["state"] = kStates[e.flaw == 7 ? (at + 2) % 3 : at];
            push("status", std::move(d), e.flaw);
          } else if (e.kind == 1) {
            ++seq;
            d["seq"] = e.flaw == 7   ? Json(seq + 1)
                       : e.flaw == 8 ? Json(std::to_string(seq))
                                     : Json(seq);
            if (e.flaw == 9) {
              d["delta"] = 42;
            } else {
              d["delta"] = e.text;
              reply += e.text;
            }
            if (e.flaw == 10) d.erase("seq");
            push("content_delta", std::move(d), e.flaw);
          } else if (e.kind == 2) {
            d["ts"] = e.flaw == 7   ? Json(1700000000)
                      : e.flaw == 8 ? Json("now")
                                    : Json(1700000000123);
            push("heartbeat", std::move(d), e.flaw);
          } else {
            push(e.text.size() % 2 ? "done" : "Status", std::move(d), e.flaw);
          }
        }
        auto completed = [&]() {
          Json d = base(terminal_flaw == 1 ? 1 : 0);
          const std::int64_t len = CodePoints(reply);
          d["reply_len"] = terminal_flaw == 2   ? Json(len + 1)
                           : terminal_flaw == 3 ? Json(-1)
                           : terminal_flaw == 4 ? Json(std::to_string(len))
                                                : Json(len);
          if (terminal_flaw == 5) d["reply"] = reply;
          push("completed", std::move(d), terminal_flaw == 6 ? 4 : 0);
        };
        auto error = [&]() {
          Json d = base(0);
          d["code"] = "upstream_error";
          d["message"] = "the model failed";
          d["error"] = terminal_flaw == 2 ? "something else" : "the model failed";
          if (terminal_flaw == 3) d.erase("code");
          if (terminal_flaw == 4) d["message"] = 5;
          push("error", std::move(d), 0);
        };
        if (terminal == 0 || terminal == 3 || terminal == 4) completed();
        if (terminal == 1 || terminal == 3) error();
        if (terminal == 4) {
          Json d = base(0);
          d["seq"] = seq + 1;
          d["delta"] = "late";
          push("content_delta", std::move(d), 0);
        }
        Json in{{"events", std::move(list)}};
        if (request_id) in["request_id"] = *request_id;
        return in;
      },
      gen::resize(12, gen::container<std::vector<GymEvent>>(event)), terminal, terminal_flaw,
      Opt(gen::element<std::string>("r-1", "r-1", "req-42")),
      gen::element(true, true, true, false));
}

// ---- wire.accumulate, wire.dialect ---------------------------------------------------

// The first `n` code points of UTF-8 text.
std::string FirstCodePoints(const std::string& s, std::size_t n) {
  std::size_t end = 0;
  while (end < s.size() && n > 0) {
    ++end;
    while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    --n;
  }
  return s.substr(0, end);
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
                std::size_t half = a.size() / 2;
                while (half > 0 && (static_cast<unsigned char>(a[half]) & 0xC0) == 0x80) --half;
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
                       FirstCodePoints(c.text, 3) + "\n\n";
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

// ---- skill prompt builders -------------------------------------------------------------

rc::Gen<std::string> Blankish() {
  return gen::element<std::string>("", " ", "\n\t", "\u00a0", "\u3000", "\ufeff", " \r\n");
}

rc::Gen<Json> SkillParameters() {
  auto value = gen::oneOf(
      gen::map(ShortText(), [](std::string s) { return Json(s); }),
      gen::element<Json>(true, false, nullptr, 0, 5, -1.5, 12345678901LL, "", "a\nb", "x: y"));
  auto key = gen::oneOf(ShortText(), gen::element<std::string>("env", "branch", "force", "", "имя",
                                                               "key with space"));
  return gen::map(gen::resize(5, gen::container<std::vector<std::pair<std::string, Json>>>(
                                     gen::pair(key, value))),
                  [](const std::vector<std::pair<std::string, Json>>& ps) {
                    Json out = Json::array();
                    for (const auto& [k, v] : ps) out.push_back(Json::array({k, v}));
                    return out;
                  });
}

rc::Gen<std::string> SkillName() {
  return gen::oneOf(gen::element<std::string>("git", "deploy", "disk-usage", "Проверка диска",
                                              "检查", "", " git "),
                    ShortText());
}

rc::Gen<Json> BuildInitialUserPrompt() {
  return gen::apply(
      [](std::string name, std::optional<Json> params, std::optional<std::string> custom,
         std::optional<int> step, std::optional<int> max_steps) {
        Json in{{"skillName", std::move(name)}};
        if (params) in["parameters"] = *params;
        if (custom) in["customPrompt"] = *custom;
        if (step) in["step"] = *step;
        if (max_steps) in["maxSteps"] = *max_steps;
        return in;
      },
      SkillName(), Opt(gen::oneOf(SkillParameters(), gen::just(Json(nullptr)))),
      Opt(gen::oneOf(ShortText(), Blankish())), Opt(gen::element(1, 1, 2, 7, 99, 100, 101)),
      Opt(gen::element(1, 5, 100, 3)));
}

rc::Gen<Json> BuildSkillSystemPrompt() {
  auto markdown = gen::apply(
      [](int front, std::string body, std::string eol) -> std::string {
        std::string fm;
        if (front == 1) fm = "---\nname: x\ndescription: y\n---\n";
        if (front == 2) fm = "---\r\nname: x\r\n---\r\n";
        if (front == 3) fm = "---\nname: x\n";  // never closed
        if (front == 4) fm = "\n---\nname: x\n---\n";
        if (front == 5) fm = "----\nname: x\n----\n";
        std::string b = body;
        if (eol == "\r\n") {
          std::string out;
          for (char c : b) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
          b = out;
        }
        return fm + b;
      },
      gen::element(0, 1, 1, 2, 3, 4, 5),
      TextOf(gen::element<std::string>("# Git\n", "---\n", "\n\n", "Steps:\n1. run\n"), 3),
      gen::element<std::string>("\n", "\n", "\r\n"));
  return gen::apply(
      [](std::optional<std::string> base, std::optional<std::string> context,
         std::optional<std::string> custom, std::string name, std::string md,
         std::optional<Json> params, std::optional<int> max_steps) {
        Json in{{"skillName", std::move(name)}, {"skillMarkdown", std::move(md)}};
        if (base) in["basePrompt"] = *base;
        if (context) in["serverContext"] = *context;
        if (custom) in["customPrompt"] = *custom;
        if (params) in["parameters"] = *params;
        if (max_steps) in["maxSteps"] = *max_steps;
        return in;
      },
      Opt(gen::oneOf(ShortText(), Blankish())), Opt(gen::oneOf(Text(), Blankish())),
      Opt(ShortText()), SkillName(), markdown, Opt(SkillParameters()),
      Opt(gen::element(1, 5, 100)));
}

// ---- toolcalls prompt shells and conversations ------------------------------------------

rc::Gen<std::string> NodeId() {
  return gen::oneOf(gen::element<std::string>("n1", "n2", "draft", "review", "end", "",
                                              "node with space", "节点"),
                    ShortText());
}

rc::Gen<Json> ComposeUserInput() {
  return gen::apply(
      [](std::string text, std::optional<Json> node) {
        Json in{{"text", std::move(text)}};
        if (node) in["forNodeId"] = *node;
        return in;
      },
      TextOf(gen::element<std::string>("USER_INPUT", "- forNodeId: n1", "\n- ", "RUN_DIRECTIVE"),
             2),
      Opt(gen::oneOf(gen::map(NodeId(), [](std::string s) { return Json(s); }),
                     gen::just(Json(nullptr)))));
}

rc::Gen<Json> ComposeRunDirective() {
  auto opt_text =
      Opt(gen::oneOf(gen::map(ShortText(), [](std::string s) { return Json(s); }),
                     gen::element<Json>(nullptr, "", "@state/workflow.md",
                                        "@pkg/workflow.graph.json", "@project/artifacts/")));
  return gen::apply(
      [](std::string intent, std::string workflow, std::string node, std::string agent,
         std::optional<Json> run_type, std::optional<Json> state, std::optional<Json> graph,
         std::optional<Json> artifacts, std::optional<Json> autopilot) {
        Json in{{"intent", std::move(intent)},
                {"workflow", std::move(workflow)},
                {"currentNodeId", std::move(node)},
                {"effectiveAgentId", std::move(agent)}};
        if (run_type) in["runType"] = *run_type;
        if (state) in["state"] = *state;
        if (graph) in["graph"] = *graph;
        if (artifacts) in["artifactsRoot"] = *artifacts;
        if (autopilot) in["autopilot"] = *autopilot;
        return in;
      },
      gen::element<std::string>("start", "continue", "resume"),
      gen::oneOf(gen::element<std::string>("story", "novel-writing", ""), ShortText()), NodeId(),
      gen::element<std::string>("a", "writer", "agent-7", ""), opt_text, opt_text, opt_text,
      opt_text, Opt(gen::element<Json>(true, false, nullptr)));
}

rc::Gen<Json> ComposeNodeBrief() {
  auto output = gen::oneOf(gen::element<Json>("a.md", "@project/artifacts/out.md", ""),
                           gen::apply(
                               [](std::string from, std::string to) {
                                 return Json{{"from", from}, {"to", to}};
                               },
                               gen::element<std::string>("draft", "b", ""),
                               gen::element<std::string>("@project/b.md", "@state/x", "")));
  auto next =
      gen::oneOf(gen::map(NodeId(), [](std::string s) { return Json(s); }),
                 gen::apply(
                     [](std::string id, std::optional<Json> label) {
                       Json o{{"nodeId", id}};
                       if (label) o["label"] = *label;
                       return o;
                     },
                     NodeId(), Opt(gen::element<Json>("done", "retry", "", nullptr, "带标签"))));
  return gen::apply(
      [](std::string node, std::string step, std::optional<std::vector<Json>> outputs,
         std::optional<std::vector<Json>> nexts) {
        Json in{{"currentNodeId", std::move(node)}, {"stepFile", std::move(step)}};
        if (outputs) in["outputsMap"] = *outputs;
        if (nexts) in["allowedNext"] = *nexts;
        return in;
      },
      NodeId(), gen::element<std::string>("@pkg/steps/n1.md", "@pkg/steps/草稿.md", ""),
      Opt(gen::resize(4, gen::container<std::vector<Json>>(output))),
      Opt(gen::resize(4, gen::container<std::vector<Json>>(next))));
}

rc::Gen<Json> FunctionTools() {
  return gen::map(
      // Mostly the five tools under either name; rarely one the reference
      // refuses (unknown, wrong case, empty), so most inputs reach TC-4.1-3.
      Opt(gen::resize(6, gen::container<std::vector<std::string>>(
                             gen::weightedElement<std::string>({{10, "fs.read"},
                                                                {10, "fs.list"},
                                                                {10, "fs.search"},
                                                                {10, "fs.write"},
                                                                {10, "fs.apply_patch"},
                                                                {10, "fs_read"},
                                                                {10, "fs_write"},
                                                                {1, "fs.delete"},
                                                                {1, "FS.READ"},
                                                                {1, ""}})))),
      [](std::optional<std::vector<std::string>> tools) {
        Json in = Json::object();
        if (tools) in["tools"] = *tools;
        return in;
      });
}

// Either mode or none, a persona of mixed text or none, the tool lists of
// FunctionTools, and limits now and then.
rc::Gen<Json> ComposeSystemMessages() {
  return gen::apply(
      [](std::optional<std::string> mode, std::optional<std::string> persona, Json tools,
         std::optional<int> max_read) {
        Json in = std::move(tools);
        if (mode) in["mode"] = *mode;
        if (persona) in["persona"] = *persona;
        if (max_read) in["limits"] = {{"maxReadBytes", *max_read}};
        return in;
      },
      Opt(gen::element<std::string>("run", "chat")),
      Opt(TextOf(gen::element<std::string>("You are Bob.\n", "RUN_DIRECTIVE", ""), 2)),
      FunctionTools(), Opt(gen::inRange(0, 100'000)));
}

// A conversation with tool calls and their back-filled results, each turn
// right or broken in one of the ways seed 001 §3.2 and §4.1 forbid.
rc::Gen<Json> CheckConversation() {
  // Per turn: how many calls, and a flaw (0 = none).
  auto turn = gen::pair(
      gen::element(0, 1, 1, 2, 3),
      gen::weightedOneOf<int>(
          {{6, gen::just(0)}, {1, gen::element(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)}}));
  return gen::apply(
      [](std::vector<std::pair<int, int>> turns, std::string text, bool system) {
        Json msgs = Json::array();
        if (system) msgs.push_back({{"role", "system"}, {"content", "You are an agent."}});
        msgs.push_back({{"role", "user"}, {"content", text}});
        int id = 0;
        for (const auto& [calls, flaw] : turns) {
          if (flaw == 1) msgs.push_back({{"role", "developer"}, {"content", "x"}});
          if (flaw == 2) msgs.push_back({{"role", "user"}, {"templateRef", "RUN_DIRECTIVE"}});
          Json tcs = Json::array();
          std::vector<std::string> ids;
          for (int k = 0; k < calls; ++k) {
            std::string cid = "call_" + std::to_string(id++);
            if (flaw == 3 && k == 1) cid = ids[0];
            ids.push_back(cid);
            std::string name = flaw == 4 ? "fs.read" : flaw == 5 ? "fs read!" : "fs_read";
            std::string args = flaw == 6   ? "{\"path\": "
                               : flaw == 7 ? "[1]"
                                           : R"({"path":"@project/a.md"})";
            tcs.push_back({{"id", cid},
                           {"type", "function"},
                           {"function", {{"name", name}, {"arguments", args}}}});
          }
          Json assistant{{"role", "assistant"}, {"content", calls ? Json(nullptr) : Json(text)}};
          if (calls) assistant["tool_calls"] = tcs;
          msgs.push_back(assistant);
          std::vector<Json> results;
          for (const auto& cid : ids) {
            Json content = std::string(R"({"ok":true,"path":"@project/a.md"})");
            if (flaw == 8) content = Json{{"ok", true}};
            if (flaw == 9) content = "plain text";
            if (flaw == 10) content = R"({"path":"x"})";
            Json result{{"role", "tool"},
                        {"tool_call_id", flaw == 11 ? "call_x" : cid},
                        {"content", content}};
            if (flaw == 14) result.erase("tool_call_id");
            results.push_back(std::move(result));
          }
          if (flaw == 12 && results.size() > 1) std::swap(results[0], results[1]);
          if (flaw == 12 && results.size() == 1) results.clear();
          if (flaw == 13 && !results.empty())
            msgs.push_back({{"role", "user"}, {"content", "wait"}});
          for (auto& r : results) msgs.push_back(std::move(r));
        }
        if (turns.empty())
          msgs.push_back({{"role", "tool"}, {"tool_call_id", "x"}, {"content", "{}"}});
        return Json{{"messages", std::move(msgs)}};
      },
      gen::resize(5, gen::container<std::vector<std::pair<int, int>>>(turn)), ShortText(),
      gen::element(true, true, false));
}

const std::map<std::string, rc::Gen<Json>, std::less<>>& Table() {
  static const auto* table = new std::map<std::string, rc::Gen<Json>, std::less<>>{
      {"action.parse", ActionParse()},
      {"multiturn.estimateMessageTokens", EstimateTokens()},
      {"multiturn.buildLLMMessages", BuildMessages()},
      {"skill.parseSkillResponse", SkillText()},
      {"skill.checkReply", SkillText()},
      {"skill.cleanOutputForAI", CleanOutput()},
      {"thinkingml.validate", ThinkingMl()},
      {"thinkingml.escapeThinkingFinalLiterals", EscapeLiterals()},
      {"sse.parse", SseParse()},
      {"gymbro.checkEvents", GymbroEvents()},
      {"wire.accumulate", WireAccumulate()},
      {"wire.dialect", WireDialect()},
      {"responses.accumulate", ResponsesAccumulateInput()},
      {"skill.buildInitialUserPrompt", BuildInitialUserPrompt()},
      {"skill.buildSkillSystemPrompt", BuildSkillSystemPrompt()},
      {"toolcalls.composeUserInput", ComposeUserInput()},
      {"toolcalls.composeRunDirective", ComposeRunDirective()},
      {"toolcalls.composeNodeBrief", ComposeNodeBrief()},
      {"toolcalls.functionTools", FunctionTools()},
      {"toolcalls.composeSystemMessages", ComposeSystemMessages()},
      {"toolcalls.checkConversation", CheckConversation()},
  };
  return *table;
}

}  // namespace

const rc::Gen<Json>* InputGenerator(std::string_view op) {
  const auto& table = Table();
  auto it = table.find(op);
  return it == table.end() ? nullptr : &it->second;
}

rc::Shrinkable<Json> GenerateCase(const rc::Gen<Json>& gen, std::uint64_t seed, std::size_t index) {
  const int size = static_cast<int>(index % 101);
  rc::Random random(seed);
  random = rc::Random(random.next() ^ (0x9e3779b97f4a7c15ULL * (index + 1)));
  return gen(random, size);
}

std::vector<std::string> GeneratedOps() {
  std::vector<std::string> out;
  for (const auto& [name, g] : Table()) out.push_back(name);
  return out;
}

std::vector<std::string> TriggeredRules(std::string_view op, const Json& input,
                                        const Json& output) {
  std::set<std::string> rules;
  if (output.is_object()) {
    if (auto f = output.find("findings"); f != output.end() && f->is_array()) {
      for (const Json& finding : *f) {
        if (finding.is_object() && finding.contains("rule") && finding["rule"].is_string())
          rules.insert(finding["rule"].get<std::string>());
      }
    }
  }
  if (!output.is_object() || !input.is_object()) return {rules.begin(), rules.end()};
  if (op == "action.parse") {
    const std::string text = input.value("text", "");
    const auto first = text.find_first_not_of(" \t\n\r\f\v");
    const std::string trimmed =
        first == std::string::npos
            ? ""
            : text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
    const bool command = output.contains("command") && !output["command"].is_null();
    const std::string out_text = output.contains("text") && output["text"].is_string()
                                     ? output["text"].get<std::string>()
                                     : "";
    if (!command && out_text == trimmed && trimmed.find('{') == std::string::npos)
      rules.insert("ACT-9");
    if (!command && rules.empty()) rules.insert("ACT-10");
    if (out_text.find(':') != std::string::npos) rules.insert("ACT-11");
    if (!command && (rules.contains("ACT-4") || rules.contains("ACT-6") ||
                     rules.contains("ACT-7") || rules.contains("ACT-8")))
      rules.insert("ACT-12");
    if (command && input.contains("sessionId") && input["sessionId"].is_string() &&
        !input["sessionId"].get<std::string>().empty())
      rules.insert("ACT-13");
    if (output.contains("mcpPayload") && output["mcpPayload"].is_string()) rules.insert("ACT-14");
  } else if (op == "multiturn.buildLLMMessages" && output.contains("messages") &&
             input.contains("history")) {
    const std::size_t kept = output["messages"].size() >= 2 ? output["messages"].size() - 2 : 0;
    const std::size_t all = input["history"].size();
    rules.insert({"REQ-AIS-MULTITURN-1", "REQ-AIS-MULTITURN-2", "REQ-AIS-MULTITURN-3",
                  "REQ-AIS-MULTITURN-7"});
    if (kept < all) rules.insert(kept == 0 ? "REQ-AIS-MULTITURN-5" : "REQ-AIS-MULTITURN-4");
  } else if (op == "multiturn.estimateMessageTokens") {
    rules.insert("REQ-AIS-MULTITURN-6");
  } else if (op == "skill.parseSkillResponse" && output.contains("type")) {
    const std::string type = output["type"].is_string() ? output["type"].get<std::string>() : "";
    const std::string content = output.contains("content") && output["content"].is_string()
                                    ? output["content"].get<std::string>()
                                    : "";
    const std::string text = input.value("text", "");
    if (type == "CMD")
      rules.insert(content.starts_with("[CMD]") && !text.starts_with("[") &&
                           text.find("[CMD]") == std::string::npos &&
                           text.find("[cmd]") == std::string::npos
                       ? "SKILL-PARSE-6"
                       : "SKILL-PARSE-1");
    if (type == "ASK")
      rules.insert(output.value("required", true) ? "SKILL-PARSE-2" : "SKILL-PARSE-3");
    if (type == "MESSAGE") rules.insert("SKILL-PARSE-4");
    if (type == "DONE") rules.insert("SKILL-PARSE-5");
    if (type == "UNKNOWN") rules.insert("SKILL-PARSE-6");
    if (type == "cmd" && text.find("```") != std::string::npos) rules.insert("SKILL-PARSE-8");
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower != text && type != "UNKNOWN") rules.insert("SKILL-PARSE-7");
  } else if (op == "skill.cleanOutputForAI" && output.contains("text")) {
    rules.insert("SKILL-CLEAN-1");
    const std::string in = input.value("text", "");
    const std::string out = output["text"].is_string() ? output["text"].get<std::string>() : "";
    if (in.find('\x1b') != std::string::npos) rules.insert("SKILL-CLEAN-2");
    if (in.find(">") != std::string::npos || in.find("$ ") != std::string::npos)
      rules.insert("SKILL-CLEAN-3");
    if (in.find("Microsoft") != std::string::npos) rules.insert("SKILL-CLEAN-4");
    if (in.find('\r') != std::string::npos) rules.insert("SKILL-CLEAN-5");
    if (input.contains("lastCommand") && in.starts_with(input.value("lastCommand", "\x01")))
      rules.insert("SKILL-CLEAN-6");
    if (in.find("same line\nsame line") != std::string::npos) rules.insert("SKILL-CLEAN-7");
    if (out == "(no output)") rules.insert("SKILL-CLEAN-8");
  } else if (op == "wire.dialect" && output.contains("deviations") &&
             output["deviations"].is_array()) {
    for (const Json& d : output["deviations"])
      if (d.is_object() && d.contains("id") && d["id"].is_string())
        rules.insert(d["id"].get<std::string>());
  } else if (op == "skill.buildSkillSystemPrompt" && output.contains("text")) {
    rules.insert({"SKILL-PROMPT-1", "SKILL-PROMPT-3"});
    if (output["text"].is_string() &&
        output["text"].get<std::string>().find("\n\n--- System Context ---\n") != std::string::npos)
      rules.insert("SKILL-PROMPT-2");
  } else if (op == "skill.buildInitialUserPrompt" && output.contains("text")) {
    rules.insert({"SKILL-USER-1", "SKILL-USER-6"});
  } else if (op.starts_with("toolcalls.") && output.contains("text")) {
    if (op == "toolcalls.composeRunDirective") rules.insert("TC-5.1-1");
    if (op == "toolcalls.composeNodeBrief") rules.insert("TC-5.2-1");
    if (op == "toolcalls.composeUserInput") rules.insert("TC-5.3-1");
  } else if (op == "toolcalls.functionTools" && output.contains("tools")) {
    rules.insert("TC-4.1-3");
  } else if (op == "toolcalls.composeSystemMessages" && output.contains("messages") &&
             input.is_object() && input.value("mode", Json("run")) == "chat") {
    rules.insert("TC-3.1-2");
  } else if (op == "sse.parse" || op == "thinkingml.escapeThinkingFinalLiterals") {
    rules.insert(op == "sse.parse" ? "WIRE-SSE-FRAMING" : "TML-1.11");
  }
  return {rules.begin(), rules.end()};
}

std::vector<std::string> RulePrefixes(std::string_view op) {
  if (op == "action.parse") return {"ACT-"};
  if (op == "multiturn.estimateMessageTokens") return {"REQ-AIS-MULTITURN-6"};
  if (op == "multiturn.buildLLMMessages") return {"REQ-AIS-MULTITURN-"};
  if (op == "skill.parseSkillResponse") return {"SKILL-PARSE-"};
  if (op == "skill.checkReply") return {"SKILL-REPLY-"};
  if (op == "skill.cleanOutputForAI") return {"SKILL-CLEAN-"};
  if (op.starts_with("thinkingml.")) return {"TML-"};
  if (op == "sse.parse") return {"WIRE-SSE-"};
  if (op == "wire.accumulate") return {"WIRE-STREAM-", "WIRE-DIALECT-"};
  if (op == "responses.accumulate")
    return {wire::kResponsesRuleIds.begin(), wire::kResponsesRuleIds.end()};
  if (op == "wire.dialect") {
    std::vector<std::string> ids;
    for (std::string_view id : wire::DialectIds()) ids.emplace_back(id);
    return ids;
  }
  if (op == "gymbro.checkEvents") {
    std::vector<std::string> ids;
    for (std::string_view id : gymbro::kEventRuleIds) ids.emplace_back(id);
    return ids;
  }
  if (op == "skill.buildSkillSystemPrompt")
    return {"SKILL-PROMPT-1", "SKILL-PROMPT-2", "SKILL-PROMPT-3"};
  if (op == "skill.buildInitialUserPrompt") return {"SKILL-USER-1", "SKILL-USER-6"};
  if (op == "toolcalls.composeRunDirective") return {"TC-5.1-1"};
  if (op == "toolcalls.composeNodeBrief") return {"TC-5.2-1"};
  if (op == "toolcalls.composeUserInput") return {"TC-5.3-1"};
  if (op == "toolcalls.functionTools") return {"TC-4.1-3"};
  if (op == "toolcalls.composeSystemMessages") return {"TC-3.1-2"};
  if (op == "toolcalls.checkConversation")
    return {"TC-3.1-1", "TC-3.2-1", "TC-3.2-2", "TC-3.2-3", "TC-3.2-4",
            "TC-4.1-1", "TC-4.1-2", "TC-4.1-3", "TC-4.1-4", "TC-4.1-5"};
  return {};
}

bool IsTrafficRule(std::string_view rule) {
  return rule == "ACT-15" || rule == "REQ-AIS-MULTITURN-8";
}

std::string DecidingRule(std::string_view op, const Json& input, const Json& output) {
  if (output.is_object()) {
    if (auto f = output.find("findings"); f != output.end() && f->is_array() && !f->empty()) {
      const Json& first = (*f)[0];
      if (first.is_object() && first.contains("rule") && first["rule"].is_string())
        return first["rule"].get<std::string>();
    }
  }
  const auto rules = TriggeredRules(op, input, output);
  // Most specific first: what decided the shape of this answer.
  static const char* const kPreferred[] = {"REQ-AIS-MULTITURN-5",
                                           "REQ-AIS-MULTITURN-4",
                                           "REQ-AIS-MULTITURN-6",
                                           "REQ-AIS-MULTITURN-1",
                                           "ACT-13",
                                           "ACT-14",
                                           "ACT-12",
                                           "ACT-11",
                                           "ACT-10",
                                           "ACT-9",
                                           "SKILL-PARSE-8",
                                           "SKILL-PARSE-7"};
  for (const char* r : kPreferred) {
    if (std::find(rules.begin(), rules.end(), r) != rules.end()) return r;
  }
  return rules.empty() ? "" : rules.front();
}

}  // namespace llmconform::harness::check
