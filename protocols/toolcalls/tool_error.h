// ToolError and the ToolResult JSON shapes of seed 001 §6.
//
// Results are nlohmann::ordered_json so that they serialise with their
// fields in the seed's order ({"ok":true,"path":…}), as JSON.stringify would.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/json.h"

namespace llmconform::toolcalls {

// §6.1, closed.
enum class ToolErrorCode {
  kNotFound,            // ENOENT
  kSandboxViolation,    // E_SANDBOX_VIOLATION
  kReadLimit,           // E_READ_LIMIT
  kWriteLimit,          // E_WRITE_LIMIT
  kInvalidFrontmatter,  // E_INVALID_FRONTMATTER
  kSchemaValidation,    // E_SCHEMA_VALIDATION
  kInvalidTransition,   // E_INVALID_TRANSITION
  kPreconditionFailed,  // E_PRECONDITION_FAILED
  kInternal,            // E_INTERNAL
};

// "ENOENT", "E_SANDBOX_VIOLATION", …
std::string_view ToolErrorCodeName(ToolErrorCode code);

struct ToolError {
  ToolErrorCode code = ToolErrorCode::kInternal;
  std::string message;
  OJson details = nullptr;  // an object, or null for none
};

// {"ok":false,"error":{"code","message","details"?}}.
OJson ErrorResult(const ToolError& e);

// nlohmann::json <-> ordered_json (same values; key order sorted or kept).
OJson ToOrdered(const nlohmann::json& j);
nlohmann::json ToPlain(const OJson& j);

}  // namespace llmconform::toolcalls
