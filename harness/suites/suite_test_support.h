// Shared by the suite tests: the bundled specs (loaded once per test
// program), their scenarios by protocol and name, driving one as a run does,
// and reading the results.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/test_paths.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "harness/scratch_dir.h"
#include "reports/result.h"

namespace llmconform::harness {

// specs/ of the source tree; a load error fails the calling test and yields
// an empty set.
inline const SpecSet& BundledSpecs() {
  static const SpecSet specs = [] {
    auto loaded =
        LoadSpecs(std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs");
    if (!loaded) {
      ADD_FAILURE() << loaded.error().message;
      return SpecSet{};
    }
    return *loaded;
  }();
  return specs;
}

// The bundled scenarios of `protocol`, in file order.
inline std::vector<const Scenario*> ScenariosOf(std::string_view protocol) {
  std::vector<const Scenario*> out;
  for (const auto& s : BundledSpecs().scenarios) {
    if (s.protocol == protocol) out.push_back(&s);
  }
  return out;
}

// The bundled scenario `protocol`/`name`; fails the calling test (and yields
// an empty scenario) when there is none.
inline const Scenario& NamedScenario(std::string_view protocol, std::string_view name) {
  for (const Scenario* s : ScenariosOf(protocol)) {
    if (s->name == name) return *s;
  }
  ADD_FAILURE() << "no scenario " << protocol << "/" << name;
  static const Scenario none;
  return none;
}

// What the runner does for one scenario (ObserveScenario), in a scratch
// folder removed afterwards, with the journal as the rules read it
// (JournalTurns); a failure fails the calling test and yields an empty
// observation.
inline Observation DriveAgainstMockllm(ProtocolSuite& suite, const Scenario& s) {
  const ScratchDir work("llmconform-suite-test-");
  auto obs = ObserveScenario(suite, s, ::llmconform::test_paths::SourceRoot(), work.path());
  EXPECT_TRUE(obs) << s.name << ": " << (obs ? "" : obs.error().message);
  if (!obs) return Observation{};
  obs->journal = JournalTurns(obs->journal);
  return std::move(*obs);
}

// The result for `rule`, or nullptr.
inline const reports::CheckResult* FindResult(const std::vector<reports::CheckResult>& results,
                                              std::string_view rule) {
  for (const auto& r : results) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

// "RULE outcome: message [expected …, actual …, at …]", for failure output.
inline std::string DescribeCheck(const reports::CheckResult& r) {
  std::string s = r.rule + " " + std::string(reports::OutcomeName(r.outcome)) + ": " + r.message;
  if (r.evidence) {
    s += " [expected " + r.evidence->expected + ", actual " + r.evidence->actual + ", at " +
         r.evidence->where + "]";
  }
  return s;
}

}  // namespace llmconform::harness
