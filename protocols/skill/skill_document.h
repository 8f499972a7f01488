// A SKILL.md document (seed 000 §3.3): an optional YAML front matter block and
// the Markdown body that goes into the system prompt.
#pragma once

#include <string>
#include <string_view>

namespace llmconform::skill {

// The front matter is an exact `---` block: the text begins with a line that
// is exactly "---", and the block runs to the next line that is exactly "---"
// (a line end is LF or CRLF; the closing line may also end the text). Text that
// does not begin so, or whose block is never closed, has no front matter.
//
// SkillBody returns what follows the block (or the whole text when there is
// none), trimmed of Unicode white space: the part seed 000 §3.3 puts after
// "--- Active Skill: <name> ---".
std::string_view SkillBody(std::string_view skill_markdown);

struct SkillDocument {
  std::string name;         // front matter `name`, else the fallback name
  std::string description;  // front matter `description`, else ""
  std::string body;         // as SkillBody
  // Set when a front matter block exists but is not a YAML mapping; the
  // block is removed all the same ("front matter: yaml-cpp: ... at line 2").
  std::string front_matter_problem;
};

// Splits SKILL.md and reads `name` and `description` from its front matter
// (yaml-cpp). Never fails: a scalar that is missing or not a string leaves the
// default.
SkillDocument ParseSkillDocument(std::string_view skill_markdown, std::string_view fallback_name);

}  // namespace llmconform::skill
