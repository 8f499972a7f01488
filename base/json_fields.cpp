#include "base/json_fields.h"

#include <cmath>
#include <cstdint>

#include "base/format.h"
#include "base/json.h"

namespace llmconform {
namespace {

// Each reader below is written once over `Named`: the field's value and its
// JSON pointer ("/history/2/role"; "/text" for the plain readers, which read
// from the root), which every error carries.
struct Named {
  const Json* value;  // nullptr when absent
  std::string pointer;
};

Named Located(const Json& j, const JsonPointer& at, std::string_view key) {
  const Json* v = nullptr;
  if (j.is_object()) {
    auto it = j.find(key);
    if (it != j.end()) v = &*it;
  }
  return {v, (at / std::string(key)).to_string()};
}

Named Plain(const Json& j, std::string_view key) { return Located(j, JsonPointer(), key); }

std::unexpected<Error> Wrong(const Named& f, std::string_view expected) {
  return std::unexpected(
      Error::AtPointer(f.pointer, Format("expected {}, got {}", expected, JsonTypeName(*f.value))));
}

std::unexpected<Error> Missing(const Named& f, std::string_view expected) {
  return std::unexpected(Error::AtPointer(
      f.pointer, Format("expected {}, got nothing (the field is required)", expected)));
}

std::expected<std::string, Error> String(const Named& f) {
  if (!f.value) return Missing(f, "string");
  if (!f.value->is_string()) return Wrong(f, "string");
  return f.value->get<std::string>();
}

std::expected<std::int64_t, Error> Int(const Named& f) {
  if (!f.value) return Missing(f, "integer");
  const Json& v = *f.value;
  // Within 64 signed bits only: 2^64 - 1 must not come back as -1, nor a
  // float past 2^63 be cast (undefined behaviour).
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      return v.get<std::int64_t>();
    return Wrong(f, "integer within 64 bits");
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!(d >= -0x1p63 && d < 0x1p63)) return Wrong(f, "integer within 64 bits");
    if (d == std::trunc(d)) return static_cast<std::int64_t>(d);
  }
  return Wrong(f, "integer");
}

std::expected<Json, Error> Array(const Named& f) {
  if (!f.value) return Missing(f, "array");
  if (!f.value->is_array()) return Wrong(f, "array");
  return *f.value;
}

std::expected<Json, Error> Object(const Named& f) {
  if (!f.value) return Missing(f, "object");
  if (!f.value->is_object()) return Wrong(f, "object");
  return *f.value;
}

bool Absent(const Named& f) { return !f.value || f.value->is_null(); }

std::expected<std::optional<std::string>, Error> MaybeString(const Named& f) {
  if (Absent(f)) return std::optional<std::string>{};
  auto s = String(f);
  if (!s) return std::unexpected(s.error());
  return std::optional<std::string>{std::move(*s)};
}

std::expected<std::optional<std::int64_t>, Error> MaybeInt(const Named& f) {
  if (Absent(f)) return std::optional<std::int64_t>{};
  auto r = Int(f);
  if (!r) return std::unexpected(r.error());
  return std::optional<std::int64_t>{*r};
}

std::expected<std::optional<bool>, Error> MaybeBool(const Named& f) {
  if (Absent(f)) return std::optional<bool>{};
  if (!f.value->is_boolean()) return Wrong(f, "boolean");
  return std::optional<bool>{f.value->get<bool>()};
}

}  // namespace

std::expected<void, Error> RequireObjectInput(const Json& j) {
  return RequireObjectAt(j, JsonPointer());
}

std::expected<std::string, Error> RequireString(const Json& j, std::string_view key) {
  return String(Plain(j, key));
}

std::expected<std::int64_t, Error> RequireInt(const Json& j, std::string_view key) {
  return Int(Plain(j, key));
}

std::expected<Json, Error> RequireArray(const Json& j, std::string_view key) {
  return Array(Plain(j, key));
}

std::expected<Json, Error> RequireObject(const Json& j, std::string_view key) {
  return Object(Plain(j, key));
}

std::expected<std::optional<std::string>, Error> OptionalString(const Json& j,
                                                                std::string_view key) {
  return MaybeString(Plain(j, key));
}

std::expected<std::optional<std::int64_t>, Error> OptionalInt(const Json& j, std::string_view key) {
  return MaybeInt(Plain(j, key));
}

std::expected<std::optional<bool>, Error> OptionalBool(const Json& j, std::string_view key) {
  return MaybeBool(Plain(j, key));
}

Error ErrorAt(const JsonPointer& at, std::string_view what) {
  return Error::AtPointer(at.to_string(), std::string(what));
}

std::expected<void, Error> RequireObjectAt(const Json& j, const JsonPointer& at) {
  if (!j.is_object())
    return std::unexpected(ErrorAt(at, Format("expected object, got {}", JsonTypeName(j))));
  return {};
}

std::expected<std::string, Error> RequireString(const Json& j, const JsonPointer& at,
                                                std::string_view key) {
  return String(Located(j, at, key));
}

std::expected<std::int64_t, Error> RequireInt(const Json& j, const JsonPointer& at,
                                              std::string_view key) {
  return Int(Located(j, at, key));
}

std::expected<Json, Error> RequireArray(const Json& j, const JsonPointer& at,
                                        std::string_view key) {
  return Array(Located(j, at, key));
}

std::expected<Json, Error> RequireObject(const Json& j, const JsonPointer& at,
                                         std::string_view key) {
  return Object(Located(j, at, key));
}

std::expected<std::optional<Json>, Error> OptionalObject(const Json& j, const JsonPointer& at,
                                                         std::string_view key) {
  const Named f = Located(j, at, key);
  if (Absent(f)) return std::optional<Json>{};
  auto o = Object(f);
  if (!o) return std::unexpected(o.error());
  return std::optional<Json>{std::move(*o)};
}

std::expected<std::optional<std::string>, Error> OptionalString(const Json& j,
                                                                const JsonPointer& at,
                                                                std::string_view key) {
  return MaybeString(Located(j, at, key));
}

std::expected<std::optional<std::int64_t>, Error> OptionalInt(const Json& j, const JsonPointer& at,
                                                              std::string_view key) {
  return MaybeInt(Located(j, at, key));
}

std::expected<std::optional<bool>, Error> OptionalBool(const Json& j, const JsonPointer& at,
                                                       std::string_view key) {
  return MaybeBool(Located(j, at, key));
}

std::expected<std::optional<std::vector<std::string>>, Error> OptionalStrings(
    const Json& j, const JsonPointer& at, std::string_view key) {
  const Named f = Located(j, at, key);
  if (Absent(f)) return std::optional<std::vector<std::string>>{};
  if (!f.value->is_array()) return Wrong(f, "array");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < f.value->size(); ++i) {
    const Json& item = (*f.value)[i];
    if (!item.is_string()) {
      return std::unexpected(ErrorAt(at / std::string(key) / i,
                                     Format("expected string, got {}", JsonTypeName(item))));
    }
    out.push_back(item.get<std::string>());
  }
  return std::optional<std::vector<std::string>>{std::move(out)};
}

const nlohmann::json& MemberOf(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(std::string(key));
  return it == j.end() ? kNull : *it;
}

const nlohmann::json& ElementOf(const nlohmann::json& j, std::size_t i) {
  static const nlohmann::json kNull;
  return j.is_array() && i < j.size() ? j[i] : kNull;
}

std::string StringOf(const nlohmann::json& j, std::string_view key, std::string fallback) {
  const nlohmann::json& v = MemberOf(j, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

const nlohmann::json& ArrayOf(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json& v = MemberOf(j, key);
  return v.is_array() ? v : kEmpty;
}

}  // namespace llmconform
