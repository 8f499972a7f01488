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
#include <string>

#include "harness/suite.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

std::unique_ptr<ProtocolSuite> MakeToolcallsSuite();

// The folders a toolcalls run works on, as the protocol mounts them:
// pkg/ is @pkg, project/ is @project, state/ is @state.
struct ToolcallsWorkspace {
  std::filesystem::path pkg, project, state;
  std::string pkg_before;  // a digest of pkg/ as prepared, to tell whether the run changed it
};

// Prepares `dir` for a run of the scenario: copies of
// <source_root>/<input.package>/pkg and …/project, and state/ holding
// workflow.md with input.state when the scenario gives one (else empty).
// Errors name the input field or the copy that failed.
std::expected<ToolcallsWorkspace, Error> PrepareToolcallsWorkspace(
    const Scenario& scenario, const std::filesystem::path& source_root,
    const std::filesystem::path& dir);

// Adds to `outputs` what the run left in the workspace: "audit" (the lines
// of state/logs/execution.jsonl), "state" (the front matter of
// state/workflow.md, null when it has none), "projectFiles" (the sorted
// paths of the files under project/) and "pkgChanged". Replaces any such
// field already there.
void CollectToolcallsOutputs(const ToolcallsWorkspace& workspace, Json& outputs);

// Runs a scenario's reference client against `transport` in `work_dir`
// (Drive uses the HTTP transport to mockllm; the fixture generator a scripted
// one) and returns the observation's outputs.
std::expected<Json, Error> RunToolcallsScenario(const Scenario& scenario,
                                                wire::ChatTransport& transport,
                                                const std::filesystem::path& source_root,
                                                const std::filesystem::path& work_dir);

}  // namespace llmconform::harness
