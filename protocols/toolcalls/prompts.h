// The user-message shells of seed 001 §5 (RUN_DIRECTIVE, NODE_BRIEF,
// USER_INPUT) and the system messages of §3.1 (runtime rules, tool policy,
// persona), composed exactly; docs/protocols.md "toolcalls".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/toolcalls/tool_host.h"

namespace llmconform::toolcalls {

struct RunDirective {
  std::string run_type = "bmad-micro";
  std::string intent;  // "start" | "continue" | "resume"
  std::string workflow;
  std::string state = "@state/workflow.md";
  std::string graph = "@pkg/workflow.graph.json";
  std::string artifacts_root = "@project/artifacts/";
  std::string current_node_id;
  std::string effective_agent_id;
  bool autopilot = true;
};

// "RUN_DIRECTIVE\n- runType: …\n…\n- autopilot: true\n" (§5.1).
std::string ComposeRunDirective(const RunDirective& d);

struct OutputMapping {
  std::string from;  // "artifacts/create-story/target.md"
  std::string to;    // "@project/artifacts/create-story/target.md"
};

struct NextNode {
  std::string node_id;
  std::string label;  // "" for none
};

struct NodeBrief {
  std::string current_node_id;
  std::string step_file;  // "@pkg/steps/step-01-select-story.md"
  std::vector<OutputMapping> outputs_map;
  std::vector<NextNode> allowed_next;
};

// "NODE_BRIEF\n- currentNodeId: …\n- stepFile: …\n- outputsMap:\n  - a -> b\n
// - allowedNext:\n  - id (label=next)\n" (§5.2); a list without items keeps
// its heading line.
std::string ComposeNodeBrief(const NodeBrief& b);

// "USER_INPUT\n- forNodeId: <id>\n<text>" in mode=run, "USER_INPUT\n<text>"
// without a node (mode=chat) (§5.3). The text is appended as it is.
std::string ComposeUserInput(const std::string& text,
                             const std::optional<std::string>& for_node_id);

// The system message of runtime rules for mode=run (mounts, read-only @pkg,
// the graph as the source of truth, the state update duty, autopilot).
std::string SystemRuntimeRules();
// The system message for mode=chat: mounts and read-only @pkg only.
std::string SystemChatRules();
// "Tool policy:\n- fs: enabled (maxReadBytes=…, maxWriteBytes=…)\n- tools: …\n…".
std::string SystemToolPolicy(const std::vector<Tool>& tools, const Limits& limits);

// The system messages' texts that open every request (§3.1), in order: in
// mode=chat the chat rules and the tool policy; otherwise the runtime rules,
// the tool policy and the current agent's persona (when not empty).
std::vector<std::string> SystemMessageTexts(bool chat, const std::vector<Tool>& tools,
                                            const Limits& limits, const std::string& persona);

}  // namespace llmconform::toolcalls
