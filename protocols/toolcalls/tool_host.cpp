// ToolHost as a whole: the name tables, LimitsFromJson, FromSandbox/FromFs,
// dispatch, hashing, the workflow-state guard and the audit log. Each tool is
// in fs_<tool>.cpp; the contract is in tool_host.h.
#include "protocols/toolcalls/tool_host.h"

#include <algorithm>
#include <vector>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_support.h"
#include "protocols/toolcalls/workflow_state.h"
#include "protocols/wire/chat.h"

namespace llmconform::toolcalls {
namespace {

constexpr std::size_t kElideBytes = 1024;
constexpr std::size_t kHashCacheEntries = 4096;

struct ToolNames {
  Tool tool;
  std::string_view name;
  std::string_view wire;
};
constexpr ToolNames kToolNames[] = {
    {Tool::kRead, "fs.read", "fs_read"},
    {Tool::kList, "fs.list", "fs_list"},
    {Tool::kSearch, "fs.search", "fs_search"},
    {Tool::kWrite, "fs.write", "fs_write"},
    {Tool::kApplyPatch, "fs.apply_patch", "fs_apply_patch"},
};

// Arguments for the audit log: long strings replaced by their size and hash.
OJson Elide(const OJson& v) {
  if (v.is_string() && v.get_ref<const std::string&>().size() > kElideBytes) {
    const auto& s = v.get_ref<const std::string&>();
    return OJson{{"elidedBytes", s.size()}, {"sha256", Sha256Hex(s)}};
  }
  if (v.is_object()) {
    OJson out = OJson::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = Elide(it.value());
    return out;
  }
  if (v.is_array()) {
    OJson out = OJson::array();
    for (const auto& x : v) out.push_back(Elide(x));
    return out;
  }
  return v;
}

}  // namespace

ToolError FromSandbox(const SandboxError& e) {
  switch (e.kind) {
    case SandboxErrorKind::kViolation:
    case SandboxErrorKind::kUnmounted:
      return {ToolErrorCode::kSandboxViolation, e.message};
    case SandboxErrorKind::kNotFound:
    case SandboxErrorKind::kNotDirectory:
    case SandboxErrorKind::kIsDirectory:
      return {ToolErrorCode::kNotFound, e.message};
    case SandboxErrorKind::kNotRegular:
      return {ToolErrorCode::kSandboxViolation, e.message, OJson{{"reason", "notRegularFile"}}};
    case SandboxErrorKind::kHardLinked:
      return {ToolErrorCode::kSandboxViolation, e.message, OJson{{"reason", "hardLinked"}}};
    case SandboxErrorKind::kIo:
      break;
  }
  return {ToolErrorCode::kInternal, e.message};
}

ToolError FromFs(const FsError& e, const MountPath& path, ToolErrorCode otherwise) {
  if (e.kind == FsErrorKind::kHardLinked)
    return FromSandbox({SandboxErrorKind::kHardLinked, HardLinkedMessage(path)});
  if (e.kind == FsErrorKind::kNotRegular) return detail::NotRegularFile(path);
  return {otherwise, Format("{}: {}", path.Display(), e.message)};
}

std::optional<Tool> ToolFromName(std::string_view name) {
  for (const auto& t : kToolNames) {
    if (name == t.name || name == t.wire) return t.tool;
  }
  return std::nullopt;
}

std::string_view ToolName(Tool t) { return kToolNames[static_cast<int>(t)].name; }
std::string_view WireToolName(Tool t) { return kToolNames[static_cast<int>(t)].wire; }

std::expected<Limits, Error> LimitsFromJson(const nlohmann::json& j) {
  Limits l;
  if (j.is_null()) return l;
  if (!j.is_object())
    return std::unexpected(
        Error::AtPointer("", Format("expected object, got {}", JsonTypeName(j))));
  auto take = [&](const char* key, auto& field) -> std::expected<void, Error> {
    auto it = j.find(key);
    if (it == j.end()) return {};
    if (!it->is_number_integer() ||
        it->get<std::int64_t>() < (std::string_view(key) == "contextLines" ? 0 : 1)) {
      return std::unexpected(Error::AtPointer(
          Format("/{}", key), Format("expected a positive integer, got {}", it->dump())));
    }
    field = static_cast<std::remove_reference_t<decltype(field)>>(it->get<std::int64_t>());
    return {};
  };
  for (auto r : {take("maxReadBytes", l.max_read_bytes), take("maxWriteBytes", l.max_write_bytes),
                 take("maxListEntries", l.max_list_entries), take("maxMatches", l.max_matches),
                 take("contextLines", l.context_lines), take("maxFileBytes", l.max_file_bytes),
                 take("maxLineBytes", l.max_line_bytes)}) {
    if (!r) return std::unexpected(r.error());
  }
  return l;
}

ToolHost::ToolHost(Sandbox& sandbox, Clock& clock, Limits limits)
    : sandbox_(sandbox), clock_(clock), limits_(limits) {}

ToolRun ToolHost::Run(std::string_view tool_call_id, std::string_view tool,
                      std::string_view arguments_json) {
  const OJson parsed = ReadOrderedJsonOrDiscarded(arguments_json);
  if (parsed.is_discarded() || !parsed.is_object()) {
    const auto started = clock_.Monotonic();
    ToolRun run{std::string(tool_call_id), std::string(tool), OJson(ToValidUtf8(arguments_json)),
                nullptr};
    run.result = ErrorResult(
        {ToolErrorCode::kSchemaValidation,
         parsed.is_discarded() ? "arguments are not valid JSON" : "arguments must be a JSON object",
         OJson{{"field", "arguments"}}});
    return Finish(std::move(run), started, {});
  }
  return Run(tool_call_id, tool, parsed);
}

ToolRun ToolHost::Run(std::string_view tool_call_id, std::string_view tool,
                      const OJson& arguments) {
  const auto started = clock_.Monotonic();
  ToolRun run{std::string(tool_call_id), std::string(tool), arguments, nullptr};
  Hashes hashes;
  const std::optional<Tool> t = ToolFromName(tool);
  if (!t) {
    run.result = ErrorResult(
        {ToolErrorCode::kSchemaValidation,
         Format("unknown tool \"{}\"; available: fs.read, fs.list, fs.search, fs.write, "
                "fs.apply_patch",
                ToValidUtf8(tool)),
         OJson{{"field", "tool"}}});
  } else if (std::find(enabled_.begin(), enabled_.end(), *t) == enabled_.end()) {
    run.result = ErrorResult({ToolErrorCode::kSchemaValidation,
                              Format("tool {} is not enabled by the tool policy", ToolName(*t)),
                              OJson{{"field", "tool"}}});
  } else if (!arguments.is_object()) {
    run.result = ErrorResult({ToolErrorCode::kSchemaValidation, "arguments must be a JSON object",
                              OJson{{"field", "arguments"}}});
  } else {
    run.result = Dispatch(*t, arguments, hashes);
  }
  return Finish(std::move(run), started, hashes);
}

OJson ToolHost::Dispatch(Tool tool, const OJson& args, Hashes& hashes) {
  switch (tool) {
    case Tool::kRead:
      return Read(args, hashes);
    case Tool::kList:
      return List(args);
    case Tool::kSearch:
      return Search(args);
    case Tool::kWrite:
      return Write(args, hashes);
    case Tool::kApplyPatch:
      break;
  }
  return ApplyPatch(args, hashes);
}

ToolRun ToolHost::Finish(ToolRun run, std::chrono::steady_clock::time_point started,
                         const Hashes& hashes) {
  run.duration_ms = std::chrono::duration<double, std::milli>(clock_.Monotonic() - started).count();
  run.sha256_before = hashes.before;
  run.sha256_after = hashes.after;
  Audit(run);
  return run;
}

void ToolHost::Audit(const ToolRun& run) {
  const bool ok = run.result.value("ok", false);
  OJson line = {
      {"time", Iso8601Utc(clock_.Now())},
      {"toolCallId", ToValidUtf8(run.tool_call_id)},
      {"tool", ToValidUtf8(run.tool)},
      {"args", Elide(run.args)},
      {"ok", ok},
      {"errorCode", ok ? OJson(nullptr) : run.result["error"]["code"]},
      {"durationMs", run.duration_ms},
      {"sha256Before", run.sha256_before ? OJson(*run.sha256_before) : OJson(nullptr)},
      {"sha256After", run.sha256_after ? OJson(*run.sha256_after) : OJson(nullptr)},
  };
  const MountPath log{Mount::kState, {"logs", "execution.jsonl"}};
  auto where = sandbox_.Resolve(log, true);
  if (!where) {
    audit_error_ = where.error().message;
    return;
  }
  if (!where->parent) {
    audit_error_ = "@state/logs/execution.jsonl resolves to the mount root";
    return;
  }
  // The log is written under its own name only: a symlink, even one that
  // stays inside @state, would let a model aim the audit lines at a file it
  // reads or at the workflow state. Append refuses a symlink (O_NOFOLLOW), a
  // fifo or device, and a file with more than one hard link.
  if (where->physical.segments != log.segments) {
    audit_error_ = Format("@state/logs/execution.jsonl is a symlink (to {}); not written",
                          where->physical.Display());
    return;
  }
  auto appended = where->parent->Append(where->name, DumpJson(line) + "\n");
  audit_error_ = appended ? "" : "@state/logs/execution.jsonl: " + appended.error().message;
}

std::expected<std::string, ToolError> ToolHost::HashOf(File& file, const MountPath& shown,
                                                       bool cached) {
  auto id = file.Identity();
  if (!id) return std::unexpected(detail::InternalError(shown, id.error().message));
  auto it = hash_cache_.find({id->device, id->inode});
  if (cached && it != hash_cache_.end() && it->second.first == *id) return it->second.second;
  Sha256 h;
  std::vector<char> buf(detail::kChunkBytes);
  std::uint64_t offset = 0;
  for (;;) {
    auto n = file.ReadAt(offset, buf);
    if (!n) return std::unexpected(detail::InternalError(shown, n.error().message));
    if (*n == 0) break;
    h.Update(std::string_view(buf.data(), *n));
    offset += *n;
  }
  std::string hex = h.HexDigest();
  auto after = file.Identity();
  if (after && *after == *id && offset == id->size) {
    if (hash_cache_.size() >= kHashCacheEntries) hash_cache_.clear();
    hash_cache_[{id->device, id->inode}] = {*id, hex};
  }
  return hex;
}

std::expected<std::optional<WorkflowGraph>, ToolError> ToolHost::LoadGraph() {
  const MountPath graph_path{Mount::kPkg, {"workflow.graph.json"}};
  auto file = sandbox_.OpenFile(graph_path);
  if (!file) {
    if (file.error().kind == SandboxErrorKind::kNotFound) return std::optional<WorkflowGraph>{};
    if (file.error().kind == SandboxErrorKind::kUnmounted) {
      return std::optional<WorkflowGraph>{};  // no package mounted
    }
    return std::unexpected(FromSandbox(file.error()));
  }
  auto text = detail::ReadAll(**file, limits_.max_file_bytes, graph_path);
  if (!text) return std::unexpected(text.error());
  auto graph = ParseWorkflowGraph(*text);
  if (!graph) return detail::Fail(ToolErrorCode::kInternal, "@pkg/" + graph.error().message);
  return std::optional<WorkflowGraph>{std::move(*graph)};
}

std::optional<ToolError> ToolHost::GuardState(const MountPath& requested, const MountPath& physical,
                                              std::optional<std::string_view> old_text,
                                              std::string_view new_text) {
  if (!detail::IsStateFile(requested) && !detail::IsStateFile(physical)) return std::nullopt;
  auto graph = LoadGraph();
  if (!graph) return graph.error();
  return CheckStateChange(old_text, new_text, *graph ? &**graph : nullptr);
}

}  // namespace llmconform::toolcalls
