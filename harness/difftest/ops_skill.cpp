#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/json_fields.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/op_record.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/response.h"

namespace llmconform::harness::difftest {
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

// How the first line of generated output relates to the last command: the
// terminal's echo of it, or a word that only begins with it ("lsblk" after
// "ls": the public implementation's echo bug, docs/protocols.md).
enum class EchoLead { kNone, kEcho, kLongerWord, kLongerWordAfterCr };

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
       // Text overwritten after a CR (a terminal shows the last write over
       // the earlier), a banner or a prompt written over progress.
       {2, gen::element<std::string>("10%\r100%", "downloading 50%\rdone", "abc\rX",
                                     "C:\\>\rMicrosoft Windows [Version 10.0.19045.3803]",
                                     "working\ruser@host:~$ ls", "same line\rsame line", "a\r\r")},
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
  auto command = gen::element<std::string>("ls", "lsblk", "git status", "", "dir", "git", "l");
  auto lead = gen::weightedElement<EchoLead>({{3, EchoLead::kNone},
                                              {2, EchoLead::kEcho},
                                              {2, EchoLead::kLongerWord},
                                              {1, EchoLead::kLongerWordAfterCr}});
  return gen::apply(
      [](std::string text, std::optional<std::string> command, EchoLead lead, std::string rest) {
        if (command && !command->empty()) {
          if (lead == EchoLead::kEcho) text = *command + "\n" + text;
          if (lead == EchoLead::kLongerWord) text = *command + rest + "\n" + text;
          if (lead == EchoLead::kLongerWordAfterCr) text = "x\r" + *command + rest + "\n" + text;
        }
        Json in{{"text", std::move(text)}};
        if (command) in["lastCommand"] = *command;
        return in;
      },
      text, Opt(command), lead, gen::element<std::string>("blk", "-files", "k", " -la", "s"));
}

// Which of the steps that acted on the lines behind a difference decides it:
// an overwrite after a CR first (it changes what every later step sees),
// then the steps that decide a line's fate (the echo, the banner, the
// prompt, a repeat), then those that only tidy it.
constexpr skill::CleanStep kDecidingOrder[] = {
    skill::CleanStep::kCarriageReturn, skill::CleanStep::kEcho,      skill::CleanStep::kEchoPrefix,
    skill::CleanStep::kBanner,         skill::CleanStep::kPrompt,    skill::CleanStep::kRepeat,
    skill::CleanStep::kEscape,         skill::CleanStep::kEmptyLine, skill::CleanStep::kTrim};

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0;;) {
    const std::size_t nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    if (nl == std::string_view::npos) return out;
    pos = nl + 1;
  }
}

// The steps that acted on the input lines behind output line `d`: the line
// that gave it and those dropped just before it (`near`), and every line up
// to there (`before`).
struct LineSteps {
  std::uint16_t near = 0;
  std::uint16_t before = 0;
};
LineSteps StepsAt(const skill::CleanTrace& trace, std::size_t d) {
  LineSteps out;
  std::size_t next_out = 0;  // the output line the next kept input line gives
  for (const auto& line : trace.lines) {
    if (next_out > d) break;
    if (line.output_line ? *line.output_line == d : next_out == d) out.near |= line.steps;
    out.before |= line.steps;
    if (line.output_line) next_out = *line.output_line + 1;
  }
  return out;
}

std::optional<skill::CleanStep> FirstDeciding(std::uint16_t steps) {
  for (skill::CleanStep step : kDecidingOrder) {
    if ((steps >> static_cast<unsigned>(step)) & 1U) return step;
  }
  return std::nullopt;
}

// The cleaning step of the reference that decided the first line where the
// SUT's text differs: of the steps that acted on the input lines behind that
// line (else on any line before it), the first in kDecidingOrder. The echo
// step is one step whether it dropped the line or kept one that only begins
// with the command.
Decision DecideClean(const Json& input, const Json& expected, const Json& actual) {
  const Json* got = actual.is_object() && actual.contains("text") ? &actual["text"] : nullptr;
  if (!got || !got->is_string() || !expected.contains("text")) return {};
  skill::CleanTrace trace;
  const std::string want =
      skill::CleanOutputForAI(StringOf(input, "text"), StringOf(input, "lastCommand"), trace);
  const auto want_lines = Lines(want), got_lines = Lines(got->get_ref<const std::string&>());
  std::size_t d = 0;
  while (d < want_lines.size() && d < got_lines.size() && want_lines[d] == got_lines[d]) ++d;
  const LineSteps at = StepsAt(trace, d);
  auto step = FirstDeciding(at.near);
  if (!step) step = FirstDeciding(at.before);
  if (step == skill::CleanStep::kEchoPrefix) step = skill::CleanStep::kEcho;
  if (step)
    return {std::string(skill::CleanStepRule(*step)), std::string(skill::CleanStepName(*step))};
  if (trace.no_output) return {"SKILL-CLEAN-8", "no-output"};
  return {"SKILL-CLEAN-1", ""};
}

// The rules of every step the reference reports taking on `input`.
void CleanRulesReached(const Json& input, const Json& output, std::set<std::string>& rules) {
  if (!output.contains("text")) return;
  rules.insert("SKILL-CLEAN-1");
  skill::CleanTrace trace;
  skill::CleanOutputForAI(StringOf(input, "text"), StringOf(input, "lastCommand"), trace);
  for (const auto& line : trace.lines) {
    for (std::size_t i = 0; i < skill::kCleanStepCount; ++i) {
      const auto step = static_cast<skill::CleanStep>(i);
      if (line.Has(step)) rules.insert(std::string(skill::CleanStepRule(step)));
    }
  }
  if (trace.no_output) rules.insert(std::string(skill::CleanStepRule(skill::CleanStep::kNoOutput)));
}

// The rules of the steps the parse reports taking on `input`.
void ParseRulesReached(const Json& input, const Json& output, std::set<std::string>& rules) {
  if (!output.contains("type")) return;
  skill::ParseTrace trace;
  skill::ParseSkillResponse(StringOf(input, "text"), trace);
  for (std::size_t i = 0; i < skill::kParseStepCount; ++i) {
    const auto step = static_cast<skill::ParseStep>(i);
    if (trace.Has(step)) rules.insert(std::string(skill::ParseStepRule(step)));
  }
}

// Which step of the parse decides a disagreement: where the command came
// from (a fence), how the tag was found (on a later line, in another case),
// then which tag, or none, decided.
constexpr skill::ParseStep kParseDecidingOrder[] = {
    skill::ParseStep::kFence,   skill::ParseStep::kTagLaterLine, skill::ParseStep::kTagCase,
    skill::ParseStep::kUnknown, skill::ParseStep::kNoTag,        skill::ParseStep::kAskOptionalTag,
    skill::ParseStep::kAskTag,  skill::ParseStep::kCmdTag,       skill::ParseStep::kMessageTag,
    skill::ParseStep::kDoneTag};

Decision DecideParse(const Json& input, const Json&, const Json&) {
  skill::ParseTrace trace;
  skill::ParseSkillResponse(StringOf(input, "text"), trace);
  for (skill::ParseStep step : kParseDecidingOrder) {
    if (trace.Has(step))
      return {std::string(skill::ParseStepRule(step)), std::string(skill::ParseStepName(step))};
  }
  return {};
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

// The YAML front matter of a generated SKILL.md, and its near-misses.
enum class FrontMatter { kNone, kYaml, kCrLf, kNeverClosed, kAfterABlankLine, kFourDashes };

rc::Gen<Json> BuildSkillSystemPrompt() {
  auto markdown = gen::apply(
      [](FrontMatter front, std::string body, std::string eol) -> std::string {
        std::string fm;
        if (front == FrontMatter::kYaml) fm = "---\nname: x\ndescription: y\n---\n";
        if (front == FrontMatter::kCrLf) fm = "---\r\nname: x\r\n---\r\n";
        if (front == FrontMatter::kNeverClosed) fm = "---\nname: x\n";
        if (front == FrontMatter::kAfterABlankLine) fm = "\n---\nname: x\n---\n";
        if (front == FrontMatter::kFourDashes) fm = "----\nname: x\n----\n";
        std::string b = body;
        if (eol == "\r\n") {
          std::string out;
          for (char c : b) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
          b = out;
        }
        return fm + b;
      },
      gen::element(FrontMatter::kNone, FrontMatter::kYaml, FrontMatter::kYaml, FrontMatter::kCrLf,
                   FrontMatter::kNeverClosed, FrontMatter::kAfterABlankLine,
                   FrontMatter::kFourDashes),
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
      {"skill.parseSkillResponse", SkillText(), {"SKILL-PARSE-"}, ParseRulesReached, DecideParse},
      {"skill.checkReply", SkillText(), {"SKILL-REPLY-"}, {}},
      {"skill.cleanOutputForAI", CleanOutput(), {"SKILL-CLEAN-"}, CleanRulesReached, DecideClean},
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

}  // namespace llmconform::harness::difftest
