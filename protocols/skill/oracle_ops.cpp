#include "protocols/skill/oracle_ops.h"

#include "base/json_fields.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/json_input.h"
#include "protocols/skill/reply_rules.h"
#include "protocols/skill/response.h"
#include "protocols/skill/system_prompt.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::skill {
namespace {

using Json = nlohmann::json;

std::expected<Json, Error> ParseOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  return ToJson(ParseSkillResponse(*text));
}

std::expected<Json, Error> CleanOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  auto command = OptionalString(in, "lastCommand");
  if (!command) return std::unexpected(command.error());
  return Json{{"text", CleanOutputForAI(*text, command->value_or(""))}};
}

std::expected<Json, Error> SystemPromptOp(const Json& in) {
  auto setup = SessionSetupFromJson(in);
  if (!setup) return std::unexpected(setup.error());
  return Json{{"text", BuildSkillSystemPrompt(setup->base_prompt, setup->server_context,
                                              setup->skill_name, setup->skill_markdown)}};
}

std::expected<Json, Error> InitialPromptOp(const Json& in) {
  if (auto ok = RequireObjectInput(in); !ok) return std::unexpected(ok.error());
  auto name = RequireString(in, "skillName");
  if (!name) return std::unexpected(name.error());
  Parameters parameters;
  if (auto it = in.find("parameters"); it != in.end() && !it->is_null()) {
    auto p = ParametersFromJson(*it);
    if (!p) return std::unexpected(p.error());
    parameters = std::move(*p);
  }
  auto custom = OptionalString(in, "customPrompt");
  if (!custom) return std::unexpected(custom.error());
  auto step = OptionalInt(in, "step");
  if (!step) return std::unexpected(step.error());
  auto max_steps = OptionalInt(in, "maxSteps");
  if (!max_steps) return std::unexpected(max_steps.error());
  return Json{
      {"text", BuildInitialUserPrompt(*name, parameters, custom->value_or(""), step->value_or(1),
                                      max_steps->value_or(kDefaultMaxSteps))}};
}

std::expected<Json, Error> CheckReplyOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  Json findings = Json::array();
  for (const auto& f : CheckReply(*text))
    findings.push_back({{"rule", f.rule}, {"message", f.message}});
  return Json{{"findings", std::move(findings)}};
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"skill.parseSkillResponse",
       "parse an assistant reply: {\"text\"} -> {\"type\",\"content\",\"command\"|\"question\"+"
       "\"required\"|\"message\"|\"error\"}",
       ParseOp},
      {"skill.cleanOutputForAI",
       "clean terminal output for the model: {\"text\",\"lastCommand\"?} -> {\"text\"}", CleanOp},
      {"skill.buildSkillSystemPrompt",
       "assemble the system prompt: {\"basePrompt\"?,\"serverContext\"?,\"skillName\","
       "\"skillMarkdown\"} -> {\"text\"}",
       SystemPromptOp},
      {"skill.buildInitialUserPrompt",
       "the first user message: {\"skillName\",\"parameters\"?:[[k,v],...],\"customPrompt\"?,"
       "\"step\"?,\"maxSteps\"?} -> {\"text\"}",
       InitialPromptOp},
      {"skill.checkReply",
       "strict reply rules: {\"text\"} -> {\"findings\":[{\"rule\",\"message\"}]}", CheckReplyOp},
  };
}

}  // namespace llmconform::skill
