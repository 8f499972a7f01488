// The multiturn protocol suite (seed 003): drives BuildLLMMessages and sends
// the assembled messages to the LLM; checks judge the messages that reached
// the wire (mockllm's journal), so they hold for any client.
//
// Scenario input: {"systemPrompt","history":[{role,content}],"currentUserMessage",
//                  "maxTokenBudget","model"?,"stream"?}
// Scenario expect: {"messages"?:[{role,content}], "keptHistory"?: N,
//                   "tokens"?: {"<text>": N, …}, "reply"?: "<assistant text>"}
#pragma once

#include <memory>

#include "harness/suite.h"

namespace llmconform::harness {
std::unique_ptr<ProtocolSuite> MakeMultiturnSuite();
}
