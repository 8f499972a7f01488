// Internal to the toolcalls tools: what more than one of fs_*.cpp and
// tool_host.cpp needs. Not part of the ToolHost contract (tool_host.h); code
// outside protocols/toolcalls/ has no use for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "protocols/toolcalls/filesystem.h"
#include "protocols/toolcalls/mount_path.h"
#include "protocols/toolcalls/tool_error.h"

namespace llmconform::toolcalls::detail {

// How many bytes a tool reads from a file at a time when it streams it
// (hashing, fs.read's line window).
inline constexpr std::size_t kChunkBytes = 256 * 1024;

// ToolError{code, message, details} as the error of a std::expected.
std::unexpected<ToolError> Fail(ToolErrorCode code, std::string message, OJson details = nullptr);

// E_INTERNAL "<shown>: <message>": an I/O error on a path the sandbox let
// through.
ToolError InternalError(const MountPath& shown, std::string_view message);

// E_SANDBOX_VIOLATION "<path> is not a regular file" with details
// {"reason":"notRegularFile"} (a fifo, socket or device).
ToolError NotRegularFile(const MountPath& path);

// E_SANDBOX_VIOLATION "@pkg is read-only: <tool> to <path> refused" when
// `path` is under @pkg; nullopt elsewhere. For the tools that change files.
std::optional<ToolError> RefuseReadOnly(const MountPath& path, std::string_view tool);

// The ifMatchSha256 precondition: nullopt when `if_match` is absent or equals
// `current` (the file's sha256; nullopt when there is no file); otherwise
// E_PRECONDITION_FAILED with details {"expected": if_match, "actual": current
// or null}.
std::optional<ToolError> CheckIfMatch(const MountPath& path,
                                      const std::optional<std::string>& if_match,
                                      const std::optional<std::string>& current);

// True for @state/workflow.md, the workflow state whose changes
// CheckStateChange guards (as the model named it or as it resolved).
bool IsStateFile(const MountPath& p);

// Reads the whole open file from offset 0. More than `max` bytes:
// E_READ_LIMIT with details {"maxBytes": max}; a read error: E_INTERNAL.
// Messages name the file as `shown`.
std::expected<std::string, ToolError> ReadAll(File& file, std::uint64_t max,
                                              const MountPath& shown);

}  // namespace llmconform::toolcalls::detail
