#include "base/json_fields.h"

#include <gtest/gtest.h>

namespace llmconform {
namespace {

const JsonPointer kRoot;

TEST(JsonFields, PlainReadersNameTheField) {
  const Json j = {{"text", 1}};
  EXPECT_EQ(RequireString(j, "text").error().message, "/text: expected string, got number");
  EXPECT_EQ(RequireInt(j, "n").error().message,
            "/n: expected integer, got nothing (the field is required)");
  EXPECT_EQ(*RequireInt(Json{{"n", 3.0}}, "n"), 3);
  EXPECT_FALSE(*OptionalString(Json{{"s", nullptr}}, "s"));
}

TEST(JsonFields, LocatedReadersNameTheValueByItsPointer) {
  const Json j = {{"history", {{{"role", 1}}}}, {"a/b", "x"}};
  const JsonPointer item = JsonPointer("/history") / 0;
  const auto role = RequireString(j["history"][0], item, "role");
  ASSERT_FALSE(role);
  EXPECT_EQ(role.error().message, "/history/0/role: expected string, got number");
  EXPECT_EQ(role.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(RequireString(j, kRoot, "text").error().message,
            "/text: expected string, got nothing (the field is required)");
  EXPECT_EQ(*RequireString(j, kRoot, "a/b"), "x");
  EXPECT_EQ(RequireString(j, kRoot / "a/b", "c").error().message,
            "/a~1b/c: expected string, got nothing (the field is required)");
  EXPECT_EQ(RequireInt(Json{{"n", 1.5}}, kRoot, "n").error().message,
            "/n: expected integer, got number");
  EXPECT_EQ(RequireArray(j, kRoot, "a/b").error().message, "/a~1b: expected array, got string");
  EXPECT_EQ(OptionalBool(Json{{"b", "no"}}, JsonPointer("/input"), "b").error().message,
            "/input/b: expected boolean, got string");
  EXPECT_EQ(*OptionalInt(Json{{"n", nullptr}}, kRoot, "n"), std::nullopt);
  EXPECT_EQ(RequireObjectAt(Json::array(), kRoot).error().message, "/: expected object, got array");
  EXPECT_EQ(ErrorAt(JsonPointer("/x"), "too small").message, "/x: too small");
}

TEST(JsonFields, AnIntegerMustFitIn64SignedBits) {
  // 2^64 - 1 parses as an unsigned integer, 2^64 and 1e999-like values as
  // floats: neither may wrap or be cast out of range.
  EXPECT_EQ(RequireInt(Json{{"n", Json::parse("18446744073709551615")}}, "n").error().message,
            "/n: expected integer within 64 bits, got number");
  EXPECT_EQ(RequireInt(Json{{"n", Json::parse("18446744073709551616")}}, "n").error().message,
            "/n: expected integer within 64 bits, got number");
  EXPECT_EQ(RequireInt(Json{{"n", -1e300}}, "n").error().message,
            "/n: expected integer within 64 bits, got number");
  EXPECT_EQ(*RequireInt(Json{{"n", Json::parse("9223372036854775807")}}, "n"), INT64_MAX);
  EXPECT_EQ(*RequireInt(Json{{"n", -0x1p63}}, "n"), INT64_MIN);
}

TEST(JsonFields, OptionalStringsReadsAnArrayOfStrings) {
  EXPECT_EQ(*OptionalStrings(Json{{"c", {"a", "b"}}}, kRoot, "c"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*OptionalStrings(Json::object(), kRoot, "c"), std::nullopt);
  EXPECT_EQ(OptionalStrings(Json{{"c", {"a", 2}}}, kRoot, "c").error().message,
            "/c/1: expected string, got number");
  EXPECT_EQ(OptionalStrings(Json{{"c", "a"}}, kRoot, "c").error().message,
            "/c: expected array, got string");
}

}  // namespace
}  // namespace llmconform
