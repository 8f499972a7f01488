// Bad traces are located input errors (issue 17): a NUL byte is named as
// such, a t_ms past what the replay clock can hold is refused with its real
// value, and lint tells format errors (exit 2) from secrets (exit 1).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mockllm/lint.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {
namespace {

using ::testing::HasSubstr;

const std::string kTraceHostileHeader = R"({"format":"llmconform-trace/1","id":"x"})";

std::string Stream(std::string_view t_ms) {
  return kTraceHostileHeader + "\n" +
         R"({"request":{"path":"/v1/chat/completions"},"response":{"status":200,"chunks":[{"t_ms":)" +
         std::string(t_ms) + R"(,"raw":"data: {}\n\n"}]}})" + "\n";
}

TEST(HostileTrace, ANulByteIsNamedAsSuch) {
  std::string text =
      kTraceHostileHeader + "\n" + R"({"request":{"path":"/v1/x"},"response":{"status":200}})";
  text.insert(kTraceHostileHeader.size() + 1 + 12, 1, '\0');
  auto t = ParseTrace(text, "n.jsonl");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message,
            "n.jsonl:2:13: a NUL byte (JSON text never holds one raw; escape it as \\u0000 in a "
            "string)");
}

TEST(HostileTrace, TimesBeyondTheReplayClockAreRefusedWithTheirValue) {
  auto huge = ParseTrace(Stream("9223372036854775808"), "t.jsonl");
  ASSERT_FALSE(huge);
  EXPECT_THAT(huge.error().message,
              HasSubstr("/response/chunks/0/t_ms: expected an integer of at most "
                        "9223372036854775807, got 9223372036854775808"));
  auto large = ParseTrace(Stream("9223372036854775807"), "t.jsonl");
  ASSERT_FALSE(large);
  EXPECT_THAT(large.error().message,
              HasSubstr("expected at most 1000000000000 ms (about 31 years), got "
                        "9223372036854775807"));
  EXPECT_TRUE(ParseTrace(Stream("1000000000000"), "t.jsonl"));
}

TEST(HostileTrace, LintCountsFormatErrorsApartFromSecrets) {
  const LintReport secrets = LintTraceReport(
      kTraceHostileHeader + "\n" +
          R"({"request":{"path":"/v1/x","headers":{"authorization":"Bearer abcdefgh1234"}},"response":{"status":200}})" +
          "\n",
      "s.jsonl");
  EXPECT_EQ(secrets.problems.size(), 1u);
  EXPECT_EQ(secrets.format_errors, 0u);
  EXPECT_EQ(secrets.id, "x");
  const LintReport broken = LintTraceReport(Stream("-1"), "b.jsonl");
  EXPECT_EQ(broken.format_errors, 1u);
}

}  // namespace
}  // namespace llmconform::mockllm
