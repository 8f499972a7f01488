// Oracle operations of the skill protocol (names and fields as seed 000 spells them):
//   skill.parseSkillResponse {"text"} → the §5 result object
//   skill.cleanOutputForAI {"text","lastCommand"?} → {"text"}
//   skill.buildSkillSystemPrompt {"basePrompt"?,"serverContext"?,"skillName","skillMarkdown"} →
//   {"text"} skill.buildInitialUserPrompt
//   {"skillName","parameters"?:[[k,v]…],"customPrompt"?,"step"?,"maxSteps"?} → {"text"}
//   skill.checkReply {"text"} → {"findings":[{"rule","message"}]}
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::skill {
std::vector<OracleOp> OracleOps();
}
