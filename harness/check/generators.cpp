#include "harness/check/generators.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "protocols/multiturn/multiturn.h"

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
                                        "truncated", "two-objects", "newlines");
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
      gen::element<std::string>("user", "assistant", "user", "assistant", "system", "tool"),
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
      "```\n", "\n```", "git status", "ls -la", "lsblk", "echo 'hi' && pwd", "Which branch?");
}
rc::Gen<Json> SkillText() {
  auto body = TextOf(SkillTags(), 8);
  return gen::apply(
      [](std::string lead, std::string rest) {
        return Json{{"text", lead + rest}};
      },
      gen::element<std::string>("", "[CMD] ", "[ASK] ", "[ASK:optional] ", "[MESSAGE] ", "[DONE]",
                                "[DONE] ", " [CMD] ", "\n[CMD]\n"),
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
      gen::element<std::string>("weather paris", "weather paris", "mail me@example.com",
                                "call +1 555 010 9999", "ip 10.0.0.1", std::string(90, 'q'), ""));
  return gen::apply(
      [](std::vector<std::string> queries, std::string how) -> std::string {
        const std::string array = Json(queries).dump();
        if (how == "none") return std::string();
        if (how == "indented") return "\n  <!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
        if (how == "one-line") return "\n<!-- <serp_queries>" + array + "</serp_queries> -->";
        if (how == "not-json") return "\n<!-- <serp_queries>\n[\"a\",]\n</serp_queries> -->";
        return "\n<!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
      },
      gen::resize(7, gen::container<std::vector<std::string>>(query)),
      gen::element<std::string>("ok", "ok", "ok", "none", "indented", "one-line", "not-json"));
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
  };
  return *table;
}

}  // namespace

const rc::Gen<Json>* InputGenerator(std::string_view op) {
  const auto& table = Table();
  auto it = table.find(op);
  return it == table.end() ? nullptr : &it->second;
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
  static const char* const kPreferred[] = {
      "REQ-AIS-MULTITURN-5", "REQ-AIS-MULTITURN-4", "REQ-AIS-MULTITURN-6", "REQ-AIS-MULTITURN-1",
      "ACT-13",              "ACT-14",              "ACT-12",              "ACT-11",
      "ACT-10",              "ACT-9",               "SKILL-PARSE-8",       "SKILL-PARSE-7"};
  for (const char* r : kPreferred) {
    if (std::find(rules.begin(), rules.end(), r) != rules.end()) return r;
  }
  return rules.empty() ? "" : rules.front();
}

}  // namespace llmconform::harness::check
