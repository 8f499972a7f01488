#include "base/format.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform {
namespace {

TEST(Format, SubstitutesInOrder) {
  EXPECT_EQ(Format("{}: expected {}, got {}", std::string("/a"), "string", 5),
            "/a: expected string, got 5");
  EXPECT_EQ(Format("{} {} {}", 'c', true, 1.5), "c true 1.5");
  EXPECT_EQ(Format("{{}} {}", std::string_view("x")), "{} x");
  EXPECT_EQ(Format("{}", -42LL), "-42");
  EXPECT_EQ(Format("{}", 1e22), "1e+22");
  EXPECT_EQ(Format("{}", 0.1), "0.1");
}

// Mismatched placeholders and arguments are compile errors now; these would
// not build:
//   Format("{} {}", 1);   Format("none", 1);   Format("{", 1);

TEST(UtcTimestamp, WritesRfc3339InUtc) {
  EXPECT_EQ(UtcTimestamp(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(UtcTimestamp(1795316667), "2026-11-22T03:04:27Z");
}

}  // namespace
}  // namespace llmconform
