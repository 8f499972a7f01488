// The protocol suites the harness knows, in one table.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "harness/suite.h"

namespace llmconform::harness {

struct SuiteKind {
  std::string_view protocol;
  std::unique_ptr<ProtocolSuite> (*make)();
  // The rule IDs of the suite's table (harness/suites/rule_table.h): the rules
  // it checks, each once.
  std::vector<std::string_view> (*rule_ids)();
};

std::span<const SuiteKind> Suites();
// Nullptr when no suite drives that protocol.
const SuiteKind* FindSuite(std::string_view protocol);

}  // namespace llmconform::harness
