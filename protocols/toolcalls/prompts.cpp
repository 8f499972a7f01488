#include "protocols/toolcalls/prompts.h"

#include "base/format.h"

namespace llmconform::toolcalls {

std::string ComposeRunDirective(const RunDirective& d) {
  return Format(
      "RUN_DIRECTIVE\n- runType: {}\n- intent: {}\n- workflow: {}\n- state: {}\n- graph: {}\n- "
      "artifactsRoot: {}\n"
      "- currentNodeId: {}\n- effectiveAgentId: {}\n- autopilot: {}\n",
      d.run_type, d.intent, d.workflow, d.state, d.graph, d.artifacts_root, d.current_node_id,
      d.effective_agent_id, d.autopilot);
}

std::string ComposeNodeBrief(const NodeBrief& b) {
  std::string out = Format("NODE_BRIEF\n- currentNodeId: {}\n- stepFile: {}\n- outputsMap:\n",
                           b.current_node_id, b.step_file);
  for (const auto& m : b.outputs_map) out += Format("  - {} -> {}\n", m.from, m.to);
  out += "- allowedNext:\n";
  for (const auto& n : b.allowed_next) {
    out += n.label.empty() ? Format("  - {}\n", n.node_id)
                           : Format("  - {} (label={})\n", n.node_id, n.label);
  }
  return out;
}

std::string ComposeUserInput(const std::string& text,
                             const std::optional<std::string>& for_node_id) {
  if (for_node_id) return Format("USER_INPUT\n- forNodeId: {}\n{}", *for_node_id, text);
  return "USER_INPUT\n" + text;
}

namespace {
constexpr const char* kMounts =
    "Mounts:\n"
    "- @project: user project (read/write). Default artifacts root is @project/artifacts/.\n"
    "- @pkg: package content (read-only).\n"
    "- @state: run state (read/write, user-invisible). Workflow state file is "
    "@state/workflow.md.\n";
}  // namespace

std::string SystemRuntimeRules() {
  return std::string("You are running a CrewAgent v1.1 micro-file workflow.\n\n") + kMounts +
         "\nRules:\n"
         "- workflow.graph.json is the source of truth for allowed transitions.\n"
         "- Always follow the current node's step file instructions before writing "
         "artifacts/state.\n"
         "- After completing a node, update @state/workflow.md frontmatter: stepsCompleted, "
         "currentNodeId, "
         "variables (if needed), decisionLog (if decision), artifacts, updatedAt.\n"
         "- Autopilot: continue automatically until you need user input or workflow ends.\n"
         "- Do not write to @pkg. Do not reveal real filesystem paths; only use mount paths.\n";
}

std::string SystemChatRules() {
  return std::string("You are a helpful assistant with access to files through tools.\n\n") +
         kMounts +
         "\nRules:\n- Do not write to @pkg. Do not reveal real filesystem paths; only use mount "
         "paths.\n";
}

std::string SystemToolPolicy(const std::vector<Tool>& tools, const Limits& limits) {
  std::string names;
  for (Tool t : tools) names += (names.empty() ? "" : ", ") + std::string(ToolName(t));
  return Format(
      "Tool policy:\n- fs: enabled (maxReadBytes={}, maxWriteBytes={})\n- tools: {}\n- mcp: "
      "disabled\n"
      "Prefer fs.apply_patch for edits. All writes must be under @project or @state.\n",
      limits.max_read_bytes, limits.max_write_bytes, names.empty() ? std::string("(none)") : names);
}

std::vector<std::string> SystemMessageTexts(bool chat, const std::vector<Tool>& tools,
                                            const Limits& limits, const std::string& persona) {
  std::vector<std::string> texts{chat ? SystemChatRules() : SystemRuntimeRules(),
                                 SystemToolPolicy(tools, limits)};
  if (!chat && !persona.empty()) texts.push_back(persona);
  return texts;
}

}  // namespace llmconform::toolcalls
