#include "harness/suites/toolcalls_shapes.h"

#include <set>

#include "base/format.h"
#include "base/json_fields.h"

namespace llmconform::harness::toolcalls_suite {
namespace {

namespace tc = toolcalls;

bool Has(const Json& j, const char* key, Json::value_t type) {
  return j.contains(key) && (j[key].type() == type ||
                             (type == Json::value_t::number_integer && j[key].is_number_integer()));
}

}  // namespace

std::string ShapeProblem(const std::string& tool, const Json& r) {
  static const std::set<std::string> kCodes = {"ENOENT",
                                               "E_SANDBOX_VIOLATION",
                                               "E_READ_LIMIT",
                                               "E_WRITE_LIMIT",
                                               "E_INVALID_FRONTMATTER",
                                               "E_SCHEMA_VALIDATION",
                                               "E_INVALID_TRANSITION",
                                               "E_PRECONDITION_FAILED",
                                               "E_INTERNAL"};
  if (!r.is_object() || !r.contains("ok") || !r["ok"].is_boolean()) return "no boolean ok";
  if (!r["ok"].get<bool>()) {
    if (!r.contains("error") || !r["error"].is_object()) return "ok:false without an error object";
    const Json& e = r["error"];
    if (!e.contains("code") || !e["code"].is_string() ||
        !kCodes.count(e["code"].get<std::string>())) {
      return "error.code is not one of the nine codes of §6.1";
    }
    if (!e.contains("message") || !e["message"].is_string()) return "error.message is not a string";
    if (e.contains("details") && !e["details"].is_object()) return "error.details is not an object";
    if (e["code"] == "E_INVALID_TRANSITION" &&
        !(e.contains("details") && e["details"].contains("allowedNext") &&
          e["details"]["allowedNext"].is_array())) {
      return "E_INVALID_TRANSITION without details.allowedNext";
    }
    return "";
  }
  const auto S = Json::value_t::string;
  const auto N = Json::value_t::number_integer;
  const auto B = Json::value_t::boolean;
  const auto A = Json::value_t::array;
  auto hex64 = [&](const char* key) {
    if (!r.contains(key)) return true;
    const std::string h = r[key].is_string() ? r[key].get<std::string>() : "";
    return h.size() == 64 && h.find_first_not_of("0123456789abcdef") == std::string::npos;
  };
  if (tool == "fs.read") {
    if (!Has(r, "path", S) || !Has(r, "bytes", N) || !Has(r, "sha256", S) ||
        !Has(r, "truncated", B)) {
      return "fs.read result without path, bytes, sha256 and truncated";
    }
    if (!hex64("sha256")) return "sha256 is not 64 hex digits";
    if (r["truncated"] == false && !Has(r, "content", S)) return "truncated:false without content";
    if (r["truncated"] == true && (!Has(r, "contentPreview", S) || !Has(r, "hint", S))) {
      return "truncated:true without contentPreview and hint";
    }
    return "";
  }
  if (tool == "fs.search") {
    if (!Has(r, "matches", A)) return "fs.search result without matches";
    for (const auto& m : r["matches"]) {
      if (!Has(m, "path", S) || !Has(m, "line", N) || !Has(m, "text", S))
        return "a match without path, line, text";
    }
    return "";
  }
  if (tool == "fs.list") {
    if (!Has(r, "path", S)) return "fs.list result without path";
    const bool truncated = MemberOf(r, "truncated") == true;
    if (!truncated && !Has(r, "entries", A)) return "fs.list result without entries";
    if (truncated && !Has(r, "entriesPreview", A))
      return "truncated fs.list result without entriesPreview";
    return "";
  }
  if (tool == "fs.write") {
    if (!Has(r, "path", S) || !Has(r, "bytesWritten", N))
      return "fs.write result without path and bytesWritten";
    return hex64("sha256After") ? "" : "sha256After is not 64 hex digits";
  }
  if (tool == "fs.apply_patch") {
    if (!Has(r, "path", S)) return "fs.apply_patch result without path";
    return hex64("sha256Before") && hex64("sha256After")
               ? ""
               : "sha256Before/After are not 64 hex digits";
  }
  return "";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      if (pos < text.size()) out.push_back(text.substr(pos));
      break;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::optional<tc::RunDirective> ParseRunDirective(const std::string& text) {
  static const char* kKeys[] = {"runType",  "intent",        "workflow",      "state",
                                "graph",    "artifactsRoot", "currentNodeId", "effectiveAgentId",
                                "autopilot"};
  const auto lines = Lines(text);
  if (lines.size() != 10 || lines[0] != "RUN_DIRECTIVE") return std::nullopt;
  std::vector<std::string> values;
  for (std::size_t i = 0; i < 9; ++i) {
    const std::string prefix = Format("- {}: ", kKeys[i]);
    if (!lines[i + 1].starts_with(prefix)) return std::nullopt;
    values.push_back(lines[i + 1].substr(prefix.size()));
  }
  tc::RunDirective d{values[0], values[1], values[2], values[3],          values[4],
                     values[5], values[6], values[7], values[8] == "true"};
  if (tc::ComposeRunDirective(d) != text) return std::nullopt;
  return d;
}

bool IsExactNodeBrief(const std::string& text) {
  const auto lines = Lines(text);
  if (lines.size() < 5 || lines[0] != "NODE_BRIEF" || !lines[1].starts_with("- currentNodeId: ") ||
      !lines[2].starts_with("- stepFile: ") || lines[3] != "- outputsMap:") {
    return false;
  }
  tc::NodeBrief b{lines[1].substr(17), lines[2].substr(12), {}, {}};
  std::size_t i = 4;
  for (; i < lines.size() && lines[i].starts_with("  - "); ++i) {
    const std::string item = lines[i].substr(4);
    const std::size_t arrow = item.find(" -> ");
    if (arrow == std::string::npos) return false;
    b.outputs_map.push_back({item.substr(0, arrow), item.substr(arrow + 4)});
  }
  if (i >= lines.size() || lines[i] != "- allowedNext:") return false;
  for (++i; i < lines.size(); ++i) {
    if (!lines[i].starts_with("  - ")) return false;
    std::string item = lines[i].substr(4);
    std::string label;
    const std::size_t l = item.find(" (label=");
    if (l != std::string::npos && item.ends_with(")")) {
      label = item.substr(l + 8, item.size() - l - 9);
      item = item.substr(0, l);
    }
    b.allowed_next.push_back({item, label});
  }
  return tc::ComposeNodeBrief(b) == text;
}

}  // namespace llmconform::harness::toolcalls_suite
