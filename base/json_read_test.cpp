#include "base/json_read.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "base/utf8.h"

namespace llmconform {
namespace {

TEST(ReadJson, ReadsJson) {
  auto j = ReadJson("in", R"({"a":[1,2.5,"x"],"b":null})");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["a"][1], 2.5);
  auto o = ReadOrderedJson("in", R"({"z":1,"a":2})");
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->begin().key(), "z");
}

TEST(ReadJson, LocatesSyntaxErrors) {
  auto j = ReadJson("spec.json", "{\n  \"a\": tru\n}");
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().message.rfind("spec.json:2:", 0), 0u) << j.error().message;
  EXPECT_NE(j.error().message.find("syntax error while parsing value"), std::string::npos);
}

TEST(ReadJson, RefusesInvalidUtf8InAStringWithItsPlace) {
  auto j = ReadJson("stdin",
                    "{\"text\":\"a\xff"
                    "b\"}");
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().message, "stdin:1:11: invalid UTF-8 in a string (byte 0xFF)");
  EXPECT_TRUE(IsValidUtf8(j.error().message));
  // Outside a string the parser refuses the byte; the message stays valid UTF-8.
  auto k = ReadJson("stdin", "[\xff]");
  ASSERT_FALSE(k.has_value());
  EXPECT_TRUE(IsValidUtf8(k.error().message)) << k.error().message;
}

TEST(ReadJson, RefusesANulByteWhereverItIs) {
  // The parser would stop at it and take `{}` for the whole text.
  using namespace std::string_literals;
  auto j = ReadJson("body", "{}\0junk"s);
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().message, "body:1:3: a NUL byte (JSON text holds none outside strings)");
  EXPECT_FALSE(ReadJson("body", "{\"a\":\"x\0\"}"s).has_value());  // inside a string: the parser's
  EXPECT_TRUE(ReadJsonOrDiscarded("[1]\0"s).is_discarded());
}

TEST(ReadJson, RefusesNumbersOutOfRange) {
  auto j = ReadJson("stdin", R"({"text":1e999})");
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().message, "stdin:1:9: number 1e999 is out of range (beyond ±1.8e308)");
  EXPECT_FALSE(ReadJson("x", "-1E+400").has_value());
  EXPECT_FALSE(ReadJson("x", std::string(400, '9')).has_value());
  EXPECT_TRUE(ReadJson("x", "[1e308, -2.5e-400, 123456789012345678901234567890]").has_value());
  EXPECT_TRUE(ReadJson("x", R"(["1e999"])").has_value());  // in a string it is text
}

TEST(ReadJson, RefusesDeepNestingBeforeParsing) {
  auto j = ReadJson("stdin", std::string(100000, '['));
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().message, "stdin:1:513: arrays and objects nest deeper than 512 levels");
  const std::string ok = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(ReadJson("x", ok).has_value());
  EXPECT_TRUE(ReadJson("x", R"(["[[[[[[", "{{{{"])", {.max_depth = 2}).has_value());
  EXPECT_FALSE(ReadJson("x", "[[[]]]", {.max_depth = 2}).has_value());
  EXPECT_TRUE(ReadJson("x", "[[]]", {.max_depth = 2}).has_value());
  EXPECT_EQ(ReadJson("x", std::string(513, '[') + std::string(513, ']')).error().message,
            "x:1:513: arrays and objects nest deeper than 512 levels");
  EXPECT_EQ(ReadJson("x", "{\"a\":[{\"b\":1}]}", {.max_depth = 2}).error().message,
            "x:1:7: arrays and objects nest deeper than 2 levels");
  EXPECT_TRUE(ReadJson("x", "{\"a\":[1]}", {.max_depth = 2}).has_value());
}

TEST(ReadJson, CountsLinesFromTheFirstLineGiven) {
  auto j = ReadJson("trace.jsonl", "{\"a\":1e999}", {.first_line = 7});
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().position, (FilePosition{"trace.jsonl", 7, 6}));
  EXPECT_EQ(j.error().message.rfind("trace.jsonl:7:6: ", 0), 0u);
}

TEST(DumpJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  nlohmann::json j = {{"t", std::string("a\xff")}};
  EXPECT_EQ(DumpJson(j), "{\"t\":\"a\xEF\xBF\xBD\"}");
}

// Any bytes: a value or a located error, never an exception or a crash.
void CheckAnyText(const std::string& text) {
  auto j = ReadJson("p", text);
  if (j) {
    RC_ASSERT(IsValidUtf8(DumpJson(*j)));
  } else {
    RC_ASSERT(j.error().message.rfind("p:", 0) == 0u);
    RC_ASSERT(IsValidUtf8(j.error().message));
  }
  auto o = ReadOrderedJson("p", text);
  RC_ASSERT(o.has_value() == j.has_value());
}

RC_GTEST_PROP(ReadJsonProperties, RandomBytesNeverCrash, (std::string bytes)) {
  CheckAnyText(bytes);
}

RC_GTEST_PROP(ReadJsonProperties, JsonLikeTextNeverCrashes, ()) {
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "[", "]", "{", "}", "\"", ":", ",", "1e999", "-1e-999", "0", "true", "\"a\xff\"", "\\",
      "\"k\":", "\xE2\x82", " ", "\n", "1" + std::string(330, '0')));
  std::string text;
  for (const auto& p : pieces) text += p;
  CheckAnyText(text);
}

RC_GTEST_PROP(ReadJsonProperties, DeepNestingIsAnErrorNotAStackOverflow, ()) {
  const auto depth = *rc::gen::inRange<std::size_t>(513, 200000);
  const bool objects = *rc::gen::arbitrary<bool>();
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) text += objects ? "{\"a\":" : "[";
  CheckAnyText(text);
  RC_ASSERT(!ReadJson("p", text).has_value());
}

// ReadJson reads with simdjson and converts; what it gives must be what
// nlohmann's own parser gives, to the type of each number and the order and
// value of each member: the trace bodies it reads are replayed from it.
void ExpectAsNlohmannReads(std::string_view text) {
  SCOPED_TRACE(std::string(text));
  auto ours = ReadJson("t", text);
  auto ordered = ReadOrderedJson("t", text);
  const auto theirs = nlohmann::json::parse(text, nullptr, false);
  const auto theirs_ordered = nlohmann::ordered_json::parse(text, nullptr, false);
  ASSERT_EQ(ours.has_value(), !theirs.is_discarded());
  ASSERT_EQ(ordered.has_value(), !theirs_ordered.is_discarded());
  if (!ours) return;
  EXPECT_EQ(ours->dump(), theirs.dump());
  EXPECT_EQ(ordered->dump(), theirs_ordered.dump());
  EXPECT_EQ(ours->type(), theirs.type());
  EXPECT_EQ(ordered->type(), theirs_ordered.type());
  EXPECT_EQ(ReadJsonOrDiscarded(text).dump(), theirs.dump());
  EXPECT_EQ(ReadOrderedJsonOrDiscarded(text).dump(), theirs_ordered.dump());
}

TEST(ReadJson, ReadsEveryValueAsNlohmannDoes) {
  for (std::string_view text : {
           "0",
           "-0",
           "-0.0",
           "0.0",
           "-5",
           "5",
           "1.5",
           "1e2",
           "1E-2",
           "1e-400",
           "-1e-400",
           "9223372036854775807",
           "9223372036854775808",
           "18446744073709551615",
           "18446744073709551616",
           "-9223372036854775808",
           "-9223372036854775809",
           "123456789012345678901234567890",
           "0.1",
           "3.141592653589793238462643383279",
           R"({"b":1,"a":2,"b":3})",
           R"({"":[],"x":{}})",
           R"([1,-1,1.0,-0,true,false,null])",
           R"("\u00e9\ud83d\ude00\u0000\n")",
           R"("\ud800")",
           R"("\udc00x")",
           "\xEF\xBB\xBF[1]",
           " [1] ",
           "[1] x",
           "[1,]",
           "{\"a\" 1}",
           "",
           "  ",
           "nul",
           "\"\x01\"",
           "\"\t\"",
           "[\"a\xC3\xA9\"]",
           "01",
           "1.",
           "-",
           "+1",
           ".5",
           "1e",
           "[1]\n\n",
           "\x0C[1]",
       }) {
    ExpectAsNlohmannReads(text);
  }
  // An empty view (a null pointer) is no JSON.
  EXPECT_FALSE(ReadJson("e", std::string_view()).has_value());
  EXPECT_TRUE(ReadJsonOrDiscarded(std::string_view()).is_discarded());
  // Past the parser kept per thread, and back.
  ExpectAsNlohmannReads("[\"" + std::string(100000, 'x') + "\", -0, 7]");
  ExpectAsNlohmannReads(R"({"small": [1, 2]})");
}

RC_GTEST_PROP(ReadJsonProperties, ReadsWhatNlohmannWritesAsNlohmannReadsIt, ()) {
  // JSON text from pieces of every kind of value, then damaged or not.
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "[", "]", "{", "}", ",", ":", "\"k\"", "\"k\":", "\"\\u00e9\"", "0", "-0", "-0.0", "7", "-7",
      "2.50", "1e5", "18446744073709551616", "true", "null", " ", "\"a\\\"b\""));
  std::string text;
  for (const auto& p : pieces) text += p;
  ExpectAsNlohmannReads(text);
  const auto value = nlohmann::json::parse(text, nullptr, false);
  if (!value.is_discarded()) ExpectAsNlohmannReads(value.dump());
}

// Values of every kind, with strings of any bytes (control characters,
// quotes, backslashes, multi-byte and invalid UTF-8) as values and keys.
template <class J>
rc::Gen<J> ArbitraryValue(int depth) {
  // Valid UTF-8 from pieces that need escaping or are multi-byte, and any bytes.
  const auto valid =
      rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
                       "\"", "\\", "\n", "\r", "\t", "\b", "\f", std::string(1, '\0'), "\x01",
                       "\x1f", "\x7f", "a", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80")),
                   [](const std::vector<std::string>& pieces) {
                     std::string s;
                     for (const auto& p : pieces) s += p;
                     return s;
                   });
  const auto text =
      rc::gen::oneOf(valid, rc::gen::arbitrary<std::string>(),
                     rc::gen::container<std::string>(rc::gen::element<char>(
                         '"', '\\', '\n', '\x01', 'a', '\xC3', '\xA9', '\x80', '\xFF')));
  const auto scalar = rc::gen::oneOf(
      rc::gen::just(J(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return J(b); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t i) { return J(i); }),
      rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t i) { return J(i); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return J(d); }),
      rc::gen::map(text, [](std::string s) { return J(std::move(s)); }));
  if (depth == 0) return scalar;
  // A few members each, so that three levels stay small; strings keep their size.
  const auto few = rc::gen::inRange<std::size_t>(0, 5);
  return rc::gen::oneOf(
      scalar,
      rc::gen::mapcat(few,
                      [depth](std::size_t n) {
                        return rc::gen::map(
                            rc::gen::container<std::vector<J>>(n, ArbitraryValue<J>(depth - 1)),
                            [](std::vector<J> v) { return J(std::move(v)); });
                      }),
      rc::gen::mapcat(few, [depth, text](std::size_t n) {
        return rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, J>>>(
                                n, rc::gen::pair(text, ArbitraryValue<J>(depth - 1))),
                            [](std::vector<std::pair<std::string, J>> kv) {
                              J o = J::object();
                              for (auto& [k, v] : kv) o[k] = std::move(v);
                              return o;
                            });
      }));
}

// The compact DumpJson writes what nlohmann writes, byte for byte.
RC_GTEST_PROP(DumpJsonProperties, CompactDumpIsNlohmannsDump, ()) {
  const auto j = *ArbitraryValue<nlohmann::json>(3);
  RC_ASSERT(DumpJson(j) == j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const auto o = *ArbitraryValue<nlohmann::ordered_json>(3);
  std::string appended = "x";
  AppendJson(appended, o);
  RC_ASSERT(appended ==
            "x" + o.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

TEST(DumpJson, EscapesAsNlohmannDoes) {
  const nlohmann::json j = {
      {"k\"\\", std::string("\x01\x1f\x7f\b\t\n\f\r\"\\\xC3\xA9 \xE2\x82\xAC")},
      {"n", {-7, 18446744073709551615u, 1.5, nullptr, true}}};
  EXPECT_EQ(DumpJson(j),
            "{\"k\\\"\\\\\":\"\\u0001\\u001f\x7f\\b\\t\\n\\f\\r\\\"\\\\\xC3\xA9 \xE2\x82\xAC\","
            "\"n\":[-7,18446744073709551615,1.5,null,true]}");
  EXPECT_EQ(DumpJson(j, 1), j.dump(1));
}

}  // namespace
}  // namespace llmconform
