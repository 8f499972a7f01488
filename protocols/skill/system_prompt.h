// The skill's system prompt (seed 000 §3): the base prompt, the server context
// and the active skill, in that order (docs/protocols.md "skill").
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform::skill {

// SKILL_SYSTEM_PROMPT_WITH_ASK, copied verbatim from seed 000 §3.1 (no trailing
// newline). The default base prompt.
extern const std::string_view kSkillSystemPromptWithAsk;

// The key of the base prompt in a prompts file (prompts.json).
inline constexpr std::string_view kBasePromptKey = "SKILL_SYSTEM_PROMPT_WITH_ASK";

// Reads the base prompt out of the text of a prompts file: a JSON object whose
// "SKILL_SYSTEM_PROMPT_WITH_ASK" member is a string. A file without that key
// yields the default (kSkillSystemPromptWithAsk).
// Errors: text that is not JSON ("prompts file: [json.exception.parse_error.101]
// parse error at line 1, column 5: …"), a top level other than an object
// ("prompts file: expected an object, got array"), or the key holding
// something other than a string.
std::expected<std::string, Error> BasePromptFromPromptsFile(std::string_view json_text);

// buildSkillSystemPrompt: `base_prompt`; then, only when `server_context` is
// not blank, "\n\n--- System Context ---\n" + the context trimmed; then
// "\n\n--- Active Skill: <skill_name> ---\n" + the body of `skill_markdown`
// (SKILL.md with its YAML front matter removed, trimmed; see
// skill_document.h). White space is Unicode white space (text.h).
std::string BuildSkillSystemPrompt(std::string_view base_prompt, std::string_view server_context,
                                   std::string_view skill_name, std::string_view skill_markdown);

}  // namespace llmconform::skill
