#include "protocols/toolcalls/workflow_state.h"

#include <algorithm>

#include "base/format.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/tool_args.h"

namespace llmconform::toolcalls {
namespace {

ToolError Schema(std::string field, std::string_view expected, const OJson& got,
                 std::string_view context) {
  return ToolError{ToolErrorCode::kSchemaValidation,
                   Format("{}{}: expected {}, got {}", context, field, expected, JsonTypeName(got)),
                   OJson{{"field", field}, {"expected", expected}, {"got", JsonTypeName(got)}}};
}

bool IsStringArray(const OJson& j) {
  return j.is_array() &&
         std::all_of(j.begin(), j.end(), [](const OJson& v) { return v.is_string(); });
}
bool IsObjectArray(const OJson& j) {
  return j.is_array() &&
         std::all_of(j.begin(), j.end(), [](const OJson& v) { return v.is_object(); });
}

struct FieldType {
  const char* name;
  const char* expected;
  bool (*ok)(const OJson&);
};

constexpr FieldType kStateFields[] = {
    {"currentNodeId", "string", [](const OJson& j) { return j.is_string(); }},
    {"stepsCompleted", "array of strings", IsStringArray},
    {"variables", "object", [](const OJson& j) { return j.is_object(); }},
    {"decisionLog", "array of objects", IsObjectArray},
    {"artifacts", "array of strings", IsStringArray},
    {"updatedAt", "string", [](const OJson& j) { return j.is_string(); }},
    {"schemaVersion", "string", [](const OJson& j) { return j.is_string(); }},
    {"workflowType", "string", [](const OJson& j) { return j.is_string(); }},
};

// The one operation `key` allows and the type of its operand.
struct UpdateKey {
  const char* key;
  const char* op;
  const char* expected;
  bool (*ok)(const OJson&);
};

constexpr UpdateKey kUpdateKeys[] = {
    {"stepsCompleted", "append", "array of strings", IsStringArray},
    {"variables", "set", "object", [](const OJson& j) { return j.is_object(); }},
    {"decisionLog", "append", "array of objects", IsObjectArray},
    {"artifacts", "append", "array of strings", IsStringArray},
    {"currentNodeId", "set", "string", [](const OJson& j) { return j.is_string(); }},
    {"updatedAt", "set", "string", [](const OJson& j) { return j.is_string(); }},
};

std::string KnownKeys() {
  std::string out;
  for (const auto& k : kUpdateKeys) out += (out.empty() ? "" : ", ") + std::string(k.key);
  return out;
}

}  // namespace

std::optional<ToolError> ValidateStateSchema(const OJson& fm) {
  for (const auto& f : kStateFields) {
    auto it = fm.find(f.name);
    if (it != fm.end() && !f.ok(*it)) return Schema(f.name, f.expected, *it, "front matter field ");
  }
  return std::nullopt;
}

std::expected<OJson, ToolError> ApplyFrontmatterUpdate(OJson fm, const OJson& update) {
  if (!update.is_object()) return std::unexpected(Schema("update", "object", update, "argument "));
  if (!fm.is_object() && !fm.is_null()) {
    return std::unexpected(Schema("front matter", "object", fm, ""));
  }
  // Check the whole update before changing anything.
  for (auto it = update.begin(); it != update.end(); ++it) {
    const auto* spec = std::find_if(std::begin(kUpdateKeys), std::end(kUpdateKeys),
                                    [&](const UpdateKey& k) { return it.key() == k.key; });
    if (spec == std::end(kUpdateKeys)) {
      return std::unexpected(
          ToolError{ToolErrorCode::kSchemaValidation,
                    Format("update.{}: unknown field; expected one of {}", it.key(), KnownKeys()),
                    OJson{{"field", "update." + it.key()}}});
    }
    const std::string field = Format("update.{}", it.key());
    const OJson& op = it.value();
    if (!op.is_object() || op.size() != 1 || !op.contains(spec->op)) {
      return std::unexpected(
          ToolError{ToolErrorCode::kSchemaValidation,
                    Format("{}: expected {{\"{}\": {}}}", field, spec->op, spec->expected),
                    OJson{{"field", field}, {"expected", spec->op}}});
    }
    if (!spec->ok(op[spec->op])) {
      return std::unexpected(
          Schema(field + "." + spec->op, spec->expected, op[spec->op], "argument "));
    }
    auto cur = fm.find(it.key());
    if (cur != fm.end() && !cur->is_null()) {
      const auto* f = std::find_if(std::begin(kStateFields), std::end(kStateFields),
                                   [&](const FieldType& t) { return it.key() == t.name; });
      if (!f->ok(*cur))
        return std::unexpected(Schema(it.key(), f->expected, *cur, "front matter field "));
    }
  }
  for (auto it = update.begin(); it != update.end(); ++it) {
    const std::string& key = it.key();
    const OJson& op = it.value();
    OJson& cur = fm[key];
    if (key == "stepsCompleted" || key == "artifacts") {
      if (!cur.is_array()) cur = OJson::array();
      for (const auto& v : op["append"]) {
        if (std::find(cur.begin(), cur.end(), v) == cur.end()) cur.push_back(v);
      }
    } else if (key == "decisionLog") {
      if (!cur.is_array()) cur = OJson::array();
      for (const auto& v : op["append"]) cur.push_back(v);
    } else if (key == "variables") {
      if (!cur.is_object()) cur = OJson::object();
      for (auto v = op["set"].begin(); v != op["set"].end(); ++v) cur[v.key()] = v.value();
    } else {
      cur = op["set"];
    }
  }
  return fm;
}

std::optional<ToolError> CheckStateChange(std::optional<std::string_view> old_text,
                                          std::string_view new_text, const WorkflowGraph* graph) {
  const FrontmatterSplit split = SplitFrontmatter(new_text);
  if (!split.present) {
    return ToolError{ToolErrorCode::kInvalidFrontmatter,
                     "@state/workflow.md must start with YAML front matter between '---' lines"};
  }
  auto fm = ParseYamlMapping(split.yaml);
  if (!fm) {
    return ToolError{ToolErrorCode::kInvalidFrontmatter,
                     "@state/workflow.md front matter: " + fm.error().message};
  }
  if (auto e = ValidateStateSchema(*fm)) return e;
  if (!fm->contains("currentNodeId")) {
    return ToolError{ToolErrorCode::kSchemaValidation, "front matter field currentNodeId: required",
                     OJson{{"field", "currentNodeId"}, {"expected", "string"}, {"got", "nothing"}}};
  }
  const std::string to = (*fm)["currentNodeId"].get<std::string>();

  std::optional<OJson> old;
  if (old_text) {
    const FrontmatterSplit os = SplitFrontmatter(*old_text);
    if (os.present) {
      auto o = ParseYamlMapping(os.yaml);
      if (o && !ValidateStateSchema(*o)) old = std::move(*o);
    }
  }
  const std::string from =
      old && old->contains("currentNodeId") ? (*old)["currentNodeId"].get<std::string>() : "";

  if (graph) {
    auto transition_error = [&](std::string message) {
      OJson allowed = OJson::array();
      if (!from.empty()) {
        for (auto& n : graph->AllowedNext(from)) allowed.push_back(n);
      }
      return ToolError{ToolErrorCode::kInvalidTransition, std::move(message),
                       OJson{{"from", from.empty() ? OJson(nullptr) : OJson(from)},
                             {"to", to},
                             {"allowedNext", std::move(allowed)}}};
    };
    if (!graph->Find(to)) {
      return transition_error(
          Format("currentNodeId \"{}\" is not a node of @pkg/workflow.graph.json", to));
    }
    if (!from.empty() && from != to && !graph->HasEdge(from, to)) {
      std::string allowed;
      for (auto& n : graph->AllowedNext(from)) allowed += (allowed.empty() ? "" : ", ") + n;
      return transition_error(
          Format("transition {} -> {} is not an edge of @pkg/workflow.graph.json; allowed next: {}",
                 from, to, allowed.empty() ? "(none)" : allowed));
    }
  }
  if (old && old->contains("stepsCompleted")) {
    const OJson& before = (*old)["stepsCompleted"];
    const OJson after = fm->contains("stepsCompleted") ? (*fm)["stepsCompleted"] : OJson::array();
    const bool prefix =
        after.size() >= before.size() && std::equal(before.begin(), before.end(), after.begin());
    if (!prefix) {
      OJson removed = OJson::array();
      for (const auto& s : before) {
        if (std::find(after.begin(), after.end(), s) == after.end()) removed.push_back(s);
      }
      return ToolError{
          ToolErrorCode::kInvalidTransition,
          "stepsCompleted may only grow: entries must be kept, in order, and new ones appended",
          OJson{{"field", "stepsCompleted"}, {"removed", std::move(removed)}}};
    }
  }
  return std::nullopt;
}

bool IsWorkflowComplete(const OJson& fm, const WorkflowGraph& graph) {
  auto node = fm.find("currentNodeId");
  if (node == fm.end() || !node->is_string()) return false;
  auto steps = fm.find("stepsCompleted");
  if (steps == fm.end() || !steps->is_array()) return false;
  const std::string id = node->get<std::string>();
  return graph.IsEnd(id) && std::find(steps->begin(), steps->end(), OJson(id)) != steps->end();
}

}  // namespace llmconform::toolcalls
