// The protocol suites the harness knows, in one table.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "harness/suite.h"

namespace llmconform::harness {

struct SuiteKind {
  std::string_view protocol;
  std::unique_ptr<ProtocolSuite> (*make)();
};

std::span<const SuiteKind> Suites();
// Nullptr when no suite drives that protocol.
const SuiteKind* FindSuite(std::string_view protocol);

}  // namespace llmconform::harness
