#include "protocols/toolcalls/workflow_graph.h"

#include <gtest/gtest.h>

namespace llmconform::toolcalls {
namespace {

constexpr const char* kWorkflowGraph = R"({
  "workflowId": "w", "entryNodeId": "a",
  "nodes": [{"id": "a", "file": "steps/a.md", "agentId": "sm", "outputs": ["artifacts/a.md"]},
            {"id": "b"}, {"id": "c"}, {"id": "end", "type": "end"}],
  "edges": [{"from": "a", "to": "b", "label": "next"}, {"from": "a", "to": "c"}, {"from": "b", "to": "end"},
            {"from": "c", "to": "end"}]
})";

TEST(WorkflowGraph, ParsesNodesAndEdges) {
  auto g = ParseWorkflowGraph(kWorkflowGraph);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->entry_node_id, "a");
  EXPECT_EQ(g->Find("a")->file, "steps/a.md");
  EXPECT_EQ(g->Find("a")->outputs, std::vector<std::string>{"artifacts/a.md"});
  EXPECT_EQ(g->AllowedNext("a"), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(g->HasEdge("b", "end"));
  EXPECT_FALSE(g->HasEdge("a", "end"));
  EXPECT_TRUE(g->IsEnd("end"));
  EXPECT_FALSE(g->IsEnd("a"));
  EXPECT_EQ(g->Find("zzz"), nullptr);
}

TEST(WorkflowGraph, ErrorsNameTheField) {
  EXPECT_EQ(ParseWorkflowGraph("{").error().message, "workflow.graph.json: not valid JSON");
  EXPECT_EQ(ParseWorkflowGraph(R"({"entryNodeId":"a","nodes":[{"id":1}]})").error().message,
            "workflow.graph.json: /nodes/0/id: expected string, got number");
  EXPECT_EQ(
      ParseWorkflowGraph(R"({"entryNodeId":"a","nodes":[{"id":"a"},{"id":"a"}]})").error().message,
      "workflow.graph.json: /nodes/1/id: duplicate node id \"a\"");
  EXPECT_EQ(ParseWorkflowGraph(
                R"({"entryNodeId":"a","nodes":[{"id":"a"}],"edges":[{"from":"a","to":"x"}]})")
                .error()
                .message,
            "workflow.graph.json: /edges/0/to: unknown node \"x\"");
  EXPECT_EQ(ParseWorkflowGraph(R"({"entryNodeId":"q","nodes":[{"id":"a"}]})").error().message,
            "workflow.graph.json: /entryNodeId: unknown node \"q\"");
}

}  // namespace
}  // namespace llmconform::toolcalls
