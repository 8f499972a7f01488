// Oracle operations of the toolcalls protocol:
//   toolcalls.toolhost
//   {"mounts":{"@project","@pkg","@state"},"tool","args","limits"?,"toolCallId"?}
//       -> {"result": ToolResult, "content": the ToolResult as the JSON text a
//       tool message carries, keys in the §6 order}   (on the real
//       filesystem; appends to @state/logs/execution.jsonl)
//   toolcalls.composeRunDirective
//   {"intent","workflow","currentNodeId","effectiveAgentId","autopilot",
//       "runType"?,"state"?,"graph"?,"artifactsRoot"?} -> {"text"}
//   toolcalls.composeNodeBrief {"currentNodeId","stepFile","outputsMap"?,"allowedNext"?} ->
//   {"text"}
//       outputsMap items: "artifacts/x.md" (mapped to @project/artifacts/x.md) or {"from","to"};
//       allowedNext items: "node" or {"nodeId","label"?}
//   toolcalls.composeUserInput {"text","forNodeId"?} -> {"text"}
//   toolcalls.checkConversation {"messages":[…]} -> {"findings":[{"rule","message"}]}
//   toolcalls.functionTools {"tools"?:["fs.read",…]} -> {"tools":[…]}
//   toolcalls.composeSystemMessages {"mode"?:"run"|"chat","persona"?,"tools"?,"limits"?}
//       -> {"messages":[{"role":"system","content"}…]}   (runtime rules, tool
//       policy, persona when not empty; chat rules and tool policy in mode=chat)
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::toolcalls {
std::vector<OracleOp> OracleOps();
}
