#include "protocols/toolcalls/tool_support.h"

#include <array>
#include <utility>

#include "base/format.h"
#include "protocols/toolcalls/tool_host.h"

namespace llmconform::toolcalls::detail {

std::unexpected<ToolError> Fail(ToolErrorCode code, std::string message, OJson details) {
  return std::unexpected(ToolError{code, std::move(message), std::move(details)});
}

ToolError InternalError(const MountPath& shown, std::string_view message) {
  return {ToolErrorCode::kInternal, Format("{}: {}", shown.Display(), message)};
}

ToolError NotRegularFile(const MountPath& path) {
  return FromSandbox(
      {SandboxErrorKind::kNotRegular, Format("{} is not a regular file", path.Display())});
}

std::optional<ToolError> RefuseReadOnly(const MountPath& path, std::string_view tool) {
  if (path.mount != Mount::kPkg) return std::nullopt;
  return ToolError{ToolErrorCode::kSandboxViolation,
                   Format("@pkg is read-only: {} to {} refused", tool, path.Display())};
}

std::optional<ToolError> CheckIfMatch(const MountPath& path,
                                      const std::optional<std::string>& if_match,
                                      const std::optional<std::string>& current) {
  if (!if_match || if_match == current) return std::nullopt;
  return ToolError{
      ToolErrorCode::kPreconditionFailed,
      Format("ifMatchSha256 does not match the current content of {}", path.Display()),
      OJson{{"expected", *if_match}, {"actual", current ? OJson(*current) : OJson(nullptr)}}};
}

bool IsStateFile(const MountPath& p) {
  return p.mount == Mount::kState && p.segments.size() == 1 && p.segments[0] == "workflow.md";
}

std::expected<std::string, ToolError> ReadAll(File& file, std::uint64_t max,
                                              const MountPath& shown) {
  std::string out;
  std::array<char, 64 * 1024> buf;
  for (;;) {
    auto n = file.ReadAt(out.size(), buf);
    if (!n) return std::unexpected(InternalError(shown, n.error().message));
    if (*n == 0) return out;
    if (out.size() + *n > max) {
      return Fail(ToolErrorCode::kReadLimit,
                  Format("{} is larger than {} bytes", shown.Display(), max),
                  OJson{{"maxBytes", max}});
    }
    out.append(buf.data(), *n);
  }
}

}  // namespace llmconform::toolcalls::detail
