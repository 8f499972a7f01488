#include "reports/junit_reporter.h"

#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

pugi::xml_document ParseXml(const std::string& xml) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(xml.c_str());
  EXPECT_TRUE(parsed) << parsed.description() << " at offset " << parsed.offset;
  return doc;
}

int Count(pugi::xml_node node, const char* child) {
  int n = 0;
  for (pugi::xml_node c = node.child(child); c; c = c.next_sibling(child)) ++n;
  return n;
}

TEST(JUnitReporter, MatchesGolden) {
  testing::ExpectMatchesGolden("junit.xml",
                               testing::RenderWith<JUnitReporter>(testing::SampleRun()));
}

TEST(JUnitReporter, ParsesBackWithConsistentCounts) {
  const pugi::xml_document doc = ParseXml(testing::RenderWith<JUnitReporter>(testing::SampleRun()));
  const pugi::xml_node root = doc.child("testsuites");
  ASSERT_TRUE(root);
  EXPECT_STREQ(root.attribute("name").value(), "llmconform");
  EXPECT_EQ(root.attribute("tests").as_int(), 10);
  EXPECT_EQ(root.attribute("failures").as_int(), 1);
  EXPECT_EQ(root.attribute("errors").as_int(), 1);
  EXPECT_STREQ(root.attribute("time").value(), "1.534");
  ASSERT_EQ(Count(root, "testsuite"), 2);

  const pugi::xml_node multiturn = root.child("testsuite");
  EXPECT_STREQ(multiturn.attribute("name").value(), "multiturn");
  EXPECT_EQ(multiturn.attribute("tests").as_int(), 5);
  EXPECT_EQ(multiturn.attribute("failures").as_int(), 0);
  EXPECT_EQ(multiturn.attribute("errors").as_int(), 0);
  EXPECT_EQ(multiturn.attribute("skipped").as_int(), 1);
  EXPECT_STREQ(multiturn.attribute("time").value(), "0.021");  // 12.25 + 8 + 0.75 ms
  EXPECT_STREQ(multiturn.attribute("timestamp").value(), "2026-11-21T09:30:00");
  EXPECT_EQ(Count(multiturn, "testcase"), 5);

  const pugi::xml_node skill = multiturn.next_sibling("testsuite");
  EXPECT_STREQ(skill.attribute("name").value(), "skill");
  EXPECT_EQ(skill.attribute("tests").as_int(), 5);
  EXPECT_EQ(skill.attribute("failures").as_int(), 1);
  EXPECT_EQ(skill.attribute("errors").as_int(), 1);
  EXPECT_EQ(skill.attribute("skipped").as_int(), 1);

  // Per testcase: the suite's counts agree with the elements under it.
  for (pugi::xml_node suite : root.children("testsuite")) {
    int failures = 0, errors = 0, skipped = 0, tests = 0;
    for (pugi::xml_node tc : suite.children("testcase")) {
      ++tests;
      failures += Count(tc, "failure");
      errors += Count(tc, "error");
      skipped += Count(tc, "skipped");
    }
    EXPECT_EQ(suite.attribute("tests").as_int(), tests);
    EXPECT_EQ(suite.attribute("failures").as_int(), failures);
    EXPECT_EQ(suite.attribute("errors").as_int(), errors);
    EXPECT_EQ(suite.attribute("skipped").as_int(), skipped);
  }
}

TEST(JUnitReporter, FailureCarriesMessageTypeAndEvidence) {
  const pugi::xml_document doc = ParseXml(testing::RenderWith<JUnitReporter>(testing::SampleRun()));
  const pugi::xpath_node failure = doc.select_node("//testcase[failure]");
  ASSERT_TRUE(failure);
  const pugi::xml_node tc = failure.node();
  EXPECT_STREQ(tc.attribute("classname").value(), "skill.git-quick-commit");
  EXPECT_STREQ(tc.attribute("name").value(), "skill.reply-starts-with-tag");
  const pugi::xml_node f = tc.child("failure");
  EXPECT_STREQ(f.attribute("message").value(),
               "The reply starts with prose, not a tag: `Sure!` | *not* <think>.");
  EXPECT_STREQ(f.attribute("type").value(), "fail");
  const std::string body = f.child_value();
  EXPECT_NE(body.find("actual:   Sure! <script>alert(\"x\")</script>\n<COMMAND>"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("where:    /outputs/steps/0/reply"), std::string::npos) << body;
  EXPECT_NE(body.find("rule skill.reply-starts-with-tag (must, 000_c404cacd66846586.txt §4.1)"),
            std::string::npos)
      << body;

  const pugi::xml_node error = doc.select_node("//testcase[error]").node();
  EXPECT_STREQ(error.attribute("classname").value(), "skill.ollama-keepalive");
  EXPECT_STREQ(error.child("error").attribute("type").value(), "error");
  const pugi::xml_node skipped = doc.select_node("//testcase[skipped]").node();
  EXPECT_STREQ(skipped.child("skipped").text().get(),
               "The client refused the input; no request was sent.");
}

TEST(JUnitReporter, ControlCharactersAndBadUtf8StayWellFormed) {
  RunResult run;
  run.scenarios = {
      {{"p", "s", "", "", "", "", {}},
       {CheckResult::Fail("r\x01", "bell \x07 and \xFF", {"a\x1b[0m", "data: x\r\n", "/"})},
       0}};
  const std::string xml = testing::RenderWith<JUnitReporter>(run);
  EXPECT_EQ(xml.find('\x07'), std::string::npos);
  EXPECT_EQ(xml.find('\x1b'), std::string::npos);
  EXPECT_EQ(xml.find("&#"), std::string::npos) << "XML 1.0 forbids &#1; and friends";
  const pugi::xml_document doc = ParseXml(xml);
  const pugi::xml_node f = doc.select_node("//failure").node();
  EXPECT_STREQ(f.attribute("message").value(), "bell \\u0007 and \xEF\xBF\xBD");
  EXPECT_NE(std::string(f.child_value()).find("actual:   data: x\\r\n"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::reports
