// Shared by the dialect detectors' tests: what a detection found, as ids.
#pragma once

#include <string>
#include <vector>

#include "protocols/wire/dialect.h"

namespace llmconform::wire::test_support {

// The ids of `ds`, in the order found.
inline std::vector<std::string> Ids(const std::vector<Deviation>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.id);
  return out;
}

}  // namespace llmconform::wire::test_support
