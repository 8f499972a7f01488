#include "harness/suites/registry.h"

#include <array>

#include "harness/suites/multiturn_suite.h"

namespace llmconform::harness {

std::span<const SuiteKind> Suites() {
  static constexpr std::array kSuites = {
      SuiteKind{"multiturn", &MakeMultiturnSuite},
  };
  return kSuites;
}

const SuiteKind* FindSuite(std::string_view protocol) {
  for (const auto& s : Suites()) {
    if (s.protocol == protocol) return &s;
  }
  return nullptr;
}

}  // namespace llmconform::harness
