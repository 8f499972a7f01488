// @pkg/workflow.graph.json: the source of truth for a workflow's allowed
// transitions (seed 001 §1, §2.2).
//
//   {"workflowId"?, "entryNodeId", "nodes":[{"id","type"?:"step"|"end","file"?,
//    "agentId"?,"title"?,"outputs"?:[…]}], "edges":[{"from","to","label"?}]}
//
// `file` is the step file relative to @pkg ("steps/step-01.md"); `outputs`
// are artifact paths relative to @project ("artifacts/x/target.md").
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace llmconform::toolcalls {

struct GraphNode {
  std::string id;
  std::string type = "step";  // "step" | "end"
  std::string file;
  std::string agent_id;
  std::string title;
  std::vector<std::string> outputs;
};

struct GraphEdge {
  std::string from;
  std::string to;
  std::string label;
};

struct WorkflowGraph {
  std::string workflow_id;
  std::string entry_node_id;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;

  const GraphNode* Find(std::string_view id) const;
  // Targets of the edges leaving `id`, in file order, without repeats.
  std::vector<std::string> AllowedNext(std::string_view id) const;
  std::vector<const GraphEdge*> EdgesFrom(std::string_view id) const;
  bool HasEdge(std::string_view from, std::string_view to) const;
  // An end node: type "end", or no edge leaves it.
  bool IsEnd(std::string_view id) const;
};

// Errors name the field: "workflow.graph.json: nodes[2].id: expected string,
// got number"; also duplicate node ids, edges naming unknown nodes, and an
// entryNodeId that is not a node.
std::expected<WorkflowGraph, Error> ParseWorkflowGraph(std::string_view json_text);

}  // namespace llmconform::toolcalls
