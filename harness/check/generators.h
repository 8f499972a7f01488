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

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::harness::check {

// The generator of `op`'s inputs; nullptr when `check` has none for it.
const rc::Gen<nlohmann::json>* InputGenerator(std::string_view op);

// The ops that have a generator, sorted.
std::vector<std::string> GeneratedOps();

// The protocol rules the reference's `output` for `input` shows the case
// exercised: the rule ids of its findings, and for ops whose output has no
// findings, the rules its shape evidences (e.g. REQ-AIS-MULTITURN-4 when
// history was trimmed). Sorted, unique.
std::vector<std::string> TriggeredRules(std::string_view op, const nlohmann::json& input,
                                        const nlohmann::json& output);

// The rule that decides a disagreement on `input`: the reference's first
// finding, else the most specific rule its output evidences; "" for none.
std::string DecidingRule(std::string_view op, const nlohmann::json& input,
                         const nlohmann::json& output);

// The rules `check --coverage` measures `op` against, as prefixes of rule
// ids (e.g. {"ACT-"}); empty when unknown. Rules about traffic the op cannot
// see (IsTrafficRule) are left out by the caller.
std::vector<std::string> RulePrefixes(std::string_view op);

// Rules no oracle op can exercise: they judge requests on the wire.
bool IsTrafficRule(std::string_view rule);

}  // namespace llmconform::harness::check
