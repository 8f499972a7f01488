// ToolHost: the five `fs.*` tools of seed 001 §6 over the sandbox, with the
// workflow-state guard and the audit log.
//
// Tools: fs.read {path, startLine?, endLine?}, fs.list {path}, fs.search
// {query, path?, maxMatches?, before?, after?}, fs.write {path, content,
// ifMatchSha256?}, fs.apply_patch {path, operation:"updateFrontmatter",
// update, ifMatchSha256?}. Their wire names fs_read … fs_apply_patch are
// accepted as well. Every call returns a ToolResult in the shape of §6 —
// never throws, never fails otherwise — and appends one JSON line to
// @state/logs/execution.jsonl:
//   {"time","toolCallId","tool","args","ok","errorCode","durationMs",
//    "sha256Before","sha256After"}
// where string arguments over 1024 bytes are replaced by
// {"elidedBytes":N,"sha256":H}.
//
// Behaviour (docs/protocols.md "toolcalls"):
// - fs.read: 1-based inclusive line window; content over maxReadBytes gives
//   truncated:true with contentPreview (the first maxReadBytes bytes, cut at
//   a UTF-8 boundary) and a hint; `bytes` and `sha256` are those of the
//   whole file. Hashes are cached by file identity (device, inode, size,
//   mtime, ctime), so a truncated read of a large unchanged file reads only
//   its head. Invalid UTF-8 is replaced by U+FFFD. Files over maxFileBytes:
//   E_READ_LIMIT.
// - fs.list: sorted names, folders with a trailing '/', hidden entries
//   skipped; more than maxListEntries gives entriesPreview and truncated.
// - fs.search: a substring, or /regex/ with optional flag i (RE2 syntax,
//   linear time; lookaround and backreferences are refused with
//   E_SCHEMA_VALIDATION naming the construct); one match a line, `column`
//   1-based in code points; before/after context lines (default 1);
//   maxMatches (default 50) with truncated; stats count
//   the files read and all matches found. Skips hidden folders, .git,
//   node_modules, symlinks, fifos and devices, hard-linked files, binary
//   files (a NUL in the first 8 KiB) and files over maxFileBytes; lines in results are cut to
//   maxLineBytes.
// - fs.write: atomic replace; parent folders created; over maxWriteBytes:
//   E_WRITE_LIMIT; ifMatchSha256 must equal the current file's hash
//   (E_PRECONDITION_FAILED, also when the file does not exist).
// - fs.apply_patch: updateFrontmatter (workflow_state.h) on a Markdown file
//   with front matter.
// - Fifos, sockets, devices and regular files with more than one hard link
//   are never read or written: E_SANDBOX_VIOLATION with details.reason
//   "notRegularFile" or "hardLinked" (seed 001 §6.1's codes are closed; a
//   hard link is a name the path checks cannot see through, so it is treated
//   as a way out of the mount). The audit log is appended only under its own
//   name (no symlink), opened O_NOFOLLOW, and only while it is a regular file
//   with one link; otherwise audit_error() says why and nothing is written.
// - Any write or patch under @pkg: E_SANDBOX_VIOLATION. A write or patch that
//   reaches @state/workflow.md (by its path or through a symlink) passes
//   CheckStateChange against @pkg/workflow.graph.json when the package has
//   one. A refused change leaves every file as it was.
// - Bad arguments (missing, wrong type, unknown tool, arguments that are not
//   a JSON object): E_SCHEMA_VALIDATION naming the argument.
//
// Not thread-safe: tool calls run one after another.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "protocols/toolcalls/clock.h"
#include "protocols/toolcalls/sandbox.h"
#include "protocols/toolcalls/tool_error.h"
#include "protocols/toolcalls/workflow_graph.h"

namespace llmconform::toolcalls {

struct Limits {
  std::uint64_t max_read_bytes = 50'000;
  std::uint64_t max_write_bytes = 100'000;
  std::size_t max_list_entries = 200;
  std::size_t max_matches = 50;
  int context_lines = 1;
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;
  std::size_t max_line_bytes = 500;
};

// {"maxReadBytes","maxWriteBytes","maxListEntries","maxMatches",
//  "contextLines","maxFileBytes","maxLineBytes"}, each optional, over the
// defaults; a value that is not a positive integer is an Error.
std::expected<Limits, Error> LimitsFromJson(const nlohmann::json& j);

enum class Tool { kRead, kList, kSearch, kWrite, kApplyPatch };

inline constexpr Tool kAllTools[] = {Tool::kRead, Tool::kList, Tool::kSearch, Tool::kWrite,
                                     Tool::kApplyPatch};

// "fs.read" or "fs_read" (and so on); nullopt for anything else.
std::optional<Tool> ToolFromName(std::string_view name);
std::string_view ToolName(Tool t);      // "fs.read"
std::string_view WireToolName(Tool t);  // "fs_read"

// What one tool call did: for EngineTurn.toolRuns and the audit log.
struct ToolRun {
  std::string tool_call_id;
  std::string tool;  // as the model named it
  OJson args;        // the parsed arguments (the raw text when they did not parse)
  OJson result;      // the ToolResult
  double duration_ms = 0;
  std::optional<std::string> sha256_before;
  std::optional<std::string> sha256_after;
};

// A sandbox error as the model sees it: a path outside its mount, a fifo,
// socket or device (details {"reason":"notRegularFile"}) and a file with more
// than one hard link ({"reason":"hardLinked"}) are E_SANDBOX_VIOLATION; a
// missing entry or one of the wrong kind ENOENT; anything else E_INTERNAL.
ToolError FromSandbox(const SandboxError& e);
// A filesystem error met on `path` after the sandbox resolved it: the two
// kinds of file the sandbox refuses are violations, the rest `otherwise`.
ToolError FromFs(const FsError& e, const MountPath& path, ToolErrorCode otherwise);

class ToolHost {
 public:
  // `sandbox` and `clock` must outlive the host.
  ToolHost(Sandbox& sandbox, Clock& clock, Limits limits = {});

  // Runs a call whose arguments are JSON text, as a model writes them.
  ToolRun Run(std::string_view tool_call_id, std::string_view tool,
              std::string_view arguments_json);
  // Runs a call with parsed arguments.
  ToolRun Run(std::string_view tool_call_id, std::string_view tool, const OJson& arguments);

  // Restricts the tools a call may use (the agent's tool policy); a call to
  // another one is answered E_SCHEMA_VALIDATION (and audited). All five by
  // default.
  void SetEnabledTools(std::vector<Tool> tools) { enabled_ = std::move(tools); }

  // Why the last audit line could not be written; "" when it was.
  const std::string& audit_error() const { return audit_error_; }
  const Limits& limits() const { return limits_; }
  Sandbox& sandbox() { return sandbox_; }

 private:
  struct Hashes {
    std::optional<std::string> before;
    std::optional<std::string> after;
  };
  OJson Dispatch(Tool tool, const OJson& args, Hashes& hashes);
  OJson Read(const OJson& args, Hashes& hashes);
  OJson List(const OJson& args);
  OJson Search(const OJson& args);
  OJson Write(const OJson& args, Hashes& hashes);
  OJson ApplyPatch(const OJson& args, Hashes& hashes);
  ToolRun Finish(ToolRun run, std::chrono::steady_clock::time_point started, const Hashes& hashes);
  // The sha256 of the open file; with `cached`, from the cache when its
  // identity is unchanged (preconditions always hash afresh).
  std::expected<std::string, ToolError> HashOf(File& file, const MountPath& shown,
                                               bool cached = true);
  // Loads @pkg/workflow.graph.json when the package has one.
  std::expected<std::optional<WorkflowGraph>, ToolError> LoadGraph();
  std::optional<ToolError> GuardState(const MountPath& requested, const MountPath& physical,
                                      std::optional<std::string_view> old_text,
                                      std::string_view new_text);
  void Audit(const ToolRun& run);

  Sandbox& sandbox_;
  Clock& clock_;
  Limits limits_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::pair<FileIdentity, std::string>>
      hash_cache_;
  std::string audit_error_;
  std::vector<Tool> enabled_{std::begin(kAllTools), std::end(kAllTools)};
};

}  // namespace llmconform::toolcalls
