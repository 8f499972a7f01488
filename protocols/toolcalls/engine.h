// The ExecutionEngine (seed 001 §2.2, §3.2, §4.2, §7): LLM-as-Engine over
// OpenAI Chat Completions with tool calls.
//
// Each request is [system runtime rules, system tool policy, system persona,
// …window] in mode=run, and [system chat rules, system tool policy,
// …history] in mode=chat, with the five tools as function tools. The run
// window starts as [RUN_DIRECTIVE, NODE_BRIEF] of the state's current node.
// An assistant reply is appended as received (provider fields such as
// reasoning_content kept, stream `index` dropped); its tool calls run in
// order through the ToolHost and each result is appended as a `tool` message
// with its tool_call_id and the JSON text of the ToolResult; then the LLM is
// called again. When the tool calls moved the state to another node, the
// window restarts as [that assistant message, its tool messages,
// RUN_DIRECTIVE(continue), NODE_BRIEF(new node)]: the state document, not
// the chat, carries the run. A reply without tool calls ends the loop:
// Completed when the workflow is complete (IsWorkflowComplete), otherwise
// WaitingUser (chat mode always waits). Transport errors, HTTP errors, an
// error in the stream, a reply without a message or more than
// max_llm_calls calls end it as Failed.
//
// Every LLM call is recorded as an EngineTurn, kept in memory and appended
// as a JSON line to @state/logs/engine-turns.jsonl.
//
// Resume() needs nothing but @state/workflow.md and the package: a new
// engine over the same folders picks the run up where the state says.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "protocols/toolcalls/clock.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/wire/transport.h"

namespace llmconform::toolcalls {

enum class RunPhase { kRunning, kWaitingUser, kCompleted, kFailed };
std::string_view RunPhaseName(RunPhase p);  // "Running" | "WaitingUser" | "Completed" | "Failed"

struct EngineOptions {
  std::string model = "gpt-4o-mini";
  std::string mode = "run";  // "run" | "chat"
  bool stream = false;
  std::optional<double> temperature;
  std::string active_agent_id;  // the agent when a node names none
  bool autopilot = true;
  std::vector<Tool> tools{std::begin(kAllTools), std::end(kAllTools)};
  int max_llm_calls = 50;  // per Start, Resume or SubmitUserInput
  std::chrono::milliseconds timeout{120'000};
};

// One LLM call, as §4.2 records it.
struct EngineTurn {
  std::string id;  // "C01", "C02", …
  RunPhase phase_before = RunPhase::kRunning;
  nlohmann::json request_messages = nlohmann::json::array();
  nlohmann::json request_tools = nlohmann::json::array();
  nlohmann::json assistant;     // the assistant message, null when none arrived
  nlohmann::json raw_response;  // the provider's JSON body (non-streamed), else null
  Findings stream_findings;     // dialect findings of a streamed reply
  std::vector<ToolRun> tool_runs;
  RunPhase phase_after = RunPhase::kRunning;
  std::string stop_reason;  // why the loop stopped after this turn, "" when it went on

  // {"id","phaseBefore","request":{"messages","tools"},"response":{"assistant","raw"?,
  //  "streamFindings"?},"toolRuns":[{"toolCallId","toolName","args","result","durationMs"}],
  //  "uiAfter":{"phase","stopReason"?}}
  nlohmann::json ToJson() const;
};

struct RunOutcome {
  RunPhase phase = RunPhase::kRunning;
  std::string stop_reason;  // "assistant_no_toolCalls_and_complete", "…_not_complete", "error", …
  std::string message;      // the last assistant text, shown to the user
  std::string error;        // for Failed: what went wrong
};

class ExecutionEngine {
 public:
  // `transport`, `tools` and `clock` must outlive the engine; `tools` is
  // restricted to options.tools.
  ExecutionEngine(wire::ChatTransport& transport, ToolHost& tools, Clock& clock,
                  EngineOptions options = {});

  // mode=run: starts the run (creating @state/workflow.md from
  // @pkg/workflow.md, or from the graph's entry node, when absent) with
  // RUN_DIRECTIVE intent start, and loops.
  RunOutcome Start();
  // mode=run: continues from @state/workflow.md with intent resume.
  RunOutcome Resume();
  // Feeds the user's text as USER_INPUT (bound to the current node in
  // mode=run) and loops. In mode=run only while WaitingUser.
  RunOutcome SubmitUserInput(std::string_view text);

  RunPhase phase() const { return phase_; }
  const std::vector<EngineTurn>& turns() const { return turns_; }

 private:
  struct NodeView;
  RunOutcome Loop();
  RunOutcome Fail(EngineTurn* turn, std::string error);
  std::expected<NodeView, std::string> LoadNode();
  std::expected<void, std::string> OpenWindow(std::string_view intent);
  nlohmann::json Compose(const std::optional<NodeView>& node) const;
  void Record(EngineTurn turn);

  wire::ChatTransport& transport_;
  ToolHost& tools_;
  Clock& clock_;
  EngineOptions options_;
  RunPhase phase_ = RunPhase::kRunning;
  nlohmann::json window_ = nlohmann::json::array();
  std::vector<EngineTurn> turns_;
};

}  // namespace llmconform::toolcalls
