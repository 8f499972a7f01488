// Oracle operations of the action protocol:
//   action.parse {"text","sessionId"?,"supportedCommands"?} →
//     {"text","command":{"session_id","command","args"}|null,"mcpPayload":"__MCP__…"|null,
//      "findings":[{"rule","message"}]}
// sessionId absent or null: the request has none. supportedCommands absent or
// null: ["open_app"].
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::action {
std::vector<OracleOp> OracleOps();
}
