// Reading tool arguments with errors a model can act on:
// E_SCHEMA_VALIDATION "argument path: expected string, got number".
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/toolcalls/mount_path.h"
#include "protocols/toolcalls/tool_error.h"

namespace llmconform::toolcalls {

std::expected<std::string, ToolError> RequireStringArg(const OJson& args, std::string_view key);
std::expected<std::optional<std::string>, ToolError> OptionalStringArg(const OJson& args,
                                                                       std::string_view key);
// An integer in [min, max]; absent or null gives nullopt.
std::expected<std::optional<std::int64_t>, ToolError> OptionalIntArg(const OJson& args,
                                                                     std::string_view key,
                                                                     std::int64_t min,
                                                                     std::int64_t max);
// The `key` argument as a mount path; E_SANDBOX_VIOLATION when it is not one.
std::expected<MountPath, ToolError> PathArg(const OJson& args, std::string_view key = "path");

}  // namespace llmconform::toolcalls
