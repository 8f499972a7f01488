#include "protocols/toolcalls/workflow_graph.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/format.h"
#include "base/json.h"
#include "base/json_read.h"
#include "protocols/wire/chat.h"

namespace llmconform::toolcalls {
namespace {

// A problem with the value at `pointer` (RFC 6901, from the graph's root).
struct BadGraph {
  std::string pointer;
  std::string what;
};

std::string Str(const Json& obj, std::string_view where, const char* key, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required)
      throw BadGraph{Format("{}/{}", where, key),
                     "expected string, got nothing (the field is required)"};
    return "";
  }
  if (!it->is_string())
    throw BadGraph{Format("{}/{}", where, key),
                   Format("expected string, got {}", JsonTypeName(*it))};
  return it->get<std::string>();
}

const Json& Arr(const Json& obj, std::string_view where, const char* key) {
  static const Json kEmpty = Json::array();
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return kEmpty;
  if (!it->is_array())
    throw BadGraph{Format("{}/{}", where, key),
                   Format("expected array, got {}", JsonTypeName(*it))};
  return *it;
}

}  // namespace

const GraphNode* WorkflowGraph::Find(std::string_view id) const {
  for (const auto& n : nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

std::vector<const GraphEdge*> WorkflowGraph::EdgesFrom(std::string_view id) const {
  std::vector<const GraphEdge*> out;
  for (const auto& e : edges) {
    if (e.from == id) out.push_back(&e);
  }
  return out;
}

std::vector<std::string> WorkflowGraph::AllowedNext(std::string_view id) const {
  std::vector<std::string> out;
  for (const auto* e : EdgesFrom(id)) {
    if (std::find(out.begin(), out.end(), e->to) == out.end()) out.push_back(e->to);
  }
  return out;
}

bool WorkflowGraph::HasEdge(std::string_view from, std::string_view to) const {
  return std::any_of(edges.begin(), edges.end(),
                     [&](const GraphEdge& e) { return e.from == from && e.to == to; });
}

bool WorkflowGraph::IsEnd(std::string_view id) const {
  const GraphNode* n = Find(id);
  return n != nullptr && (n->type == "end" || EdgesFrom(id).empty());
}

std::expected<WorkflowGraph, Error> ParseWorkflowGraph(std::string_view json_text) {
  const Json j = ReadJsonOrDiscarded(json_text);
  if (j.is_discarded()) return std::unexpected(Error{"workflow.graph.json: not valid JSON"});
  try {
    if (!j.is_object()) throw BadGraph{"", Format("expected object, got {}", JsonTypeName(j))};
    WorkflowGraph g;
    g.workflow_id = Str(j, "", "workflowId", false);
    g.entry_node_id = Str(j, "", "entryNodeId", true);
    const Json& nodes = Arr(j, "", "nodes");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = Format("/nodes/{}", i);
      if (!nodes[i].is_object())
        throw BadGraph{where, Format("expected object, got {}", JsonTypeName(nodes[i]))};
      GraphNode n;
      n.id = Str(nodes[i], where, "id", true);
      if (n.id.empty()) throw BadGraph{where + "/id", "must not be empty"};
      if (!ids.insert(n.id).second)
        throw BadGraph{where + "/id", Format("duplicate node id \"{}\"", n.id)};
      const std::string type = Str(nodes[i], where, "type", false);
      if (!type.empty()) n.type = type;
      n.file = Str(nodes[i], where, "file", false);
      n.agent_id = Str(nodes[i], where, "agentId", false);
      n.title = Str(nodes[i], where, "title", false);
      const Json& outputs = Arr(nodes[i], where, "outputs");
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        if (!outputs[k].is_string()) {
          throw BadGraph{Format("{}/outputs/{}", where, k),
                         Format("expected string, got {}", JsonTypeName(outputs[k]))};
        }
        n.outputs.push_back(outputs[k].get<std::string>());
      }
      g.nodes.push_back(std::move(n));
    }
    const Json& edges = Arr(j, "", "edges");
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const std::string where = Format("/edges/{}", i);
      if (!edges[i].is_object())
        throw BadGraph{where, Format("expected object, got {}", JsonTypeName(edges[i]))};
      GraphEdge e{Str(edges[i], where, "from", true), Str(edges[i], where, "to", true),
                  Str(edges[i], where, "label", false)};
      if (!ids.count(e.from))
        throw BadGraph{where + "/from", Format("unknown node \"{}\"", e.from)};
      if (!ids.count(e.to)) throw BadGraph{where + "/to", Format("unknown node \"{}\"", e.to)};
      g.edges.push_back(std::move(e));
    }
    if (!ids.count(g.entry_node_id))
      throw BadGraph{"/entryNodeId", Format("unknown node \"{}\"", g.entry_node_id)};
    return g;
  } catch (const BadGraph& b) {
    return std::unexpected(Error::At({"workflow.graph.json"}, b.pointer, b.what));
  }
}

}  // namespace llmconform::toolcalls
