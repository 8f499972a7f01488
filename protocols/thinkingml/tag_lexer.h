// Splits a ThinkingML reply into text and markup, by the tag grammar of
// docs/protocols.md "thinkingml":
//
//   - a tag is `<` or `</` followed directly by an XML name (XML 1.0 5th ed.
//     NameStartChar NameChar*) and ending at the next `>`, provided no `<`
//     comes first; `<br>`, `<br/>`, `<h1 class="x">`, `<Title>` are tags,
//     `a < b`, `x<3`, `<<` and a `<name` never closed by `>` are text;
//   - `<!--` up to the first `-->` is a comment (opaque: what is inside is not
//     markup); a `<!--` with no `-->` after it is text;
//   - the literal `<<ParsingError>>` is a token of its own (seed §2), so that
//     its `<ParsingError>` is not taken for a tag.
//
// The lexer knows nothing of which tags are allowed; the validator decides.
// Tokens cover the input without gaps, in order; text tokens are maximal.
#pragma once

#include <cstddef>
#include <string_view>

namespace llmconform::thinkingml {

enum class TokenKind { kText, kOpenTag, kCloseTag, kComment, kParsingError };

struct Token {
  TokenKind kind = TokenKind::kText;
  std::size_t begin = 0;  // byte offsets of the whole token in the input
  std::size_t end = 0;
  // Tags only: the element name as written, and what stands between the name
  // and the closing `>` (without the `/` of a self-closing tag), untrimmed.
  std::string_view name;
  std::string_view attributes;
  bool self_closing = false;  // `<name …/>`
};

inline constexpr std::string_view kParsingErrorLiteral = "<<ParsingError>>";

class TagLexer {
 public:
  // `text` must outlive the lexer and the tokens it returns.
  explicit TagLexer(std::string_view text) : text_(text) {}

  // Sets `out` to the next token and returns true, or returns false at the end.
  bool Next(Token& out);

 private:
  // Tries to read markup starting at `lt` (a '<'); on success sets `out`.
  bool ReadMarkup(std::size_t lt, Token& out);
  bool ReadTag(std::size_t lt, Token& out);

  std::string_view text_;
  std::size_t pos_ = 0;
  bool has_pending_ = false;  // a markup token found while ending a text token
  Token pending_;
  // No "-->" exists at or after this offset (saves rescanning for every
  // unterminated "<!--").
  std::size_t no_comment_end_from_ = std::string_view::npos;
};

// XML 1.0 (5th edition) name characters, for a code point.
bool IsXmlNameStartChar(char32_t cp);
bool IsXmlNameChar(char32_t cp);

}  // namespace llmconform::thinkingml
