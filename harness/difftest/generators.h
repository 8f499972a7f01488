// The input generators of `llmconform check`, one per oracle operation it
// can exercise, built with rapidcheck so every generated input shrinks.
//
// They produce what the protocol documents talk about rather than random
// bytes: tags and their near-misses, code fences, Markdown, mixed scripts and
// emoji, times, URLs and numbers inside text, JSON that is almost valid,
// whitespace and case variants, repeated structures, message histories around
// the token budget's edge. docs/gate.md lists, per op, which rules of
// specs/<protocol>/rules.json the generated inputs reach.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"

namespace llmconform::harness::difftest {

// The generator of `op`'s inputs; nullptr when `check` has none for it.
const rc::Gen<nlohmann::json>* InputGenerator(std::string_view op);

// Case `index` of a run seeded `seed`: the same (seed, index) always gives
// the same input and shrink tree. Sizes sweep 0..100 with the index, like
// rapidcheck's own runs, so small cases come first.
rc::Shrinkable<nlohmann::json> GenerateCase(const rc::Gen<nlohmann::json>& gen, std::uint64_t seed,
                                            std::size_t index);

// The ops that have a generator, sorted.
std::vector<std::string> GeneratedOps();

// The protocol rules the reference's `output` for `input` shows the case
// exercised: the rule ids of its findings, and for ops whose output has no
// findings, the rules its shape evidences (e.g. REQ-AIS-MULTITURN-4 when
// history was trimmed). Sorted, unique.
std::vector<std::string> TriggeredRules(std::string_view op, const nlohmann::json& input,
                                        const nlohmann::json& output);

// What decided a case: a rule of a catalogue, and the step of the reference
// within it ("" when the rule says all), e.g. {"SKILL-CLEAN-6", "echo"}.
struct Decision {
  std::string rule;
  std::string step;
  friend bool operator==(const Decision&, const Decision&) = default;
};

// What decides a disagreement on `input`, where the reference answered
// `expected` and the SUT `actual` (null when the SUT answered no output): the
// op's own decision at the first place they differ (OpRecord::decide), else
// the reference's first finding, else the most specific rule its output
// evidences; {} for none. Two bugs that break one field in different steps
// of the reference are two decisions, so two groups.
Decision DecidingRule(std::string_view op, const nlohmann::json& input,
                      const nlohmann::json& expected, const nlohmann::json& actual);

// The rules `check --coverage` measures `op` against: an entry ending in '-'
// is a prefix of rule ids of specs/<protocol>/rules.json (e.g. "ACT-"), any
// other entry one id (a rule, or a dialect id of specs/wire/dialects.json for
// wire.dialect); empty when unknown. Rules about traffic the op cannot see
// (IsTrafficRule) are left out by the caller.
std::vector<std::string> RulePrefixes(std::string_view op);

// Rules no oracle op can exercise: they judge requests on the wire.
bool IsTrafficRule(std::string_view rule);

// The rules `check --coverage` measures `op` against, as ids: its
// RulePrefixes, each prefix expanded over `catalogues` (by protocol, as
// LoadSpecs reads them), traffic rules left out. The coverage test holds every
// generator to reaching each of them.
std::vector<std::string> RulesToCover(std::string_view op,
                                      const std::map<std::string, RuleCatalog>& catalogues);

}  // namespace llmconform::harness::difftest
