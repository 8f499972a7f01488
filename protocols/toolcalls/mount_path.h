// Mount paths, the only paths a model can name: `@project/…` (read-write),
// `@pkg/…` (read-only) and `@state/…` (read-write), docs/protocols.md "toolcalls".
//
// ParseMountPath is lexical and strict: a path that is not under one of the
// three mounts, is absolute, holds a `..` segment anywhere, a NUL, a
// backslash, or is overlong (over kMaxPathBytes, or a segment over
// kMaxSegmentBytes) is refused with the reason. Empty and "." segments are
// dropped ("@project//a/./b/" names "@project/a/b").
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::toolcalls {

enum class Mount { kProject, kPkg, kState };

inline constexpr std::size_t kMaxPathBytes = 4096;
inline constexpr std::size_t kMaxSegmentBytes = 255;

// "@project", "@pkg", "@state".
std::string_view MountName(Mount m);

struct MountPath {
  Mount mount = Mount::kProject;
  std::vector<std::string> segments;  // each non-empty, never "." or ".."

  // "@project/artifacts/a.md"; the bare mount for the root ("@project").
  std::string Display() const;
  friend bool operator==(const MountPath&, const MountPath&) = default;
};

// The reason is a sentence for the model: "path must not contain a '..'
// segment: @project/../x".
std::expected<MountPath, std::string> ParseMountPath(std::string_view text);

}  // namespace llmconform::toolcalls
