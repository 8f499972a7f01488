// Error and Finding: the two ways a protocol function reports trouble.
//
// `Error` is for input a function cannot work with (malformed JSON, a field of
// the wrong type). It travels in `std::expected<T, Error>` across module
// boundaries; no exception crosses one.
//
// `Finding` is for input a function can work with but that breaks a rule of
// the protocol or deviates from OpenAI (a dialect). Lenient parsers return a
// value *and* findings; strict checks turn findings into failed rules.
#pragma once

#include <string>
#include <vector>

namespace llmconform {

struct Error {
  // What went wrong, with its location when there is one
  // ("trace.jsonl:3:14: expected ',' or '}', got 'x'").
  std::string message;

  friend bool operator==(const Error&, const Error&) = default;
};

struct Finding {
  std::string rule;     // rule id from specs/<protocol>/rules.json
  std::string message;  // what was seen, in a sentence a person can act on

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

}  // namespace llmconform
