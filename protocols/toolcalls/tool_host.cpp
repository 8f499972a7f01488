#include "protocols/toolcalls/tool_host.h"

#include <algorithm>
#include <array>
#include <vector>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/workflow_state.h"
#include "protocols/wire/chat.h"

namespace llmconform::toolcalls {
namespace {

constexpr std::size_t kChunk = 256 * 1024;
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

std::unexpected<ToolError> Fail(ToolErrorCode code, std::string message, OJson details = nullptr) {
  return std::unexpected(ToolError{code, std::move(message), std::move(details)});
}

bool IsStateFile(const MountPath& p) {
  return p.mount == Mount::kState && p.segments.size() == 1 && p.segments[0] == "workflow.md";
}

// Reads the whole open file, refusing more than `max` bytes.
std::expected<std::string, ToolError> ReadAll(File& file, std::uint64_t max,
                                              const MountPath& shown) {
  std::string out;
  std::array<char, 64 * 1024> buf;
  for (;;) {
    auto n = file.ReadAt(out.size(), buf);
    if (!n)
      return Fail(ToolErrorCode::kInternal, Format("{}: {}", shown.Display(), n.error().message));
    if (*n == 0) return out;
    if (out.size() + *n > max) {
      return Fail(ToolErrorCode::kReadLimit,
                  Format("{} is larger than {} bytes", shown.Display(), max),
                  OJson{{"maxBytes", max}});
    }
    out.append(buf.data(), *n);
  }
}

// Collects the bytes of lines [first, last] (1-based), stopping once more
// than `limit` bytes are held.
class LineWindow {
 public:
  LineWindow(std::int64_t first, std::int64_t last, std::uint64_t limit)
      : first_(first), last_(last), limit_(limit) {}
  bool done() const { return done_; }
  bool overflow() const { return overflow_; }
  const std::string& text() const { return out_; }
  void Feed(std::string_view chunk) {
    std::size_t i = 0;
    while (i < chunk.size() && !done_) {
      const std::size_t nl = chunk.find('\n', i);
      const std::size_t stop = nl == std::string_view::npos ? chunk.size() : nl + 1;
      if (line_ >= first_) {
        out_.append(chunk.substr(i, stop - i));
        if (out_.size() > limit_) overflow_ = done_ = true;
      }
      if (nl != std::string_view::npos && ++line_ > last_) done_ = true;
      i = stop;
    }
  }

 private:
  std::int64_t first_, last_;
  std::uint64_t limit_;
  std::int64_t line_ = 1;
  std::string out_;
  bool done_ = false;
  bool overflow_ = false;
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
  if (e.kind == FsErrorKind::kNotRegular) {
    return FromSandbox(
        {SandboxErrorKind::kNotRegular, Format("{} is not a regular file", path.Display())});
  }
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
    return std::unexpected(Error{Format("limits: expected object, got {}", JsonTypeName(j))});
  auto take = [&](const char* key, auto& field) -> std::expected<void, Error> {
    auto it = j.find(key);
    if (it == j.end()) return {};
    if (!it->is_number_integer() ||
        it->get<std::int64_t>() < (std::string_view(key) == "contextLines" ? 0 : 1)) {
      return std::unexpected(
          Error{Format("limits.{}: expected a positive integer, got {}", key, it->dump())});
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
  auto appended = where->parent->Append(
      where->name, line.dump(-1, ' ', false, OJson::error_handler_t::replace) + "\n");
  audit_error_ = appended ? "" : "@state/logs/execution.jsonl: " + appended.error().message;
}

std::expected<std::string, ToolError> ToolHost::HashOf(File& file, const MountPath& shown,
                                                       bool cached) {
  auto id = file.Identity();
  if (!id)
    return Fail(ToolErrorCode::kInternal, Format("{}: {}", shown.Display(), id.error().message));
  auto it = hash_cache_.find({id->device, id->inode});
  if (cached && it != hash_cache_.end() && it->second.first == *id) return it->second.second;
  Sha256 h;
  std::vector<char> buf(kChunk);
  std::uint64_t offset = 0;
  for (;;) {
    auto n = file.ReadAt(offset, buf);
    if (!n)
      return Fail(ToolErrorCode::kInternal, Format("{}: {}", shown.Display(), n.error().message));
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

OJson ToolHost::Read(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  auto first = OptionalIntArg(args, "startLine", 1, INT64_MAX);
  if (!first) return ErrorResult(first.error());
  auto last = OptionalIntArg(args, "endLine", 1, INT64_MAX);
  if (!last) return ErrorResult(last.error());
  const std::int64_t from = first->value_or(1);
  const std::int64_t to = last->value_or(INT64_MAX);
  if (to < from) {
    return ErrorResult(
        {ToolErrorCode::kSchemaValidation,
         Format("argument endLine: expected at least startLine ({}), got {}", from, to),
         OJson{{"field", "endLine"}}});
  }
  auto file = sandbox_.OpenFile(*path);
  if (!file) return ErrorResult(FromSandbox(file.error()));
  auto id = (*file)->Identity();
  if (!id)
    return ErrorResult(
        {ToolErrorCode::kInternal, Format("{}: {}", path->Display(), id.error().message)});
  if (id->size > limits_.max_file_bytes) {
    return ErrorResult({ToolErrorCode::kReadLimit,
                        Format("{} is {} bytes, over the limit of {} bytes that fs.read opens",
                               path->Display(), id->size, limits_.max_file_bytes),
                        OJson{{"bytes", id->size}, {"maxFileBytes", limits_.max_file_bytes}}});
  }
  auto hash = HashOf(**file, *path);
  if (!hash) return ErrorResult(hash.error());
  hashes.before = hashes.after = *hash;

  LineWindow window(from, to, limits_.max_read_bytes);
  std::vector<char> buf(std::min<std::uint64_t>(kChunk, limits_.max_read_bytes + 1 + 4096));
  std::uint64_t offset = 0;
  while (!window.done()) {
    auto n = (*file)->ReadAt(offset, buf);
    if (!n)
      return ErrorResult(
          {ToolErrorCode::kInternal, Format("{}: {}", path->Display(), n.error().message)});
    if (*n == 0) break;
    window.Feed(std::string_view(buf.data(), *n));
    offset += *n;
  }
  OJson out = {{"ok", true}, {"path", path->Display()}, {"bytes", id->size}, {"sha256", *hash}};
  if (!window.overflow()) {
    out["truncated"] = false;
    out["content"] = ToValidUtf8(window.text());
    return out;
  }
  const std::string& text = window.text();
  const std::size_t cut = Utf8Prefix(text, limits_.max_read_bytes);
  out["truncated"] = true;
  out["contentPreview"] = ToValidUtf8(std::string_view(text).substr(0, cut));
  if (first->has_value() || last->has_value()) {
    out["hint"] = Format(
        "Lines {} to {} hold more than maxReadBytes={} bytes; contentPreview holds the first {} "
        "bytes. Read a smaller window with startLine and endLine.",
        from, last->has_value() ? Format("{}", to) : std::string("the end"), limits_.max_read_bytes,
        cut);
  } else {
    out["hint"] = Format(
        "The file is {} bytes, over maxReadBytes={}; contentPreview holds the first {} bytes. Use "
        "fs.search to find what you need, then fs.read with startLine and endLine.",
        id->size, limits_.max_read_bytes, cut);
  }
  return out;
}

OJson ToolHost::List(const OJson& args) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  auto dir = sandbox_.OpenDir(*path);
  if (!dir) return ErrorResult(FromSandbox(dir.error()));
  auto entries = (*dir)->List();
  if (!entries) {
    return ErrorResult(
        {ToolErrorCode::kInternal, Format("{}: {}", path->Display(), entries.error().message)});
  }
  std::vector<std::string> names;
  for (const auto& e : *entries) {
    if (e.name.empty() || e.name.front() == '.') continue;
    names.push_back(ToValidUtf8(e.name) + (e.kind == EntryKind::kDirectory ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  OJson out = {{"ok", true}, {"path", path->Display()}};
  if (names.size() <= limits_.max_list_entries) {
    out["entries"] = names;
    out["truncated"] = false;
    return out;
  }
  const std::size_t total = names.size();
  names.resize(limits_.max_list_entries);
  out["entriesPreview"] = names;
  out["truncated"] = true;
  out["hint"] = Format(
      "The folder holds {} entries; entriesPreview shows the first {} by name. List a subfolder or "
      "use fs.search.",
      total, limits_.max_list_entries);
  return out;
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
  auto text = ReadAll(**file, limits_.max_file_bytes, graph_path);
  if (!text) return std::unexpected(text.error());
  auto graph = ParseWorkflowGraph(*text);
  if (!graph) return Fail(ToolErrorCode::kInternal, "@pkg/" + graph.error().message);
  return std::optional<WorkflowGraph>{std::move(*graph)};
}

std::optional<ToolError> ToolHost::GuardState(const MountPath& requested, const MountPath& physical,
                                              std::optional<std::string_view> old_text,
                                              std::string_view new_text) {
  if (!IsStateFile(requested) && !IsStateFile(physical)) return std::nullopt;
  auto graph = LoadGraph();
  if (!graph) return graph.error();
  return CheckStateChange(old_text, new_text, *graph ? &**graph : nullptr);
}

OJson ToolHost::Write(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  if (path->mount == Mount::kPkg) {
    return ErrorResult({ToolErrorCode::kSandboxViolation,
                        Format("@pkg is read-only: fs.write to {} refused", path->Display())});
  }
  auto content = RequireStringArg(args, "content");
  if (!content) return ErrorResult(content.error());
  auto if_match = OptionalStringArg(args, "ifMatchSha256");
  if (!if_match) return ErrorResult(if_match.error());
  if (content->size() > limits_.max_write_bytes) {
    return ErrorResult(
        {ToolErrorCode::kWriteLimit,
         Format("content is {} bytes, over maxWriteBytes={}", content->size(),
                limits_.max_write_bytes),
         OJson{{"bytes", content->size()}, {"maxWriteBytes", limits_.max_write_bytes}}});
  }
  // Look without creating anything: a refused write must change nothing.
  auto where = sandbox_.Resolve(*path);
  std::optional<std::string> old_text;
  MountPath physical = *path;
  if (!where) {
    const SandboxError& e = where.error();
    if (e.kind == SandboxErrorKind::kNotDirectory) {
      return ErrorResult({ToolErrorCode::kPreconditionFailed, e.message});
    }
    if (e.kind != SandboxErrorKind::kNotFound) return ErrorResult(FromSandbox(e));
  } else {
    physical = where->physical;
    if (where->kind == EntryKind::kDirectory || !where->parent) {
      return ErrorResult({ToolErrorCode::kPreconditionFailed,
                          Format("{} is a folder; fs.write replaces files only", path->Display())});
    }
    if (where->kind == EntryKind::kOther) {
      return ErrorResult(FromSandbox(
          {SandboxErrorKind::kNotRegular, Format("{} is not a regular file", path->Display())}));
    }
    if (where->kind == EntryKind::kFile) {
      auto file = where->parent->OpenFile(where->name);
      if (!file) return ErrorResult(FromFs(file.error(), *path, ToolErrorCode::kInternal));
      auto hash = HashOf(**file, *path, /*cached=*/false);
      if (!hash) return ErrorResult(hash.error());
      hashes.before = hashes.after = *hash;
      if (IsStateFile(*path) || IsStateFile(physical)) {
        auto text = ReadAll(**file, limits_.max_file_bytes, *path);
        if (!text) return ErrorResult(text.error());
        old_text = std::move(*text);
      }
    }
  }
  if (*if_match) {
    if (!hashes.before || **if_match != *hashes.before) {
      return ErrorResult(
          {ToolErrorCode::kPreconditionFailed,
           Format("ifMatchSha256 does not match the current content of {}", path->Display()),
           OJson{{"expected", **if_match},
                 {"actual", hashes.before ? OJson(*hashes.before) : OJson(nullptr)}}});
    }
  }
  if (auto e = GuardState(*path, physical, old_text, *content)) return ErrorResult(*e);
  auto target = sandbox_.Resolve(*path, /*create_parents=*/true);
  if (!target) return ErrorResult(FromSandbox(target.error()));
  if (!target->parent) {
    return ErrorResult({ToolErrorCode::kPreconditionFailed,
                        Format("{} is a folder; fs.write replaces files only", path->Display())});
  }
  auto written = target->parent->ReplaceFile(target->name, *content);
  if (!written) {
    if (written.error().kind == FsErrorKind::kIsDirectory) {
      return ErrorResult({ToolErrorCode::kPreconditionFailed,
                          Format("{} is a folder; fs.write replaces files only", path->Display())});
    }
    return ErrorResult(FromFs(written.error(), *path, ToolErrorCode::kInternal));
  }
  const std::string after = Sha256Hex(*content);
  hashes.after = after;
  return OJson{{"ok", true},
               {"path", path->Display()},
               {"bytesWritten", content->size()},
               {"sha256After", after}};
}

OJson ToolHost::ApplyPatch(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  if (path->mount == Mount::kPkg) {
    return ErrorResult(
        {ToolErrorCode::kSandboxViolation,
         Format("@pkg is read-only: fs.apply_patch to {} refused", path->Display())});
  }
  auto operation = RequireStringArg(args, "operation");
  if (!operation) return ErrorResult(operation.error());
  if (*operation != "updateFrontmatter") {
    return ErrorResult({ToolErrorCode::kSchemaValidation,
                        Format("argument operation: expected \"updateFrontmatter\", got \"{}\"",
                               ToValidUtf8(*operation)),
                        OJson{{"field", "operation"}}});
  }
  auto if_match = OptionalStringArg(args, "ifMatchSha256");
  if (!if_match) return ErrorResult(if_match.error());
  auto update_it = args.find("update");
  if (update_it == args.end() || !update_it->is_object()) {
    return ErrorResult(
        {ToolErrorCode::kSchemaValidation,
         Format("argument update: expected object, got {}",
                update_it == args.end() ? std::string_view("nothing") : JsonTypeName(*update_it)),
         OJson{{"field", "update"}}});
  }
  MountPath physical;
  auto file = sandbox_.OpenFile(*path, &physical);
  if (!file) return ErrorResult(FromSandbox(file.error()));
  auto text = ReadAll(**file, limits_.max_file_bytes, *path);
  if (!text) return ErrorResult(text.error());
  const std::string hash = Sha256Hex(*text);
  hashes.before = hashes.after = hash;
  if (*if_match && **if_match != hash) {
    return ErrorResult(
        {ToolErrorCode::kPreconditionFailed,
         Format("ifMatchSha256 does not match the current content of {}", path->Display()),
         OJson{{"expected", **if_match}, {"actual", hash}}});
  }
  const FrontmatterSplit split = SplitFrontmatter(*text);
  if (!split.present) {
    return ErrorResult(
        {ToolErrorCode::kInvalidFrontmatter,
         Format("{} has no YAML front matter between '---' lines", path->Display())});
  }
  auto fm = ParseYamlMapping(split.yaml);
  if (!fm) {
    return ErrorResult({ToolErrorCode::kInvalidFrontmatter,
                        Format("{} front matter: {}", path->Display(), fm.error().message)});
  }
  auto updated = ApplyFrontmatterUpdate(std::move(*fm), *update_it);
  if (!updated) return ErrorResult(updated.error());
  const std::string next = ComposeFrontmatter(*updated, split.body);
  if (next.size() > limits_.max_write_bytes) {
    return ErrorResult({ToolErrorCode::kWriteLimit,
                        Format("the patched file is {} bytes, over maxWriteBytes={}", next.size(),
                               limits_.max_write_bytes),
                        OJson{{"bytes", next.size()}, {"maxWriteBytes", limits_.max_write_bytes}}});
  }
  if (auto e = GuardState(*path, physical, *text, next)) return ErrorResult(*e);
  auto target = sandbox_.Resolve(physical);
  if (!target) return ErrorResult(FromSandbox(target.error()));
  if (!target->parent || target->kind != EntryKind::kFile) {
    return ErrorResult({ToolErrorCode::kPreconditionFailed,
                        Format("{} changed while being patched", path->Display())});
  }
  auto written = target->parent->ReplaceFile(target->name, next);
  if (!written)
    return ErrorResult(
        {ToolErrorCode::kInternal, Format("{}: {}", path->Display(), written.error().message)});
  const std::string after = Sha256Hex(next);
  hashes.after = after;
  return OJson{
      {"ok", true}, {"path", path->Display()}, {"sha256Before", hash}, {"sha256After", after}};
}

}  // namespace llmconform::toolcalls
