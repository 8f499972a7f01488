// Error and Finding: the two ways a function reports trouble.
//
// `Error` is for input a function cannot work with (malformed JSON, a field of
// the wrong type, a file that is not there). It travels in
// `std::expected<T, Error>` across module boundaries; no exception crosses one.
// Its `kind` is what callers branch on (leveldb's Status codes); its `message`
// is for people and is never parsed.
//
// `Finding` is for input a function can work with but that breaks a rule of
// the protocol or deviates from OpenAI (a dialect). Lenient parsers return a
// value *and* findings; strict checks turn findings into failed rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmconform {

enum class ErrorKind {
  kInvalidInput,  // the bytes or values given cannot be used (the default)
  kNotFound,      // a named file, trace, operation or entry does not exist
  kIo,            // reading or writing failed, or a process or peer went away
  kInternal,      // a bug of ours: an exception escaped, an invariant broke
};

// "invalid input", "not found", "I/O error", "internal error".
std::string_view ErrorKindName(ErrorKind kind);

struct Error {
  // What went wrong, with its location when there is one
  // ("trace.jsonl:3:14: expected ',' or '}', got 'x'").
  std::string message;
  ErrorKind kind = ErrorKind::kInvalidInput;

  static Error InvalidInput(std::string message) { return {std::move(message)}; }
  static Error NotFound(std::string message) {
    return {std::move(message), ErrorKind::kNotFound};
  }
  static Error Io(std::string message) { return {std::move(message), ErrorKind::kIo}; }
  static Error Internal(std::string message) {
    return {std::move(message), ErrorKind::kInternal};
  }

  // The same error seen from further out: "CONTEXT: message", kind kept.
  Error Within(std::string_view context) const {
    return {std::string(context) + ": " + message, kind};
  }

  friend bool operator==(const Error&, const Error&) = default;
};

struct Finding {
  std::string rule;     // rule id from specs/<protocol>/rules.json
  std::string message;  // what was seen, in a sentence a person can act on

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

}  // namespace llmconform
