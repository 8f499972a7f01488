// The strict rules on an assistant reply, from the RULES of the base prompt
// (seed 000 §3.1, docs/protocols.md "skill"). Separate from parsing: a reply that
// ParseSkillResponse reads fine may still break them.
#pragma once

#include <string_view>

#include "base/error.h"

namespace llmconform::skill {

// One finding per broken rule, in rule order, naming the rule id of
// specs/skill/rules.json:
//   SKILL-REPLY-1  the reply starts with a tag at position 0;
//   SKILL-REPLY-2  the tag is spelled as the prompt spells it (capitals);
//   SKILL-REPLY-3  one format only: no second tag at the start of a line;
//   SKILL-REPLY-4  a [CMD] reply is the command alone: one line, no code fence;
//   SKILL-REPLY-5  the tag is followed by its text (all but [DONE]).
// Trailing whitespace is not a finding. An empty list means the reply conforms.
Findings CheckReply(std::string_view reply);

}  // namespace llmconform::skill
