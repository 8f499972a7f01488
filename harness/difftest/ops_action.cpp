#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/json_fields.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/op_record.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

// What a generated reply's "args" is.
enum class Args { kObject, kMissing, kString, kArray };

rc::Gen<std::string> ActionReply() {
  // A JSON reply, from a field set in which each field may be missing, null
  // or of the wrong type; then written out exactly, in a fence, with prose
  // around, or almost valid.
  auto command = Opt(gen::element<Json>("open_app", "open_app", "OPEN_APP", "open_app ", "openApp",
                                        "close_app", nullptr, 42, Json::array()));
  auto app_name = Opt(gen::oneOf(gen::map(ShortText(), [](std::string s) { return Json(s); }),
                                 gen::element<Json>("Safari", "Calculator", "", " ", 7, nullptr)));
  auto args_kind = gen::element(Args::kObject, Args::kObject, Args::kObject, Args::kMissing,
                                Args::kString, Args::kArray);
  auto session = Opt(gen::element<Json>("s-1", "session-123", "", 5, nullptr));
  auto text = Opt(gen::oneOf(gen::map(Text(), [](std::string s) { return Json(s); }),
                             gen::element<Json>("", nullptr, 3, Json::array())));
  auto extra_key = Opt(gen::element<std::string>("extra", "Text", "commands", "text "));
  auto doc = gen::apply(
      [](std::optional<Json> text, std::optional<Json> command, std::optional<Json> app_name,
         Args args_kind, std::optional<Json> session, std::optional<std::string> extra) {
        Json o = Json::object();
        if (text) o["text"] = *text;
        if (command) o["command"] = *command;
        if (args_kind == Args::kObject) {
          o["args"] = Json::object();
          if (app_name) o["args"]["app_name"] = *app_name;
        } else if (args_kind == Args::kString) {
          o["args"] = "Safari";
        } else if (args_kind == Args::kArray) {
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

}  // namespace

std::vector<OpRecord> ActionOps() {
  return {{"action.parse",
           ActionParse(),
           {"ACT-"},
           [](const Json& input, const Json& output, std::set<std::string>& rules) {
             const std::string text = StringOf(input, "text");
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
             if (output.contains("mcpPayload") && output["mcpPayload"].is_string())
               rules.insert("ACT-14");
           }}};
}

}  // namespace llmconform::harness::difftest
