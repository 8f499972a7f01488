#include "protocols/toolcalls/tool_error.h"

namespace llmconform::toolcalls {

std::string_view ToolErrorCodeName(ToolErrorCode code) {
  switch (code) {
    case ToolErrorCode::kNotFound:
      return "ENOENT";
    case ToolErrorCode::kSandboxViolation:
      return "E_SANDBOX_VIOLATION";
    case ToolErrorCode::kReadLimit:
      return "E_READ_LIMIT";
    case ToolErrorCode::kWriteLimit:
      return "E_WRITE_LIMIT";
    case ToolErrorCode::kInvalidFrontmatter:
      return "E_INVALID_FRONTMATTER";
    case ToolErrorCode::kSchemaValidation:
      return "E_SCHEMA_VALIDATION";
    case ToolErrorCode::kInvalidTransition:
      return "E_INVALID_TRANSITION";
    case ToolErrorCode::kPreconditionFailed:
      return "E_PRECONDITION_FAILED";
    case ToolErrorCode::kInternal:
      break;
  }
  return "E_INTERNAL";
}

OJson ErrorResult(const ToolError& e) {
  OJson error = {{"code", ToolErrorCodeName(e.code)}, {"message", e.message}};
  if (e.details.is_object()) error["details"] = e.details;
  return OJson{{"ok", false}, {"error", std::move(error)}};
}

namespace {
template <typename To, typename From>
To Convert(const From& j) {
  switch (j.type()) {
    case From::value_t::object: {
      To out = To::object();
      for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = Convert<To>(it.value());
      return out;
    }
    case From::value_t::array: {
      To out = To::array();
      for (const auto& v : j) out.push_back(Convert<To>(v));
      return out;
    }
    case From::value_t::string:
      return j.template get<std::string>();
    case From::value_t::boolean:
      return j.template get<bool>();
    case From::value_t::number_integer:
      return j.template get<std::int64_t>();
    case From::value_t::number_unsigned:
      return j.template get<std::uint64_t>();
    case From::value_t::number_float:
      return j.template get<double>();
    default:
      return nullptr;
  }
}
}  // namespace

OJson ToOrdered(const nlohmann::json& j) { return Convert<OJson>(j); }
nlohmann::json ToPlain(const OJson& j) { return Convert<nlohmann::json>(j); }

}  // namespace llmconform::toolcalls
