#include "protocols/thinkingml/serp_queries.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "protocols/thinkingml/sensitive_info.h"

namespace llmconform::thinkingml {
namespace {

std::vector<std::string> Rules(const SerpQueriesCheck& c) {
  std::vector<std::string> out;
  for (const auto& f : c.findings) out.push_back(f.rule);
  return out;
}

TEST(FindSerpQueriesBlock, FindsTheExactBlockAtTheEnd) {
  const std::string content =
      "# 标题\n- a\n<!-- <serp_queries>\n[\"q1\",\"q2\"]\n</serp_queries> -->\n";
  auto b = FindSerpQueriesBlock(content);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->exact);
  EXPECT_TRUE(b->last);
  EXPECT_EQ(b->json, "[\"q1\",\"q2\"]");
  EXPECT_EQ(content.substr(b->json_begin, b->json.size()), b->json);
  EXPECT_EQ(content.substr(b->begin, b->end - b->begin),
            "<!-- <serp_queries>\n[\"q1\",\"q2\"]\n</serp_queries> -->");
}

TEST(FindSerpQueriesBlock, ReportsFormatDeviations) {
  auto one_line = FindSerpQueriesBlock("x\n<!-- <serp_queries>[\"a\"]</serp_queries> -->");
  ASSERT_TRUE(one_line);
  EXPECT_FALSE(one_line->exact);
  EXPECT_EQ(one_line->json, "[\"a\"]");
  auto indented = FindSerpQueriesBlock("x\n  <!-- <serp_queries>\n[]\n</serp_queries> -->");
  ASSERT_TRUE(indented);
  EXPECT_FALSE(indented->exact);
  auto crlf = FindSerpQueriesBlock("<!-- <serp_queries>\r\n[]\r\n</serp_queries> -->");
  ASSERT_TRUE(crlf);
  EXPECT_FALSE(crlf->exact);
  EXPECT_EQ(crlf->json, "[]");
  auto not_last = FindSerpQueriesBlock("<!-- <serp_queries>\n[]\n</serp_queries> -->\nmore");
  ASSERT_TRUE(not_last);
  EXPECT_TRUE(not_last->exact);
  EXPECT_FALSE(not_last->last);
  auto untagged = FindSerpQueriesBlock("<!-- serp_queries: [\"a\", \"b\"] -->");
  ASSERT_TRUE(untagged);
  EXPECT_EQ(untagged->json, "[\"a\", \"b\"]");
  EXPECT_FALSE(FindSerpQueriesBlock("<!-- a note --> text"));
}

TEST(FindSerpQueriesBlock, TakesTheLastMentioningComment) {
  auto b = FindSerpQueriesBlock(
      "<!-- <serp_queries>\n[\"old\"]\n</serp_queries> -->\n<!-- note -->\n"
      "<!-- <serp_queries>\n[\"new\"]\n</serp_queries> -->");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->json, "[\"new\"]");
}

TEST(FormatSerpQueriesBlock, WritesTheExactFormat) {
  EXPECT_EQ(FormatSerpQueriesBlock({"三分化", "a\"b"}),
            "<!-- <serp_queries>\n[\"三分化\",\"a\\\"b\"]\n</serp_queries> -->");
  EXPECT_EQ(FormatSerpQueriesBlock({}), "<!-- <serp_queries>\n[]\n</serp_queries> -->");
}

TEST(CheckSerpQueries, AcceptsUpToFiveDistinctShortQueries) {
  auto c = CheckSerpQueries(
      "[\"三分化训练计划怎么安排\",\"三分化训练动作选择\",\"三分化训练频率与恢复\"]");
  EXPECT_TRUE(c.findings.empty());
  ASSERT_TRUE(c.queries);
  EXPECT_EQ(c.queries->size(), 3u);
  EXPECT_TRUE(CheckSerpQueries("[]").findings.empty());
  EXPECT_TRUE(CheckSerpQueries(std::string("[\"") + std::string(80, 'x') + "\"]").findings.empty());
  EXPECT_TRUE(CheckSerpQueries("[\"1\",\"2\",\"3\",\"4\",\"5\"]").findings.empty());
}

TEST(CheckSerpQueries, ReportsEachBrokenRule) {
  auto six = CheckSerpQueries("[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\"]");
  ASSERT_EQ(six.findings.size(), 1u);
  EXPECT_EQ(six.findings[0], (Finding{"TML-4.4", "6 serp queries, at most 5 are allowed"}));
  auto dup = CheckSerpQueries("[\"深蹲\",\"深蹲\"]");
  ASSERT_EQ(dup.findings.size(), 1u);
  EXPECT_EQ(dup.findings[0],
            (Finding{"TML-4.5", "serp query 2 \"深蹲\" repeats an earlier query"}));
  auto longq = CheckSerpQueries("[\"" + std::string(81, 'x') + "\"]");
  ASSERT_EQ(longq.findings.size(), 1u);
  EXPECT_EQ(longq.findings[0],
            (Finding{"TML-4.6", "serp query 1 is 81 characters long, at most 80 are allowed"}));
  auto email = CheckSerpQueries("[\"联系 coach@gym.com\"]");
  ASSERT_EQ(email.findings.size(), 1u);
  EXPECT_EQ(
      email.findings[0],
      (Finding{"TML-4.7",
               "serp query 1 \"联系 coach@gym.com\" holds an e-mail address (coach@gym.com)"}));
  EXPECT_EQ(Rules(CheckSerpQueries("[\"a\",1]")), (std::vector<std::string>{"TML-4.3"}));
  auto obj = CheckSerpQueries("{\"q\":1}");
  EXPECT_FALSE(obj.queries);
  ASSERT_EQ(obj.findings.size(), 1u);
  EXPECT_EQ(obj.findings[0].message,
            "the serp_queries block holds a JSON object, expected an array of strings");
  EXPECT_EQ(Rules(CheckSerpQueries("[\"a\",")), (std::vector<std::string>{"TML-4.3"}));
  EXPECT_EQ(Rules(CheckSerpQueries("")), (std::vector<std::string>{"TML-4.3"}));
}

TEST(CheckSerpQueries, CountsCodePointsNotBytes) {
  std::string q;
  for (int i = 0; i < 80; ++i) q += "练";
  EXPECT_TRUE(CheckSerpQueries("[\"" + q + "\"]").findings.empty());
  EXPECT_EQ(Rules(CheckSerpQueries("[\"" + q + "练\"]")), (std::vector<std::string>{"TML-4.6"}));
}

TEST(CheckSerpQueries, DecodesJsonEscapes) {
  auto c = CheckSerpQueries(R"( [ "a\"b\\c\/\n\u4e2d\ud83d\ude00" ,"x" ] )");
  ASSERT_TRUE(c.queries);
  EXPECT_EQ(*c.queries, (std::vector<std::string>{"a\"b\\c/\n中😀", "x"}));
  EXPECT_EQ(Rules(CheckSerpQueries(R"(["\ud800"])")),
            (std::vector<std::string>{"TML-4.3"}));  // lone surrogate
  EXPECT_EQ(Rules(CheckSerpQueries("[\"a\tb\"]")),
            (std::vector<std::string>{"TML-4.3"}));  // raw control character
  EXPECT_EQ(Rules(CheckSerpQueries("[\"a\"] x")), (std::vector<std::string>{"TML-4.3"}));
}

// The queries read from any text are exactly the string elements nlohmann
// finds, when it finds an array; none otherwise.
RC_GTEST_PROP(CheckSerpQueriesProperties, ReadsJsonLikeNlohmann, ()) {
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "[", "]", ",", "\"", "\\", "u", "d83d", "de00", "00e9", "a", "中", " ", "\n", "\t", "1",
      "null", "\xFF", "\"x\"", "/", "n", "\xE4\xB8", "\x89", "\xED\xA0\x80"));
  std::string text;
  for (const auto& p : pieces) text += p;
  const auto expected = nlohmann::json::parse(text, nullptr, false);
  const SerpQueriesCheck c = CheckSerpQueries(text);
  if (expected.is_discarded() || !expected.is_array()) {
    RC_ASSERT(!c.queries.has_value());
    return;
  }
  std::vector<std::string> strings;
  for (const auto& e : expected) {
    if (e.is_string()) strings.push_back(e.get<std::string>());
  }
  RC_ASSERT(c.queries == std::optional(strings));
}

RC_GTEST_PROP(CheckSerpQueriesProperties, RoundTripsDumpedArrays,
              (const std::vector<std::u32string>& raw, bool ascii)) {
  std::vector<std::string> queries;
  for (const auto& r : raw) {
    std::string q;
    for (char32_t cp : r) {
      cp %= 0x110000;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
      if (cp < 0x80) {
        q += static_cast<char>(cp);
      } else if (cp < 0x800) {
        q += {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
      } else if (cp < 0x10000) {
        q += {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
              static_cast<char>(0x80 | (cp & 0x3F))};
      } else {
        q += {static_cast<char>(0xF0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
              static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
      }
    }
    queries.push_back(q);
  }
  const std::string text = nlohmann::json(queries).dump(-1, ' ', ascii);
  RC_ASSERT(CheckSerpQueries(text).queries == std::optional(queries));
}

// The rules judge the decoded strings, however they are written: whether a
// character comes raw or as a \u escape changes no finding (the fast path
// counts code points and looks for personal data while it decodes).
RC_GTEST_PROP(CheckSerpQueriesProperties, FindingsDependOnTheDecodedStringsOnly, (bool ascii)) {
  const auto piece = rc::gen::element<std::string>("a", "中", "😀", "@", "1", ":", ".", "-", " ",
                                                   "b.cn", "13812345678", "10.0.0.1", "::1");
  const auto query = rc::gen::map(rc::gen::container<std::vector<std::string>>(piece),
                                  [](const std::vector<std::string>& ps) {
                                    std::string q;
                                    for (const auto& p : ps) q += p;
                                    return q;
                                  });
  const auto queries = *rc::gen::container<std::vector<std::string>>(query);
  std::vector<std::string> expected;
  if (queries.size() > kMaxSerpQueries) expected.push_back("TML-4.4");
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (std::find(queries.begin(), queries.begin() + static_cast<std::ptrdiff_t>(i), queries[i]) !=
        queries.begin() + static_cast<std::ptrdiff_t>(i))
      expected.push_back("TML-4.5");
    if (CountCodePoints(queries[i]) > kMaxSerpQueryCodePoints) expected.push_back("TML-4.6");
    if (DescribeSensitiveInfo(queries[i])) expected.push_back("TML-4.7");
  }
  RC_ASSERT(Rules(CheckSerpQueries(nlohmann::json(queries).dump(-1, ' ', ascii))) == expected);
}

}  // namespace
}  // namespace llmconform::thinkingml
