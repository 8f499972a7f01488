#include "base/json_locate.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>

namespace llmconform {
namespace {

TEST(LocateJsonPointer, FindsValuesInPrettyAndCompactText) {
  const std::string pretty = "{\n  \"rules\": [\"R-1\",\n    \"R-9\"],\n  \"a/b\": {\"~\": 7}\n}";
  auto at = LocateJsonPointer(pretty, "/rules/1");
  ASSERT_TRUE(at);
  EXPECT_EQ(pretty.substr(*at, 5), "\"R-9\"");
  EXPECT_EQ(LineColumnOf(pretty, *at), (LineColumn{3, 5}));
  auto escaped = LocateJsonPointer(pretty, "/a~1b/~0");  // RFC 6901 escapes
  ASSERT_TRUE(escaped);
  EXPECT_EQ(pretty[*escaped], '7');
  EXPECT_EQ(LocateJsonPointer(pretty, ""), 0u);

  const std::string compact = R"({"seq":1,"k\u0041":{"中文":[true,null,"x\/y"]}})";
  auto cjk = LocateJsonPointer(compact, "/kA/中文/2");
  ASSERT_TRUE(cjk);
  EXPECT_EQ(compact.substr(*cjk, 6), "\"x\\/y\"");
}

TEST(LocateJsonPointer, AnswersNulloptForWhatIsNotThere) {
  const std::string text = R"({"a":[1,2],"b":"s"})";
  EXPECT_FALSE(LocateJsonPointer(text, "/c"));
  EXPECT_FALSE(LocateJsonPointer(text, "/a/2"));
  EXPECT_FALSE(LocateJsonPointer(text, "/a/x"));
  EXPECT_FALSE(LocateJsonPointer(text, "/a/-"));
  EXPECT_FALSE(LocateJsonPointer(text, "/b/0"));
  EXPECT_FALSE(LocateJsonPointer(text, "a"));        // not a pointer
  EXPECT_FALSE(LocateJsonPointer("{\"a\":", "/a"));  // not JSON
  EXPECT_FALSE(LocateJsonPointer("  ", ""));         // blank
}

TEST(LocateNearestJsonPointer, FallsBackToTheNearestAncestor) {
  const std::string text = R"(  {"response":{"status":"200"}})";
  EXPECT_EQ(text.substr(LocateNearestJsonPointer(text, "/response/status"), 5), "\"200\"");
  EXPECT_EQ(text[LocateNearestJsonPointer(text, "/response/headers/x")], '{');
  EXPECT_EQ(LocateNearestJsonPointer(text, "/nothing"), 2u);
  EXPECT_EQ(LocateNearestJsonPointer("   ", "/x"), 0u);
}

TEST(JsonOffsets, PlacesPointersAsTheWalkDoes) {
  const std::string text = R"(  {"response":{"status":"200","a/b":[1,{"~":2}]},"k":1,"k":[3]})";
  const JsonOffsets offsets(text);
  for (const char* p : {"", "/response", "/response/status", "/response/headers/x", "/nothing",
                        "/response/a~1b/1/~0", "/response/a~1b/7", "/k", "/k/0"})
    EXPECT_EQ(offsets.Nearest(p), LocateNearestJsonPointer(text, p)) << p;
  EXPECT_EQ(text.substr(offsets.Nearest("/k"), 3), "[3]");  // the last of duplicate keys
  // Under an earlier duplicate nothing stays placed.
  const std::string dup = R"({"k":[3],"k":1})";
  EXPECT_EQ(JsonOffsets(dup).Nearest("/k/0"), LocateNearestJsonPointer(dup, "/k/0"));
  EXPECT_EQ(dup.substr(JsonOffsets(dup).Nearest("/k/0")), "1}");
  // A long key above a long array would repeat in every element's pointer:
  // past the table's budget each pointer is walked.
  std::string wide = "{\"" + std::string(1000, 'K') + "\":[";
  for (int i = 0; i < 2000; ++i) wide += "0,";
  wide += "1]}";
  const std::string last = "/" + std::string(1000, 'K') + "/2000";
  EXPECT_EQ(wide.substr(JsonOffsets(wide).Nearest(last), 2), "1]");
  EXPECT_EQ(JsonOffsets("   ").Nearest("/x"), 0u);
  EXPECT_EQ(JsonOffsets(" {\"a\": [").Nearest("/a"), 1u);  // not JSON: the first non-blank
}

TEST(LocateNearestJsonPointer, DoesNotParseATextPastTheLimit) {
  // 4 MB of a flow sequence took yaml-cpp half a gigabyte to scan.
  std::string text = "  {\"a\":[";
  while (text.size() <= kMaxLocatedBytes) text += "0,";
  text += "0]}";
  EXPECT_EQ(LocateJsonPointer(text, "/a/3"), std::nullopt);
  EXPECT_EQ(LocateNearestJsonPointer(text, "/a/3"), 2u);
  EXPECT_EQ(JsonOffsets(text).Nearest("/a/3"), 2u);
}

TEST(LineColumnOf, CountsLinesAndBytes) {
  EXPECT_EQ(LineColumnOf("ab\ncd", 0), (LineColumn{1, 1}));
  EXPECT_EQ(LineColumnOf("ab\ncd", 4), (LineColumn{2, 2}));
  EXPECT_EQ(LineColumnOf("ab", 99), (LineColumn{1, 3}));
}

// Any JSON value, with strings and keys that need escaping or are not ASCII.
rc::Gen<nlohmann::json> JsonValue(int depth) {
  const auto text =
      rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
                       "a", "中", "😀", "\"", "\\", "/", "~", "~1", " ", "\n", "\t", "\x01", ":",
                       ",", "{", "]", "#", "- ", "? ", "&", "*", "!", "|", ">", "'", "%", "@", "`",
                       "\xC2\x85", "\xE2\x80\xA8", "null", "true", "1")),
                   [](const std::vector<std::string>& pieces) {
                     std::string s;
                     for (const auto& p : pieces) s += p;
                     return s;
                   });
  const auto scalar = rc::gen::oneOf(
      rc::gen::just(nlohmann::json(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return nlohmann::json(b); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(),
                   [](std::int64_t i) { return nlohmann::json(i); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return nlohmann::json(d); }),
      rc::gen::map(text, [](std::string s) { return nlohmann::json(std::move(s)); }));
  if (depth <= 0) return scalar;
  using Members = std::vector<std::pair<std::string, nlohmann::json>>;
  return rc::gen::oneOf(
      scalar,
      // Small containers: a document of a few hundred values at most (every
      // pointer is located by parsing the whole text).
      rc::gen::map(
          rc::gen::resize(6, rc::gen::container<std::vector<nlohmann::json>>(JsonValue(depth - 1))),
          [](std::vector<nlohmann::json> v) { return nlohmann::json(std::move(v)); }),
      rc::gen::map(rc::gen::resize(
                       6, rc::gen::container<Members>(rc::gen::pair(text, JsonValue(depth - 1)))),
                   [](const Members& members) {
                     nlohmann::json o = nlohmann::json::object();
                     for (const auto& [k, v] : members) o[k] = v;
                     return o;
                   }));
}

// Every value of a document is found where its text stands: the compact
// dump of the document holds the compact dump of each value at the offset
// its pointer is located at.
RC_GTEST_PROP(LocateJsonPointerProperties, FindsEveryValueOfAnyDocument, ()) {
  const nlohmann::json doc = *JsonValue(3);
  const std::string text = doc.dump();
  std::vector<nlohmann::json::json_pointer> pointers{nlohmann::json::json_pointer("")};
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const nlohmann::json& v = doc[pointers[i]];
    if (v.is_object()) {
      for (const auto& [k, _] : v.items()) pointers.push_back(pointers[i] / k);
    } else if (v.is_array()) {
      for (std::size_t n = 0; n < v.size(); ++n) pointers.push_back(pointers[i] / n);
    }
  }
  const JsonOffsets offsets(text);
  for (const auto& p : pointers) {
    const auto at = LocateJsonPointer(text, p.to_string());
    RC_ASSERT(at.has_value());
    const std::string want = doc[p].dump();
    RC_ASSERT(text.substr(*at, want.size()) == want);
    // One pass over the text places every value as each walk does.
    RC_ASSERT(offsets.Nearest(p.to_string()) == *at);
    RC_ASSERT(offsets.Nearest(p.to_string() + "/no such member") == *at);
  }
}

TEST(PlacedInText, PlacesAnErrorAtTheValueItsPointerNames) {
  const std::string text = "{\n  \"rules\": [\"R-1\",\n    \"R-9\"]\n}";
  EXPECT_EQ(PlacedInText(Error::AtPointer("/rules/1", "unknown"), "x.json", text).message,
            "x.json:3:5: /rules/1: unknown");
  // A missing value: at its nearest ancestor, named by its own pointer.
  const Error missing = PlacedInText(Error::AtPointer("/nope", "missing"), "x.json", text);
  EXPECT_EQ(missing.message, "x.json:1:1: /nope: missing");
  EXPECT_EQ(missing.pointer, "/nope");
  // One line of JSON Lines, counted from its line in the file.
  EXPECT_EQ(PlacedInText(Error::AtPointer("/a", "w").Within("entry 2"), "j.jsonl", R"({"a": 1})", 4)
                .message,
            "j.jsonl:4:7: entry 2: /a: w");
  const JsonOffsets offsets(text);
  EXPECT_EQ(PlacedInText(Error::AtPointer("/rules/1", "u"), "x.json", text, 1, &offsets).message,
            "x.json:3:5: /rules/1: u");
}

}  // namespace
}  // namespace llmconform
