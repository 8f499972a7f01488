#include "protocols/skill/system_prompt.h"

#include <nlohmann/json.hpp>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/skill/skill_document.h"
#include "protocols/skill/text.h"
#include "protocols/wire/chat.h"

namespace llmconform::skill {

const std::string_view kSkillSystemPromptWithAsk =
    R"PROMPT(You are a terminal AI assistant executing a multi-step skill.

RESPONSE FORMAT - Use EXACTLY ONE of these formats per response:

1. [CMD] command_here
   Execute this shell command. You will receive the command output.

2. [ASK] question here
   Ask the user a question and WAIT for their required response.
   Use this when you MUST have user input (commit message, confirmation, choice).
   Examples: "Введи сообщение коммита:", "Продолжить? (yes/no):"

3. [ASK:optional] question here
   Ask the user an optional question. They can skip by pressing Enter.
   Example: "Хочешь добавить тег? (оставь пустым для пропуска):"

4. [MESSAGE] informational text here
   Show an informational message and CONTINUE immediately without waiting.
   Use for progress updates, status messages, warnings.
   Examples: "Обрабатываю папку 1 из 3...", "Проверяю ветку dev..."

5. [DONE] final message here
   The skill is complete. Show this final message to the user.

RULES:
- Always start your response with [CMD], [ASK], [ASK:optional], [MESSAGE], or [DONE]
- Only ONE format per response
- [CMD]: provide only the command, no explanations
- [ASK]: BLOCKS execution - user MUST respond (required input)
- [ASK:optional]: BLOCKS execution - user CAN respond or skip (optional input)
- [MESSAGE]: does NOT block - execution continues automatically (info only)
- [DONE]: summarize what was accomplished)PROMPT";

std::expected<std::string, Error> BasePromptFromPromptsFile(std::string_view json_text) {
  auto parsed = ReadJson("prompts file", json_text);
  if (!parsed) {
    return std::unexpected(Error{Format("prompts file: {}", AtLineColumn(parsed.error()))});
  }
  const nlohmann::json doc = std::move(*parsed);
  if (!doc.is_object()) {
    return std::unexpected(
        Error{Format("prompts file: expected an object, got {}", JsonTypeName(doc))});
  }
  auto it = doc.find(kBasePromptKey);
  if (it == doc.end()) return std::string(kSkillSystemPromptWithAsk);
  if (!it->is_string()) {
    return std::unexpected(Error::AtPointer(Format("/{}", kBasePromptKey),
                                            Format("expected string, got {}", JsonTypeName(*it)))
                               .Within("prompts file"));
  }
  return it->get<std::string>();
}

std::string BuildSkillSystemPrompt(std::string_view base_prompt, std::string_view server_context,
                                   std::string_view skill_name, std::string_view skill_markdown) {
  std::string out(base_prompt);
  const std::string_view context = Trim(server_context);
  if (!context.empty()) {
    out += "\n\n--- System Context ---\n";
    out += context;
  }
  out += "\n\n--- Active Skill: ";
  out += skill_name;
  out += " ---\n";
  out += SkillBody(skill_markdown);
  return out;
}

}  // namespace llmconform::skill
