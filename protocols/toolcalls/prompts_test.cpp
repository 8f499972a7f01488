#include "protocols/toolcalls/prompts.h"

#include <gtest/gtest.h>

#include "protocols/toolcalls/tool_schemas.h"

namespace llmconform::toolcalls {
namespace {

TEST(Prompts, RunDirectiveIsTheSeedShell) {
  RunDirective d;
  d.intent = "start";
  d.workflow = "create-story-micro";
  d.current_node_id = "step-01-select-story";
  d.effective_agent_id = "sm";
  EXPECT_EQ(
      ComposeRunDirective(d),
      "RUN_DIRECTIVE\n- runType: bmad-micro\n- intent: start\n- workflow: create-story-micro\n"
      "- state: @state/workflow.md\n- graph: @pkg/workflow.graph.json\n- artifactsRoot: "
      "@project/artifacts/\n"
      "- currentNodeId: step-01-select-story\n- effectiveAgentId: sm\n- autopilot: true\n");
  d.autopilot = false;
  EXPECT_TRUE(ComposeRunDirective(d).ends_with("- autopilot: false\n"));
}

TEST(Prompts, NodeBriefIsTheSeedShell) {
  NodeBrief b{"step-01-select-story",
              "@pkg/steps/step-01-select-story.md",
              {{"artifacts/create-story/target.md", "@project/artifacts/create-story/target.md"}},
              {{"step-02-discover-inputs", "next"}, {"side", ""}}};
  EXPECT_EQ(ComposeNodeBrief(b),
            "NODE_BRIEF\n- currentNodeId: step-01-select-story\n- stepFile: "
            "@pkg/steps/step-01-select-story.md\n"
            "- outputsMap:\n  - artifacts/create-story/target.md -> "
            "@project/artifacts/create-story/target.md\n"
            "- allowedNext:\n  - step-02-discover-inputs (label=next)\n  - side\n");
  EXPECT_EQ(ComposeNodeBrief({"end-99", "@pkg/steps/end-99.md", {}, {}}),
            "NODE_BRIEF\n- currentNodeId: end-99\n- stepFile: @pkg/steps/end-99.md\n- "
            "outputsMap:\n- allowedNext:\n");
}

TEST(Prompts, UserInputBindsTheNodeOnlyInRunMode) {
  EXPECT_EQ(ComposeUserInput("1-2-user-authentication", "step-01-select-story"),
            "USER_INPUT\n- forNodeId: step-01-select-story\n1-2-user-authentication");
  EXPECT_EQ(ComposeUserInput("hello", std::nullopt), "USER_INPUT\nhello");
}

TEST(Prompts, ToolPolicyNamesLimitsAndTools) {
  EXPECT_EQ(SystemToolPolicy({Tool::kRead, Tool::kList}, Limits{}),
            "Tool policy:\n- fs: enabled (maxReadBytes=50000, maxWriteBytes=100000)\n- tools: "
            "fs.read, fs.list\n"
            "- mcp: disabled\nPrefer fs.apply_patch for edits. All writes must be under @project "
            "or @state.\n");
}

TEST(ToolSchemas, FiveFunctionToolsWithValidNames) {
  const auto tools = FunctionTools(std::vector<Tool>(std::begin(kAllTools), std::end(kAllTools)));
  ASSERT_EQ(tools.size(), 5u);
  std::vector<std::string> names;
  for (const auto& t : tools) {
    EXPECT_EQ(t["type"], "function");
    EXPECT_EQ(t["function"]["parameters"]["type"], "object");
    names.push_back(t["function"]["name"]);
    EXPECT_TRUE(IsValidFunctionName(names.back()));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fs_read", "fs_list", "fs_search", "fs_write",
                                             "fs_apply_patch"}));
  EXPECT_EQ(tools[3]["function"]["parameters"]["required"], (nlohmann::json{"path", "content"}));
  EXPECT_FALSE(IsValidFunctionName("fs.read"));
  EXPECT_FALSE(IsValidFunctionName(""));
  EXPECT_FALSE(IsValidFunctionName(std::string(65, 'a')));
}

}  // namespace
}  // namespace llmconform::toolcalls
