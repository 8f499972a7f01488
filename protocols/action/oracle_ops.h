// Oracle operations of the action protocol:
//   action.parse {"text","sessionId"?,"supportedCommands"?} →
//     {"text","command":{"session_id","command","args"}|null,"mcpPayload":"__MCP__…"|null,
//      "findings":[{"rule","message"}]}
// sessionId absent or null: the request has none. supportedCommands absent or
// null: ["open_app"]. `ref` writes command.args as the reply spelled it
// (OracleOp::write; ACT-14: 12345678901234567890123 stays so); the JSON value
// `run` returns holds what a double makes of such a number.
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::action {
std::vector<OracleOp> OracleOps();
}
