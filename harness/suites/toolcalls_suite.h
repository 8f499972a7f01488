// The toolcalls protocol suite (seed 001): drives the ExecutionEngine over a
// workflow package against mockllm, and judges the requests that reached the
// wire (mockllm's journal) and what the run left behind.
//
// Scenario input:
//   {"package": "fixtures/packages/<name>" (holds pkg/ and project/),
//    "mode": "run"|"chat", "intent": "start"|"resume", "stream": bool,
//    "model": string, "activeAgentId": string,
//    "state"?: text of @state/workflow.md to start from,
//    "limits"?: ToolHost limits ({"maxReadBytes",…}, tool_host.h),
//    "userInputs": [string] (fed while the run waits for the user)}
// Scenario expect:
//   {"phase": "Completed"|"WaitingUser"|…, "stopReason"?, "finalNode"?,
//    "stepsCompleted"?: [ids], "artifacts"?: [project paths that must exist],
//    "errorCodes"?: [codes some tool result must carry], "resumeNode"?}
//
// Observation outputs: {"phase","stopReason","message","error","turns":[EngineTurn],
// "audit":[execution.jsonl lines],"state": front matter | null,
// "projectFiles":[paths],"pkgChanged": bool}.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>

#include "harness/suite.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

std::unique_ptr<ProtocolSuite> MakeToolcallsSuite();

// Runs a scenario's reference client against `transport` in `work_dir`
// (Drive uses the HTTP transport to mockllm; the fixture generator a scripted
// one) and returns the observation's outputs.
std::expected<Json, Error> RunToolcallsScenario(const Scenario& scenario,
                                                wire::ChatTransport& transport,
                                                const std::filesystem::path& source_root,
                                                const std::filesystem::path& work_dir);

}  // namespace llmconform::harness
