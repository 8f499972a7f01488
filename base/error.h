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

#include <cstddef>
#include <optional>
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

// Where in a file an error is: the file's name, and its 1-based line and
// column when known (0 = not known; a column only with a line).
struct FilePosition {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;

  friend bool operator==(const FilePosition&, const FilePosition&) = default;
};

struct Error {
  // What went wrong as a person reads it, with its location when there is
  // one ("trace.jsonl:3:14: /response/status: expected integer, got string").
  // For an error built with a location (At, AtPointer, Placed, Under) it is
  // ErrorText(*this), kept so by those functions and Within; code reads the
  // fields, never this text.
  std::string message;
  ErrorKind kind = ErrorKind::kInvalidInput;
  // The value the error is about, as an RFC 6901 pointer into the document
  // being read ("" is the whole document).
  std::optional<std::string> pointer;
  // Where in a file the error is.
  std::optional<FilePosition> position;
  // The explanation alone ("expected integer, got string"); empty for an
  // error built from a message alone (then `message` is all there is).
  std::string what;
  // Within's contexts, outermost first ("scenario s2: entry 1"), for an
  // error with a location.
  std::string context;

  static Error InvalidInput(std::string message) { return {std::move(message)}; }
  static Error NotFound(std::string message) { return {std::move(message), ErrorKind::kNotFound}; }
  static Error Io(std::string message) { return {std::move(message), ErrorKind::kIo}; }
  static Error Internal(std::string message) { return {std::move(message), ErrorKind::kInternal}; }
  // An error about the value at `pointer` of a document: "/POINTER: WHAT".
  static Error AtPointer(std::string pointer, std::string what,
                         ErrorKind kind = ErrorKind::kInvalidInput);
  // An error at a place in a file, with or without a pointer.
  static Error At(FilePosition position, std::optional<std::string> pointer, std::string what,
                  ErrorKind kind = ErrorKind::kInvalidInput);

  // The same error seen from further out: "CONTEXT: message", kind and
  // location kept.
  Error Within(std::string_view context) const;
  // The same error placed in a file (a pointer's value found in the text).
  Error Placed(FilePosition position) const;
  // The same error about a document that holds the one it was about at
  // `prefix`: the pointer becomes PREFIX + pointer (a pointerless error is
  // then about the value at PREFIX).
  Error Under(std::string_view prefix) const;

  friend bool operator==(const Error&, const Error&) = default;
};

// The one notation of an error: "FILE:LINE:COL: CONTEXT: /POINTER: WHAT",
// each part only when present (a position without a line prints "FILE:",
// one without a column "FILE:LINE:"; the root pointer "/"). An error without
// a location is its message.
std::string ErrorText(const Error& e);

struct Finding {
  std::string rule;     // rule id from specs/<protocol>/rules.json
  std::string message;  // what was seen, in a sentence a person can act on

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

}  // namespace llmconform
