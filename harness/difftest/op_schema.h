// specs/oracle/<op>.json: the JSON Schemas of an oracle operation's input and
// output, the pointers of its verdict fields, and example inputs.
//
//   {"$schema", "op", "description", "input": {schema}, "output": {schema},
//    "compare": ["/text", "/findings/*/rule", …], "examples": [input, …]}
//
// A compare pointer is a JSON pointer (RFC 6901) in which a "*" token stands
// for every element of an array: "/findings/*/rule" selects the list of rule
// ids. Diagnostics (findings' messages, line numbers) are left out of
// "compare", so an implementation is judged on its verdict only.
#pragma once

#include <expected>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace llmconform::harness::difftest {

struct OpSchema {
  std::string op;
  std::vector<std::string> compare;
  nlohmann::json doc;  // the whole file
};

// Reads `specs_dir`/oracle/`op`.json. Errors are located and say what is
// missing ("specs/oracle/x.json: no such file; …", "…:1:1: \"compare\": …").
std::expected<OpSchema, Error> LoadOpSchema(const std::filesystem::path& specs_dir,
                                            std::string_view op);

// Errors for a compare pointer that is not a JSON pointer ("" and "/a/*/b" are).
std::expected<void, Error> CheckComparePointer(std::string_view pointer);

// The value `pointer` selects in `doc`; a "*" token maps over an array (the
// result is the array of what each element yields, elements yielding nothing
// left out). Nullopt when nothing is there.
std::optional<nlohmann::json> Select(const nlohmann::json& doc, std::string_view pointer);

// The pointers of `compare` at which `expected` and `actual` differ (absent
// on one side and present on the other is a difference).
std::vector<std::string> DifferingPointers(const nlohmann::json& expected,
                                           const nlohmann::json& actual,
                                           const std::vector<std::string>& compare);

}  // namespace llmconform::harness::difftest
