// Canonical comparison of request bodies: JSON values compared as values
// (key order and whitespace never matter, 1 equals 1.0), after removing the
// paths a matcher is told to ignore.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "base/json_read.h"

namespace llmconform::mockllm {

using llmconform::Error;

// JSON pointers whose values are removed before comparing. A `*` token
// matches every key or index at its level: "/messages/*/name", "/user".
class IgnorePaths {
 public:
  IgnorePaths() = default;
  // Error: a pointer that does not start with '/'.
  static std::expected<IgnorePaths, Error> Parse(const std::vector<std::string>& pointers);

  // `j` without the ignored values.
  Json Apply(Json j) const;
  bool empty() const { return patterns_.empty(); }

 private:
  std::vector<std::vector<std::string>> patterns_;  // unescaped tokens
};

// A request body as the matcher sees it: parsed JSON, or the text itself as a
// JSON string when base's ReadJson refuses it (not JSON, nested deeper than
// kMaxJsonDepth, invalid UTF-8, a number out of range), or null when empty.
Json BodyValue(std::string_view body);

struct Difference {
  std::string pointer;           // where the values first differ ("" for the root)
  std::optional<Json> expected;  // absent: the recording has nothing there
  std::optional<Json> actual;    // absent: the request has nothing there

  // "/messages/1/content: expected \"hi\", got \"hello\"" and friends.
  std::string Describe() const;
};

// The first place (in document order, keys sorted) where `actual` differs from
// `expected`, nullopt when they are equal as JSON values.
std::optional<Difference> FirstDifference(const Json& expected, const Json& actual);

// Every place where `actual` differs from `expected`, in the same order, at
// most `limit` of them (an array element or key missing on one side is one
// difference; values under it are not walked).
inline constexpr std::size_t kMaxDifferences = 1000;
std::vector<Difference> Differences(const Json& expected, const Json& actual,
                                    std::size_t limit = kMaxDifferences);
// How many differences Differences(expected, actual, limit) lists, without
// building them, visiting at most `budget` values of the two (each visit
// taken off `budget`); nullopt when the budget ran out first. Both walk each
// value once at most (work linear in the smaller value, however deep),
// never comparing a subtree whole at each level.
std::optional<std::size_t> CountDifferences(const Json& expected, const Json& actual,
                                            std::size_t limit, std::size_t& budget);

// A hash of `j` such that values equal as JSON values (==, so 1 and 1.0
// too) hash equal: numbers all hash alike, everything else by its content.
// For looking up recorded bodies; equal hashes are then compared with ==.
std::size_t CanonicalHash(const Json& j);

// The unescaped tokens of a JSON pointer pattern ("/a/*/b~1c" → a, *, b/c).
// Error: it does not start with '/'. `what` names it in the message.
std::expected<std::vector<std::string>, Error> PointerPatternTokens(std::string_view pointer,
                                                                    std::string_view what);

// Appends a JSON pointer token, escaping '~' and '/'.
std::string PointerAppend(std::string_view pointer, std::string_view token);

}  // namespace llmconform::mockllm
