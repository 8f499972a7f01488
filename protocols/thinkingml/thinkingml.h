// ThinkingML v4.5 ("Strict-XML") replies: the validator and the backend's
// compatibility escape (seed 002 §1–§5; docs/protocols.md "thinkingml").
//
//   [<think>text</think>] [<serp>text</serp>]
//   <thinking>
//     <phase id="1"><title>text</title> text </phase> …   (ids 1, 2, 3, …)
//   </thinking>
//   <final>
//   Markdown …
//   <!-- <serp_queries>
//   ["q1","q2"]
//   </serp_queries> -->
//   </final>
//
// Why not pugixml. The structural parse is a hand-written scanner
// (tag_lexer.h), not pugixml, because a ThinkingML reply is not XML: `<final>`
// holds Markdown, where `a < b` and `x<3` are text and `R&D` is no entity, and
// code fences hold anything. pugixml stops at the first error ("Could not
// determine tag type" on `a < b`, "Start-end tags mismatch" on a fenced
// `#include <vector>`) and reports a single byte offset, while the validator
// must report every violation with its line and column and keep judging the
// rest of the reply. Making pugixml work would mean escaping the text first —
// which needs this very tag grammar. The grammar is small (six names, one
// attribute), so a scanner over memchr('<') is both simpler and faster
// (bench/bench_thinkingml.cpp compares it with pugixml on the same input).
//
// The verdicts follow docs/protocols.md: a tag is `<` or `</`, an XML name, up to
// `>`; every tag other than the six allowed ones is a violation wherever it
// stands, code fences and Markdown autolinks (`<https://…>`) included.
// Comments `<!-- … -->` are opaque text. Text keeps its entity references
// undecoded (`&lt;final&gt;` stays as written in the parts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/thinkingml/line_index.h"

namespace llmconform::thinkingml {

// The parts are views: into the reply text (see Validate for who keeps it),
// or into text the Validation owns. Nothing of the reply is copied.
struct Phase {
  std::optional<std::int64_t> id;  // nullopt when the id attribute is missing or malformed
  std::string_view title;          // trimmed
  std::string_view text;           // what follows </title>, trimmed
  friend bool operator==(const Phase&, const Phase&) = default;
};

// What the lenient parse found; filled as far as the reply allows, also when
// it is invalid. Only the first block of each kind is taken.
struct Parts {
  std::optional<std::string_view> think;  // trimmed content, nullopt when absent
  std::optional<std::string_view> serp;
  std::vector<Phase> phases;  // of the <thinking> block, in order
  // The content of <final> with the serp_queries block cut out, trimmed.
  std::optional<std::string_view> final_content;
  // The strings of the serp_queries array (JSON escapes decoded) of the last
  // block; nullopt when there is no block or its JSON is not an array. Every
  // block is judged, and a second one is itself a finding (TML-4.8).
  std::optional<std::vector<std::string>> queries;
  friend bool operator==(const Parts&, const Parts&) = default;
};

struct ValidationFinding {
  std::string rule;        // id in specs/thinkingml/rules.json, e.g. "TML-3.2"
  std::string message;     // what was found and what was expected
  std::size_t offset = 0;  // byte offset in the reply
  TextPosition position;   // 1-based line and column (code points) of `offset`
  friend bool operator==(const ValidationFinding&, const ValidationFinding&) = default;
};

struct Validation {
  bool valid = false;                       // no findings
  std::vector<ValidationFinding> findings;  // every violation, ordered by offset
  Parts parts;
  // What the parts view besides the caller's text, shared by copies of this
  // Validation: the reply handed over to Validate(std::string&&), and the
  // final content when it had to be joined around a misplaced serp_queries
  // block. Null when not needed.
  std::shared_ptr<const std::string> owned_reply;
  std::shared_ptr<const std::string> owned_final;
};

// Judges a whole reply (the joined content_delta texts) by every rule of
// §1–§5. Never fails: any byte sequence gets a verdict. Findings that concern
// something missing (no <thinking>) point at the end of the reply; a reply
// that is exactly `<<ParsingError>>` (surrounding whitespace aside) gets the
// single finding TML-5.1.
//
// Lifetime of the parts: from a string_view (or an lvalue std::string) they
// view the caller's text, which must outlive them; a std::string rvalue or a
// C string is taken over by the Validation, so temporaries are safe.
// A null C string reads as "".
Validation Validate(std::string_view reply);
Validation Validate(std::string&& reply);
Validation Validate(const char* reply);
// A const temporary cannot be taken over, and a view of it would dangle.
Validation Validate(const std::string&& reply) = delete;

// Every rule id Validate can report, in catalogue order
// (specs/thinkingml/rules.json holds exactly these).
inline constexpr std::string_view kReplyRuleIds[] = {
    "TML-1.1", "TML-1.2",  "TML-1.3",  "TML-1.4", "TML-1.5", "TML-1.6", "TML-1.7", "TML-1.8",
    "TML-1.9", "TML-1.10", "TML-1.11", "TML-2.1", "TML-2.2", "TML-2.3", "TML-3.1", "TML-3.2",
    "TML-3.3", "TML-3.4",  "TML-3.5",  "TML-3.6", "TML-3.7", "TML-4.1", "TML-4.2", "TML-4.3",
    "TML-4.4", "TML-4.5",  "TML-4.6",  "TML-4.7", "TML-4.8", "TML-5.1"};

// The findings of Validate(reply) without building its parts: the verdict
// alone, for gates that need no more (and the benchmark's fast path).
std::vector<ValidationFinding> CheckReply(std::string_view reply);

// The backend's minimal escape (§1 compatibility note): within each
// `<thinking>` … `</thinking>` span (the first `</thinking>` after each
// `<thinking>`), the literals `<final>` and `</final>` become `&lt;final&gt;`
// and `&lt;/final&gt;`. Everything else is copied unchanged; a `<thinking>`
// never closed is left alone.
std::string EscapeThinkingFinalLiterals(std::string_view reply);

}  // namespace llmconform::thinkingml
