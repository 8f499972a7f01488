// The gymbro protocol suite (seed 002 §6–§7), whose driver and checks the
// thinkingml suite (§1–§5) shares: both run a message through the reference
// GymBro service (harness/gymbro_service.h) against mockllm replaying the
// scenario's trace as the upstream, read the event stream like a client, and
// judge the stream and its joined reply (harness/sse_check.h).
//
// Scenario input:
//   {"text",                the user message
//    "system"?,             a system prompt the service sends upstream
//    "model"?,              (default "gpt-4o-mini")
//    "requestId"?,          X-Request-Id of the POST (default "req-<scenario name>")
//    "heartbeatMs"?,        the service's heartbeat interval (default 1000)
//    "timeoutMs"?}          bound on the upstream call and the stream (default 30000)
// Scenario expect:
//   {"outcome": "completed" | "error",
//    "errorCode"?,          the error event's code (GYMBRO-6.14)
//    "reply"?,              the reply the deltas must join to (GYMBRO-7.2)
//    "violations"?: [id],   rules the reply or stream breaks on purpose
//    "minHeartbeats"?,      heartbeats the stalled upstream must cause (GYMBRO-6.13)
//    "minDeltas"?}          content deltas the service must split into (GYMBRO-6.15)
// Outputs:
//   {"post": {"status", "body"}, "requestId",
//    "stream": {"url","status","contentType","events":[{"event","data"}],"transportError"},
//    "client": {"reply", "outcome", "succeeded", "validation": {"valid", "findings"}}}
// Checks read "post" and "stream" (what any client would see), and "client"
// only for GYMBRO-7.2 / 7.4, which are rules of the client.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "harness/suite.h"
#include "harness/suites/gymbro_checks.h"

namespace llmconform::harness {

std::unique_ptr<ProtocolSuite> MakeGymbroSuite();

// The suite above under another protocol name, with that protocol's rule
// table (the thinkingml suite).
std::unique_ptr<ProtocolSuite> MakeGymbroStreamSuite(
    std::string protocol, std::span<const gymbro_suite::StreamRule> rules);

}  // namespace llmconform::harness
