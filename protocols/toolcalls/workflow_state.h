// The workflow state (Document-as-State, seed 001 §1, §2.2, §6.6): the
// front matter of @state/workflow.md, its `updateFrontmatter` patch and the
// guard that every change of it passes.
//
// State fields and their types: currentNodeId string, stepsCompleted
// string[], variables object, decisionLog object[], artifacts string[],
// updatedAt string, schemaVersion string, workflowType string. Other fields
// are kept as they are.
#pragma once

#include <optional>
#include <string_view>

#include "protocols/toolcalls/tool_error.h"
#include "protocols/toolcalls/workflow_graph.h"

namespace llmconform::toolcalls {

// E_SCHEMA_VALIDATION for a known field of the wrong type (details: field,
// expected, got).
std::optional<ToolError> ValidateStateSchema(const OJson& frontmatter);

// Applies the `update` object of an updateFrontmatter operation (§6.6,
// docs/protocols.md): stepsCompleted.append and artifacts.append add entries not
// already present, variables.set merges shallowly, decisionLog.append
// appends, currentNodeId.set and updatedAt.set overwrite. An unknown key, an
// operation other than the one each key allows, or a value of the wrong type
// (in the update or in the front matter it changes), or a front matter that
// is not an object (null counts as empty), is E_SCHEMA_VALIDATION.
std::expected<OJson, ToolError> ApplyFrontmatterUpdate(OJson frontmatter, const OJson& update);

// Checks a new content of @state/workflow.md: its front matter parses
// (E_INVALID_FRONTMATTER), has the state's types and a currentNodeId
// (E_SCHEMA_VALIDATION), names a node of `graph` and, when it differs from
// the old state's node, one an edge leads to (E_INVALID_TRANSITION with
// details {from, to, allowedNext}); stepsCompleted keeps the old entries in
// order (E_INVALID_TRANSITION with details {field, removed}). `old_text` is
// the current content, nullopt when the file does not exist; old content
// that does not parse constrains nothing. Without a graph, only the schema
// is checked.
std::optional<ToolError> CheckStateChange(std::optional<std::string_view> old_text,
                                          std::string_view new_text, const WorkflowGraph* graph);

// Whether the state says the workflow is done: its currentNodeId is an end
// node of `graph` and stepsCompleted holds it.
bool IsWorkflowComplete(const OJson& frontmatter, const WorkflowGraph& graph);

}  // namespace llmconform::toolcalls
