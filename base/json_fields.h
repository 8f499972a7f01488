// Reading typed fields out of an oracle input or a scenario document with
// errors that say where (Error::pointer) and what:
// `/text: expected string, got number`.
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace llmconform {

// `j` must be an object; the field must be present and of the type. Errors
// point at the field from `j` ("/text").
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
// An error unless `j` is an object: "/: expected object, got array".
std::expected<void, Error> RequireObjectInput(const nlohmann::json& j);

// ---- Located reading, for the readers of a protocol's inputs (FromJson):
// `at` is the JSON pointer of `j` in the document being read (empty for its
// root), and every error names the value by its pointer, with kind
// kInvalidInput: "/history/2/role: expected string, got number",
// "/text: expected string, got nothing (the field is required)".
using JsonPointer = nlohmann::json::json_pointer;

// Error::AtPointer: "POINTER: WHAT" (the root is named "/"), kind kInvalidInput.
Error ErrorAt(const JsonPointer& at, std::string_view what);
// An error unless `j` is an object: "/input: expected object, got array".
std::expected<void, Error> RequireObjectAt(const nlohmann::json& j, const JsonPointer& at);
std::expected<std::string, Error> RequireString(const nlohmann::json& j, const JsonPointer& at,
                                                std::string_view key);
std::expected<std::int64_t, Error> RequireInt(const nlohmann::json& j, const JsonPointer& at,
                                              std::string_view key);
std::expected<nlohmann::json, Error> RequireArray(const nlohmann::json& j, const JsonPointer& at,
                                                  std::string_view key);
std::expected<nlohmann::json, Error> RequireObject(const nlohmann::json& j, const JsonPointer& at,
                                                   std::string_view key);
// Absent or null → nullopt; otherwise an object.
std::expected<std::optional<nlohmann::json>, Error> OptionalObject(const nlohmann::json& j,
                                                                   const JsonPointer& at,
                                                                   std::string_view key);
std::expected<std::optional<std::string>, Error> OptionalString(const nlohmann::json& j,
                                                                const JsonPointer& at,
                                                                std::string_view key);
std::expected<std::optional<std::int64_t>, Error> OptionalInt(const nlohmann::json& j,
                                                              const JsonPointer& at,
                                                              std::string_view key);
std::expected<std::optional<bool>, Error> OptionalBool(const nlohmann::json& j,
                                                       const JsonPointer& at, std::string_view key);
// Absent or null → nullopt; otherwise an array of strings.
std::expected<std::optional<std::vector<std::string>>, Error> OptionalStrings(
    const nlohmann::json& j, const JsonPointer& at, std::string_view key);

// ---- Lenient reading, for rules judging what a client sent or wrote (a
// journal's bodies, a client's outputs): never throws and never asserts
// (nlohmann's value() throws on a non-object or a member of another type,
// and a const operator[] of a missing key is undefined). A value of the
// wrong shape reads as absent, so the rule fails on it by what it expected.
// `j`'s member `key` when `j` is an object that has it, else null.
const nlohmann::json& MemberOf(const nlohmann::json& j, std::string_view key);
// `j`'s element `i` when `j` is an array that long, else null.
const nlohmann::json& ElementOf(const nlohmann::json& j, std::size_t i);
// The member when it is a string, else `fallback`.
std::string StringOf(const nlohmann::json& j, std::string_view key, std::string fallback = "");
// The member when it is an array, else an empty array.
const nlohmann::json& ArrayOf(const nlohmann::json& j, std::string_view key);

}  // namespace llmconform
