// fs.apply_patch: ToolHost::ApplyPatch (contract in tool_host.h).
#include <string>
#include <string_view>
#include <utility>

#include "base/format.h"
#include "base/utf8.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_support.h"
#include "protocols/toolcalls/workflow_state.h"

namespace llmconform::toolcalls {

OJson ToolHost::ApplyPatch(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  if (auto e = detail::RefuseReadOnly(*path, "fs.apply_patch")) return ErrorResult(*e);
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
  auto text = detail::ReadAll(**file, limits_.max_file_bytes, *path);
  if (!text) return ErrorResult(text.error());
  const std::string hash = Sha256Hex(*text);
  hashes.before = hashes.after = hash;
  if (auto e = detail::CheckIfMatch(*path, *if_match, hash)) return ErrorResult(*e);
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
  if (!written) return ErrorResult(detail::InternalError(*path, written.error().message));
  const std::string after = Sha256Hex(next);
  hashes.after = after;
  return OJson{
      {"ok", true}, {"path", path->Display()}, {"sha256Before", hash}, {"sha256After", after}};
}

}  // namespace llmconform::toolcalls
