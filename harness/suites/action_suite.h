// The action protocol suite (seed 004): asks the model (mockllm) with a
// session id through the reference client (protocols/action/client.h), and
// reports what the user's device would receive.
//
// Scenario input: {"utterance", "sessionId"?, "model"?, "supportedCommands"?}
// Scenario expect: {"text", "command":{"session_id","command","args"}|null,
//                   "mcpPayload":"__MCP__…"|null, "findings":[rule ids]}
//   `findings` lists the rules (ACT-1 … ACT-8) the recorded reply breaks.
// Outputs: {"request" (the body sent), "reply" (the model's content), "text",
//           "command", "mcpPayload", "findings":[{"rule","message"}]}, the
//           fields of the `action.parse` oracle operation.
//
// Checks read the outputs (and, for ACT-15, the request in mockllm's journal)
// and compare them with `expect`, so they also judge another implementation
// that reports the same outputs. A reply rule (ACT-1 … ACT-8) passes when the
// implementation reported a finding for it exactly when `expect` says the
// reply breaks it; rules whose outputs are absent are skipped.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/suite.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

using TransportFactory =
    std::function<std::unique_ptr<wire::ChatTransport>(const std::string& base_url)>;

// The suite over HTTP (harness/http_transport.h).
std::unique_ptr<ProtocolSuite> MakeActionSuite();
// The suite over the transports `factory` makes (tests).
std::unique_ptr<ProtocolSuite> MakeActionSuite(TransportFactory factory);

}  // namespace llmconform::harness
