// Shared by the suite tests: the bundled specs, loaded once per test program.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

#include "harness/scenario.h"

namespace llmconform::harness {

// specs/ of the source tree; a load error fails the calling test and yields
// an empty set.
inline const SpecSet& BundledSpecs() {
  static const SpecSet specs = [] {
    auto loaded = LoadSpecs(std::filesystem::path(LLMCONFORM_SOURCE_ROOT) / "specs");
    if (!loaded) {
      ADD_FAILURE() << loaded.error().message;
      return SpecSet{};
    }
    return *loaded;
  }();
  return specs;
}

}  // namespace llmconform::harness
