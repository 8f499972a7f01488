// Reading a vcrpy cassette's scalars as YAML defines them, where yaml-cpp
// does not.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace llmconform::mockllm {

// The value of scalar `n` of the YAML document `source` (the text yaml-cpp
// parsed, which n.Mark().pos indexes). yaml-cpp reads a single-quoted scalar
// whose closing quote follows two or more empty lines with one trailing line
// break; YAML 1.2 (§6.5, §7.3.2) and PyYAML, which writes vcrpy cassettes,
// keep one per empty line, so an SSE body `'…\n\n\n  '` is "…\n\n", not
// "…\n" (the last event would lose its end). For such a scalar the trailing
// line breaks are counted from `source`; any other scalar (plain,
// double-quoted, block, or a position that is not a quote) is n.Scalar().
std::string SingleQuotedScalar(const YAML::Node& n, std::string_view source);

}  // namespace llmconform::mockllm
