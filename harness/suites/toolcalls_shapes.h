// What the toolcalls protocol's texts and results must look like: the exact
// shells of seed 001 §5 (RUN_DIRECTIVE, NODE_BRIEF) and the result shapes of
// §6, for the suite's checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/suite.h"
#include "protocols/toolcalls/prompts.h"

namespace llmconform::harness::toolcalls_suite {

// `text` split at '\n', without a last empty line.
std::vector<std::string> Lines(const std::string& text);

// Parses a RUN_DIRECTIVE text and composes it again: equal texts mean the
// shell is exact. nullopt when a line is missing or out of place.
std::optional<toolcalls::RunDirective> ParseRunDirective(const std::string& text);

// Whether `text` is a NODE_BRIEF exactly as §5.2 composes it.
bool IsExactNodeBrief(const std::string& text);

// "" when `result` has the §6 shape of a result of `tool` (or of an error),
// else what is wrong ("fs.read result without path, bytes, sha256 and truncated").
std::string ShapeProblem(const std::string& tool, const Json& result);

}  // namespace llmconform::harness::toolcalls_suite
