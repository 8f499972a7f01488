// The client profile (specs/client/): any program that calls an LLM through
// an SDK, judged on what it read from one exchange (or a short retry) of one
// API surface (Chat Completions, the Responses API, Anthropic Messages,
// Gemini) that mockllm replays from a recording, in a provider dialect (Chat
// Completions only), with a fault where the scenario is about faults.
//
// Scenario input (surface-neutral; docs/gate.md "Client profile"):
//   {"surface": "chat" | "responses" | "messages" | "gemini", "model",
//    "messages": [...], "tools"?: [...], "stream": bool,
//    "options"?: {"max_retries"?: N (default 2),
//                 "params"?: {extra request body fields}}}
// The request is the surface's own shape of it (client_request.h).
//
// The reference client (Drive) sends it through the reference transport
// (harness/http_transport.h: 429s retried as docs/protocols.md "Rate limits"
// says) and reads the answer with client_suite::ReadReply; its output has
// the shape a client under test writes. The checks (client_checks.h) compare
// either with the reference reading of the bytes mockllm sent.
#pragma once

#include <memory>

#include "harness/suite.h"

namespace llmconform::harness {
std::unique_ptr<ProtocolSuite> MakeClientSuite();
}
