#include "protocols/toolcalls/tool_schemas.h"

#include "base/json.h"

namespace llmconform::toolcalls {
namespace {

Json PathProperty(const char* what) {
  return {{"type", "string"},
          {"description",
           std::string(what) + " A mount path: @project/…, @pkg/… (read-only) or @state/…"}};
}

Json Schema(Tool t) {
  const Json sha = {{"type", "string"},
                    {"pattern", "^[0-9a-f]{64}$"},
                    {"description", "Only change the file if its sha256 is this."}};
  switch (t) {
    case Tool::kRead:
      return {{"type", "object"},
              {"properties",
               {{"path", PathProperty("The file to read.")},
                {"startLine",
                 {{"type", "integer"}, {"minimum", 1}, {"description", "First line, 1-based."}}},
                {"endLine",
                 {{"type", "integer"}, {"minimum", 1}, {"description", "Last line, inclusive."}}}}},
              {"required", {"path"}},
              {"additionalProperties", false}};
    case Tool::kList:
      return {{"type", "object"},
              {"properties", {{"path", PathProperty("The folder to list.")}}},
              {"required", {"path"}},
              {"additionalProperties", false}};
    case Tool::kSearch:
      return {{"type", "object"},
              {"properties",
               {{"query",
                 {{"type", "string"},
                  {"minLength", 1},
                  {"description", "A substring, or /regex/ with optional flag i."}}},
                {"path", PathProperty("The file or folder to search (default @project).")},
                {"maxMatches", {{"type", "integer"}, {"minimum", 1}}},
                {"before", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
                {"after", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}}}},
              {"required", {"query"}},
              {"additionalProperties", false}};
    case Tool::kWrite:
      return {{"type", "object"},
              {"properties",
               {{"path", PathProperty("The file to create or replace.")},
                {"content", {{"type", "string"}}},
                {"ifMatchSha256", sha}}},
              {"required", {"path", "content"}},
              {"additionalProperties", false}};
    case Tool::kApplyPatch:
      break;
  }
  const Json strings = {{"type", "array"}, {"items", {{"type", "string"}}}};
  auto op = [](const char* name, Json operand) {
    return Json{{"type", "object"},
                {"properties", {{name, std::move(operand)}}},
                {"required", {name}},
                {"additionalProperties", false}};
  };
  return {{"type", "object"},
          {"properties",
           {{"path", PathProperty("The Markdown file whose front matter to update.")},
            {"operation", {{"type", "string"}, {"enum", {"updateFrontmatter"}}}},
            {"update",
             {{"type", "object"},
              {"properties",
               {{"stepsCompleted", op("append", strings)},
                {"variables", op("set", {{"type", "object"}})},
                {"decisionLog", op("append", {{"type", "array"}, {"items", {{"type", "object"}}}})},
                {"artifacts", op("append", strings)},
                {"currentNodeId", op("set", {{"type", "string"}})},
                {"updatedAt", op("set", {{"type", "string"}})}}},
              {"additionalProperties", false}}},
            {"ifMatchSha256", sha}}},
          {"required", {"path", "operation", "update"}},
          {"additionalProperties", false}};
}

const char* Description(Tool t) {
  switch (t) {
    case Tool::kRead:
      return "Read a file (or a window of lines). Large content is truncated to a preview with a "
             "hint.";
    case Tool::kList:
      return "List a folder: names sorted, folders end with '/'.";
    case Tool::kSearch:
      return "Search files for a substring or /regex/i; returns matching lines with context.";
    case Tool::kWrite:
      return "Create or replace a file atomically under @project or @state.";
    case Tool::kApplyPatch:
      break;
  }
  return "Update the YAML front matter of a Markdown file (e.g. @state/workflow.md) with "
         "updateFrontmatter.";
}

}  // namespace

Json FunctionTools(const std::vector<Tool>& tools) {
  Json out = Json::array();
  for (Tool t : tools) {
    out.push_back({{"type", "function"},
                   {"function",
                    {{"name", std::string(WireToolName(t))},
                     {"description", Description(t)},
                     {"parameters", Schema(t)}}}});
  }
  return out;
}

bool IsValidFunctionName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace llmconform::toolcalls
