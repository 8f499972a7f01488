// fs.write: ToolHost::Write (contract in tool_host.h).
#include <optional>
#include <string>
#include <utility>

#include "base/format.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_support.h"

namespace llmconform::toolcalls {

OJson ToolHost::Write(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  if (auto e = detail::RefuseReadOnly(*path, "fs.write")) return ErrorResult(*e);
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
  const auto folder = [&] {
    return ErrorResult({ToolErrorCode::kPreconditionFailed,
                        Format("{} is a folder; fs.write replaces files only", path->Display())});
  };
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
    if (where->kind == EntryKind::kDirectory || !where->parent) return folder();
    if (where->kind == EntryKind::kOther) return ErrorResult(detail::NotRegularFile(*path));
    if (where->kind == EntryKind::kFile) {
      auto file = where->parent->OpenFile(where->name);
      if (!file) return ErrorResult(FromFs(file.error(), *path, ToolErrorCode::kInternal));
      auto hash = HashOf(**file, *path, /*cached=*/false);
      if (!hash) return ErrorResult(hash.error());
      hashes.before = hashes.after = *hash;
      if (detail::IsStateFile(*path) || detail::IsStateFile(physical)) {
        auto text = detail::ReadAll(**file, limits_.max_file_bytes, *path);
        if (!text) return ErrorResult(text.error());
        old_text = std::move(*text);
      }
    }
  }
  if (auto e = detail::CheckIfMatch(*path, *if_match, hashes.before)) return ErrorResult(*e);
  if (auto e = GuardState(*path, physical, old_text, *content)) return ErrorResult(*e);
  auto target = sandbox_.Resolve(*path, /*create_parents=*/true);
  if (!target) return ErrorResult(FromSandbox(target.error()));
  if (!target->parent) return folder();
  auto written = target->parent->ReplaceFile(target->name, *content);
  if (!written) {
    if (written.error().kind == FsErrorKind::kIsDirectory) return folder();
    return ErrorResult(FromFs(written.error(), *path, ToolErrorCode::kInternal));
  }
  const std::string after = Sha256Hex(*content);
  hashes.after = after;
  return OJson{{"ok", true},
               {"path", path->Display()},
               {"bytesWritten", content->size()},
               {"sha256After", after}};
}

}  // namespace llmconform::toolcalls
