#include "protocols/toolcalls/tool_args.h"

#include "base/format.h"

namespace llmconform::toolcalls {
namespace {

std::unexpected<ToolError> BadArgument(std::string_view key, std::string message) {
  return std::unexpected(ToolError{ToolErrorCode::kSchemaValidation,
                                   Format("argument {}: {}", key, message), OJson{{"field", key}}});
}

}  // namespace

std::expected<std::string, ToolError> RequireStringArg(const OJson& args, std::string_view key) {
  auto it = args.find(key);
  if (it == args.end())
    return BadArgument(key, "expected string, got nothing (the argument is required)");
  if (!it->is_string())
    return BadArgument(key, Format("expected string, got {}", JsonTypeName(*it)));
  return it->get<std::string>();
}

std::expected<std::optional<std::string>, ToolError> OptionalStringArg(const OJson& args,
                                                                       std::string_view key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string())
    return BadArgument(key, Format("expected string, got {}", JsonTypeName(*it)));
  return std::optional<std::string>{it->get<std::string>()};
}

std::expected<std::optional<std::int64_t>, ToolError> OptionalIntArg(const OJson& args,
                                                                     std::string_view key,
                                                                     std::int64_t min,
                                                                     std::int64_t max) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<std::int64_t>{};
  std::int64_t v = 0;
  if (it->is_number_integer()) {
    v = it->get<std::int64_t>();
  } else if (it->is_number_unsigned()) {
    v = it->get<std::uint64_t>() > static_cast<std::uint64_t>(max) ? max + 1
                                                                   : it->get<std::int64_t>();
  } else if (it->is_number_float() &&
             it->get<double>() ==
                 static_cast<double>(static_cast<std::int64_t>(it->get<double>()))) {
    v = static_cast<std::int64_t>(it->get<double>());
  } else {
    return BadArgument(key, Format("expected integer, got {}", JsonTypeName(*it)));
  }
  if (v < min || v > max)
    return BadArgument(key, Format("expected an integer from {} to {}, got {}", min, max, v));
  return std::optional<std::int64_t>{v};
}

std::expected<MountPath, ToolError> PathArg(const OJson& args, std::string_view key) {
  auto text = RequireStringArg(args, key);
  if (!text) return std::unexpected(text.error());
  auto mp = ParseMountPath(*text);
  if (!mp) {
    return std::unexpected(
        ToolError{ToolErrorCode::kSandboxViolation, mp.error(), OJson{{"field", key}}});
  }
  return *mp;
}

}  // namespace llmconform::toolcalls
