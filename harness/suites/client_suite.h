// The client profile (specs/client/): any program that calls an LLM through
// an SDK, judged on what it read from one Chat Completions exchange (or a
// short retry) that mockllm replays from a recording, in a provider dialect,
// with a fault where the scenario is about faults.
//
// Scenario input (surface-neutral; docs/gate.md "Client profile"):
//   {"surface": "chat", "model", "messages": [...], "tools"?: [...],
//    "stream": bool, "options"?: {"max_retries"?: N (default 2),
//                                 "params"?: {extra request body fields}}}
// The request is {model, messages, tools?, stream?, ...params}.
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
