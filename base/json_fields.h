// Reading typed fields out of an oracle input or a scenario document with
// errors that say where and what: `field "text": expected string, got number`.
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/json.h"

namespace llmconform {

// `j` must be an object; the field must be present and of the type.
std::expected<std::string, Error> RequireString(const nlohmann::json& j, std::string_view key);
std::expected<std::int64_t, Error> RequireInt(const nlohmann::json& j, std::string_view key);
std::expected<nlohmann::json, Error> RequireArray(const nlohmann::json& j, std::string_view key);
std::expected<nlohmann::json, Error> RequireObject(const nlohmann::json& j, std::string_view key);
// Absent or null → nullopt; present with another type → Error.
std::expected<std::optional<std::string>, Error> OptionalString(const nlohmann::json& j,
                                                                std::string_view key);
std::expected<std::optional<std::int64_t>, Error> OptionalInt(const nlohmann::json& j,
                                                              std::string_view key);
std::expected<std::optional<bool>, Error> OptionalBool(const nlohmann::json& j,
                                                       std::string_view key);
// An error unless `j` is an object: "input: expected object, got array".
std::expected<void, Error> RequireObjectInput(const nlohmann::json& j);

}  // namespace llmconform
