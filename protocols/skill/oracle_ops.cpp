#include "protocols/skill/oracle_ops.h"

#include "base/json.h"
#include "base/json_fields.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/json_input.h"
#include "protocols/skill/reply_rules.h"
#include "protocols/skill/response.h"
#include "protocols/skill/system_prompt.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::skill {
namespace {

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
  auto input = InitialPromptInputFromJson(in);
  if (!input) return std::unexpected(input.error());
  return Json{
      {"text", BuildInitialUserPrompt(input->skill_name, input->parameters, input->custom_prompt,
                                      input->step, input->max_steps)}};
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
