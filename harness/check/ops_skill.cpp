#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/json_fields.h"
#include "harness/check/gen_text.h"
#include "harness/check/op_record.h"

namespace llmconform::harness::check {
namespace {

namespace gen = rc::gen;

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

}  // namespace

std::vector<OpRecord> SkillOps() {
  return {
      {"skill.parseSkillResponse",
       SkillText(),
       {"SKILL-PARSE-"},
       [](const Json& input, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("type")) return;
         const std::string type =
             output["type"].is_string() ? output["type"].get<std::string>() : "";
         const std::string content = output.contains("content") && output["content"].is_string()
                                         ? output["content"].get<std::string>()
                                         : "";
         const std::string text = StringOf(input, "text");
         if (type == "CMD")
           rules.insert(content.starts_with("[CMD]") && !text.starts_with("[") &&
                                text.find("[CMD]") == std::string::npos &&
                                text.find("[cmd]") == std::string::npos
                            ? "SKILL-PARSE-6"
                            : "SKILL-PARSE-1");
         if (type == "ASK")
           rules.insert((MemberOf(output, "required") != false) ? "SKILL-PARSE-2"
                                                                : "SKILL-PARSE-3");
         if (type == "MESSAGE") rules.insert("SKILL-PARSE-4");
         if (type == "DONE") rules.insert("SKILL-PARSE-5");
         if (type == "UNKNOWN") rules.insert("SKILL-PARSE-6");
         if (type == "cmd" && text.find("```") != std::string::npos) rules.insert("SKILL-PARSE-8");
         std::string lower = text;
         std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
         if (lower != text && type != "UNKNOWN") rules.insert("SKILL-PARSE-7");
       }},
      {"skill.checkReply", SkillText(), {"SKILL-REPLY-"}, {}},
      {"skill.cleanOutputForAI",
       CleanOutput(),
       {"SKILL-CLEAN-"},
       [](const Json& input, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("text")) return;
         rules.insert("SKILL-CLEAN-1");
         const std::string in = StringOf(input, "text");
         const std::string out =
             output["text"].is_string() ? output["text"].get<std::string>() : "";
         if (in.find('\x1b') != std::string::npos) rules.insert("SKILL-CLEAN-2");
         if (in.find(">") != std::string::npos || in.find("$ ") != std::string::npos)
           rules.insert("SKILL-CLEAN-3");
         if (in.find("Microsoft") != std::string::npos) rules.insert("SKILL-CLEAN-4");
         if (in.find('\r') != std::string::npos) rules.insert("SKILL-CLEAN-5");
         if (input.contains("lastCommand") && in.starts_with(input.value("lastCommand", "\x01")))
           rules.insert("SKILL-CLEAN-6");
         if (in.find("same line\nsame line") != std::string::npos) rules.insert("SKILL-CLEAN-7");
         if (out == "(no output)") rules.insert("SKILL-CLEAN-8");
       }},
      {"skill.buildInitialUserPrompt",
       BuildInitialUserPrompt(),
       {"SKILL-USER-1", "SKILL-USER-6"},
       [](const Json&, const Json& output, std::set<std::string>& rules) {
         if (output.contains("text")) rules.insert({"SKILL-USER-1", "SKILL-USER-6"});
       }},
      {"skill.buildSkillSystemPrompt",
       BuildSkillSystemPrompt(),
       {"SKILL-PROMPT-1", "SKILL-PROMPT-2", "SKILL-PROMPT-3"},
       [](const Json&, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("text")) return;
         rules.insert({"SKILL-PROMPT-1", "SKILL-PROMPT-3"});
         if (output["text"].is_string() && output["text"].get<std::string>().find(
                                               "\n\n--- System Context ---\n") != std::string::npos)
           rules.insert("SKILL-PROMPT-2");
       }},
  };
}

}  // namespace llmconform::harness::check
