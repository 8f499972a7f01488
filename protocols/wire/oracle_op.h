// One operation of the JSON oracle (`llmconform ref OP`): a reference function
// callable from any language, one JSON document in, one out.
//
// Each protocol library exposes its operations as a function returning a
// vector of these (e.g. `multiturn::OracleOps()`); harness/oracle.cpp lists
// them all in one table. Names and JSON field names keep the seeds' spelling.
#pragma once

#include <expected>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform {

struct OracleOp {
  std::string_view name;     // "multiturn.buildLLMMessages"
  std::string_view summary;  // one line for `llmconform ref --list`
  // Input: the parsed stdin document. Output: the result document, also for
  // input that is invalid *for the protocol* (the result says so). An Error
  // only for input the operation cannot take at all — a missing field, a
  // wrong type — which `ref` reports on stderr as {"error": message}, exit 2.
  std::function<std::expected<nlohmann::json, Error>(const nlohmann::json&)> run;
  // The text `ref` writes for an output of `run`, for an operation whose
  // output holds what a JSON value cannot (a number spelled beyond a double:
  // action.parse's args). Compact, one line; unset: the output dumped
  // compactly with invalid UTF-8 replaced. Parsed, it equals the output.
  std::function<std::string(const nlohmann::json&)> write;
};

// The operation of `ops` called `name`, or nullptr. The pointer is into `ops`.
inline const OracleOp* FindOracleOp(std::span<const OracleOp> ops, std::string_view name) {
  for (const auto& op : ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// The operation of `ops` called `name`; throws std::out_of_range when there is
// none (for tests and tables that know the name exists).
inline const OracleOp& OracleOpNamed(std::span<const OracleOp> ops, std::string_view name) {
  if (const OracleOp* op = FindOracleOp(ops, name)) return *op;
  throw std::out_of_range("no oracle operation " + std::string(name));
}

}  // namespace llmconform
