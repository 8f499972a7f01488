#include "protocols/toolcalls/utf8.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::toolcalls {
namespace {

TEST(Utf8, ReplacesInvalidSequences) {
  EXPECT_EQ(ToValidUtf8("abc"), "abc");
  EXPECT_EQ(ToValidUtf8("a\xff"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ToValidUtf8("\xE4\xB8"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // a cut 3-byte sequence
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(ToValidUtf8("中文"), "中文");
}

TEST(Utf8, PrefixNeverCutsASequence) {
  const std::string s = "a中b";  // a, 3 bytes, b
  EXPECT_EQ(Utf8Prefix(s, 0), 0u);
  EXPECT_EQ(Utf8Prefix(s, 1), 1u);
  EXPECT_EQ(Utf8Prefix(s, 2), 1u);
  EXPECT_EQ(Utf8Prefix(s, 3), 1u);
  EXPECT_EQ(Utf8Prefix(s, 4), 4u);
  EXPECT_EQ(Utf8Prefix(s, 99), 5u);
  EXPECT_EQ(CodePoints("a中b"), 3u);
}

RC_GTEST_PROP(Utf8Properties, PrefixOfValidTextIsValid, (const std::string& raw, unsigned cut)) {
  const std::string text = ToValidUtf8(raw);
  const std::size_t n = Utf8Prefix(text, cut % (text.size() + 1));
  RC_ASSERT(n <= text.size());
  RC_ASSERT(ToValidUtf8(text.substr(0, n)) == text.substr(0, n));
  RC_ASSERT(ToValidUtf8(text) == text);
}

}  // namespace
}  // namespace llmconform::toolcalls
