#include "base/json_fields.h"

#include "base/format.h"
#include "base/json.h"

namespace llmconform {
namespace {

std::unexpected<Error> Wrong(std::string_view key, std::string_view expected, const Json& got) {
  return std::unexpected(
      Error{Format("field \"{}\": expected {}, got {}", key, expected, JsonTypeName(got))});
}

std::unexpected<Error> Missing(std::string_view key, std::string_view expected) {
  return std::unexpected(Error{
      Format("field \"{}\": expected {}, got nothing (the field is required)", key, expected)});
}

const Json* Find(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

std::expected<void, Error> RequireObjectInput(const Json& j) {
  if (!j.is_object())
    return std::unexpected(Error{Format("input: expected object, got {}", JsonTypeName(j))});
  return {};
}

std::expected<std::string, Error> RequireString(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v) return Missing(key, "string");
  if (!v->is_string()) return Wrong(key, "string", *v);
  return v->get<std::string>();
}

std::expected<std::int64_t, Error> RequireInt(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v) return Missing(key, "integer");
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (d == static_cast<double>(static_cast<std::int64_t>(d))) return static_cast<std::int64_t>(d);
  }
  return Wrong(key, "integer", *v);
}

std::expected<Json, Error> RequireArray(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v) return Missing(key, "array");
  if (!v->is_array()) return Wrong(key, "array", *v);
  return *v;
}

std::expected<Json, Error> RequireObject(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v) return Missing(key, "object");
  if (!v->is_object()) return Wrong(key, "object", *v);
  return *v;
}

std::expected<std::optional<std::string>, Error> OptionalString(const Json& j,
                                                                std::string_view key) {
  const Json* v = Find(j, key);
  if (!v || v->is_null()) return std::optional<std::string>{};
  if (!v->is_string()) return Wrong(key, "string", *v);
  return std::optional<std::string>{v->get<std::string>()};
}

std::expected<std::optional<std::int64_t>, Error> OptionalInt(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v || v->is_null()) return std::optional<std::int64_t>{};
  auto r = RequireInt(j, key);
  if (!r) return std::unexpected(r.error());
  return std::optional<std::int64_t>{*r};
}

std::expected<std::optional<bool>, Error> OptionalBool(const Json& j, std::string_view key) {
  const Json* v = Find(j, key);
  if (!v || v->is_null()) return std::optional<bool>{};
  if (!v->is_boolean()) return Wrong(key, "boolean", *v);
  return std::optional<bool>{v->get<bool>()};
}

}  // namespace llmconform
