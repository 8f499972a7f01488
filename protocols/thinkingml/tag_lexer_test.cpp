#include "protocols/thinkingml/tag_lexer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace llmconform::thinkingml {
namespace {

// Renders tokens as "T(text)", "<name|attrs>", "</name>", "<name/>", "C(...)", "E".
std::vector<std::string> Lex(std::string_view text) {
  std::vector<std::string> out;
  TagLexer lexer(text);
  Token t;
  while (lexer.Next(t)) {
    const std::string raw(text.substr(t.begin, t.end - t.begin));
    switch (t.kind) {
      case TokenKind::kText:
        out.push_back("T(" + raw + ")");
        break;
      case TokenKind::kOpenTag:
        out.push_back("<" + std::string(t.name) +
                      (t.attributes.empty() ? "" : "|" + std::string(t.attributes)) +
                      (t.self_closing ? "/>" : ">"));
        break;
      case TokenKind::kCloseTag:
        out.push_back("</" + std::string(t.name) + ">");
        break;
      case TokenKind::kComment:
        out.push_back("C(" + raw + ")");
        break;
      case TokenKind::kParsingError:
        out.push_back("E");
        break;
    }
  }
  return out;
}

using V = std::vector<std::string>;

TEST(TagLexer, TagsNeedANameRightAfterTheAngleBracket) {
  EXPECT_EQ(Lex("a < b and x<3 <<"), (V{"T(a < b and x<3 <<)"}));
  EXPECT_EQ(Lex("<br> <br/> <h1 class=\"x\"> </Title >"),
            (V{"<br>", "T( )", "<br/>", "T( )", "<h1| class=\"x\">", "T( )", "</Title>"}));
  EXPECT_EQ(Lex("<phase id=\"1\">"), (V{"<phase| id=\"1\">"}));
}

TEST(TagLexer, ANameNeverClosedOrInterruptedIsText) {
  EXPECT_EQ(Lex("if a<b then"), (V{"T(if a<b then)"}));
  EXPECT_EQ(Lex("x <y <final>"), (V{"T(x <y )", "<final>"}));
}

TEST(TagLexer, CommentsAreOpaqueAndUnterminatedOnesAreText) {
  EXPECT_EQ(Lex("a<!-- <serp_queries>\n[]\n</serp_queries> -->b"),
            (V{"T(a)", "C(<!-- <serp_queries>\n[]\n</serp_queries> -->)", "T(b)"}));
  EXPECT_EQ(Lex("<!-- <b>"), (V{"T(<!-- )", "<b>"}));
}

TEST(TagLexer, ParsingErrorIsOneToken) {
  EXPECT_EQ(Lex("<<ParsingError>>"), (V{"E"}));
  EXPECT_EQ(Lex("x <<ParsingError>> y"), (V{"T(x )", "E", "T( y)"}));
}

TEST(TagLexer, NamesFollowXmlIncludingNonAscii) {
  EXPECT_EQ(Lex("<中文>"), (V{"<中文>"}));
  EXPECT_EQ(Lex("<https://example.com>"), (V{"<https:|//example.com>"}));
  EXPECT_EQ(Lex("<1a> <-x> <\xFF>"), (V{"T(<1a> <-x> <\xFF>)"}));
}

RC_GTEST_PROP(TagLexerProperties, TokensCoverTheInputInOrder, (const std::string& text)) {
  TagLexer lexer(text);
  Token t;
  std::size_t pos = 0;
  bool previous_text = false;
  while (lexer.Next(t)) {
    RC_ASSERT(t.begin == pos);
    RC_ASSERT(t.end > t.begin);
    const bool is_text = t.kind == TokenKind::kText;
    RC_ASSERT(!(is_text && previous_text));  // text tokens are maximal
    previous_text = is_text;
    pos = t.end;
  }
  RC_ASSERT(pos == text.size());
}

}  // namespace
}  // namespace llmconform::thinkingml
