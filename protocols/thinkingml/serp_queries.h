// The serp_queries comment block that ends the content of `<final>` (seed §4,
// docs/protocols.md "thinkingml"):
//
//   <!-- <serp_queries>
//   ["q1","q2","q3"]
//   </serp_queries> -->
//
// exactly so: the comment starts a line (no indentation), the JSON array is
// alone on the middle line, lines end with LF, and only whitespace follows the
// comment up to `</final>`. The array holds at most 5 distinct strings, each at
// most 80 code points, none holding an e-mail address, a phone number or an IP
// address (sensitive_info.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace llmconform::thinkingml {

inline constexpr std::size_t kMaxSerpQueries = 5;
inline constexpr std::size_t kMaxSerpQueryCodePoints = 80;

struct SerpQueriesBlock {
  std::size_t begin = 0;  // the comment `<!-- … -->` as offsets into the content
  std::size_t end = 0;
  std::size_t json_begin = 0;  // where `json` starts, as an offset into the content
  std::string_view json;       // between <serp_queries> and </serp_queries>, trimmed
  bool exact = false;          // written exactly in the format above
  bool last = false;           // only whitespace follows it in the content
};

// The last comment of `final_content` that mentions "serp_queries", or nullopt
// when none does. Comments run from `<!--` to the first `-->` after it, as the
// tag lexer reads them. When the comment lacks the <serp_queries> tags, `json`
// is what lies between its first '[' and its last ']' (empty if none).
std::optional<SerpQueriesBlock> FindSerpQueriesBlock(std::string_view final_content);

// Whether a comment mentions "serp_queries" (and so is taken for the block).
bool MentionsSerpQueries(std::string_view comment);

// Reads the comment `content[begin, end)` (a whole `<!-- … -->`) as the block.
SerpQueriesBlock ReadSerpQueriesBlock(std::string_view content, std::size_t begin, std::size_t end);

// Renders the block for `queries` in the exact format (with a leading LF-free
// first line); used by generators and the reference service's fixtures.
std::string FormatSerpQueriesBlock(const std::vector<std::string>& queries);

struct SerpQueriesCheck {
  // The strings of the array, in order; nullopt when `json` is not a JSON
  // array. Non-string elements are skipped (and reported).
  std::optional<std::vector<std::string>> queries;
  // Rule ids TML-4.3 (a JSON array of strings), TML-4.4 (at most 5), TML-4.5
  // (distinct), TML-4.6 (at most 80 code points), TML-4.7 (no personal data).
  Findings findings;
};

// Parses the JSON text of the block and checks the queries.
SerpQueriesCheck CheckSerpQueries(std::string_view json);

}  // namespace llmconform::thinkingml
