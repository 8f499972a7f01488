// Oracle operations of the multiturn protocol:
//   multiturn.estimateMessageTokens {"text"} → {"tokens"}
//   multiturn.buildLLMMessages {"systemPrompt","history","currentUserMessage","maxTokenBudget"} →
//   {"messages"}
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::multiturn {
std::vector<OracleOp> OracleOps();
}
