#include "protocols/toolcalls/frontmatter.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::toolcalls {
namespace {

TEST(SplitFrontmatter, SeparatesYamlAndBodyByteForByte) {
  auto s = SplitFrontmatter("---\na: 1\n---\n# Title\n\nbody\n");
  EXPECT_TRUE(s.present);
  EXPECT_EQ(s.yaml, "a: 1\n");
  EXPECT_EQ(s.body, "# Title\n\nbody\n");
  auto crlf = SplitFrontmatter("---\r\na: 1\r\n...\r\nrest");
  EXPECT_TRUE(crlf.present);
  EXPECT_EQ(crlf.yaml, "a: 1\r\n");
  EXPECT_EQ(crlf.body, "rest");
  EXPECT_FALSE(SplitFrontmatter("# no front matter\n").present);
  EXPECT_FALSE(SplitFrontmatter("---\na: 1\n").present);  // never closed
  EXPECT_FALSE(SplitFrontmatter("\n---\na: 1\n---\n").present);
  EXPECT_TRUE(SplitFrontmatter("---\n---\n").present);
}

TEST(ParseYamlMapping, TypesScalarsByTheCoreSchema) {
  auto m = ParseYamlMapping(
      "schemaVersion: \"1.1\"\nplain: 1.1\nn: 42\nneg: -7\nhex: 0x1F\nyes: true\nnothing: "
      "~\nempty:\n"
      "steps: []\nvars: {}\nname: step-01\nquoted: 'true'\nlist:\n  - a\n  - 2\n");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ((*m)["schemaVersion"], "1.1");
  EXPECT_EQ((*m)["plain"], 1.1);
  EXPECT_EQ((*m)["n"], 42);
  EXPECT_EQ((*m)["neg"], -7);
  EXPECT_EQ((*m)["hex"], 31);
  EXPECT_EQ((*m)["yes"], true);
  EXPECT_TRUE((*m)["nothing"].is_null());
  EXPECT_TRUE((*m)["empty"].is_null());
  EXPECT_EQ((*m)["steps"], OJson::array());
  EXPECT_EQ((*m)["vars"], OJson::object());
  EXPECT_EQ((*m)["name"], "step-01");
  EXPECT_EQ((*m)["quoted"], "true");
  EXPECT_EQ((*m)["list"], (OJson{"a", 2}));
  // Key order is kept.
  EXPECT_EQ(m->begin().key(), "schemaVersion");
}

TEST(ParseYamlMapping, ReportsWhereAndWhat) {
  EXPECT_EQ(ParseYamlMapping("a: [1, 2\n").error().message.substr(0, 18), "line 2, column 1: ");
  EXPECT_EQ(ParseYamlMapping("- a\n- b\n").error().message,
            "line 1, column 1: front matter must be a mapping, got a sequence");
  EXPECT_EQ(ParseYamlMapping("a: 1\na: 2\n").error().message,
            "line 2, column 1: duplicate key \"a\"");
  EXPECT_EQ(ParseYamlMapping("").value(), OJson::object());
}

TEST(ParseYamlMapping, TypesAHugeScalarWithoutRecursing) {
  // std::regex_match recursed per character on the scalar; RE2 does not.
  const std::string digits(1 << 20, '7');
  auto m = ParseYamlMapping("n: " + digits + "\ns: " + std::string(1 << 20, '.') + "\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE((*m)["n"].is_number_float());  // beyond int64: the magnitude is kept
  EXPECT_TRUE((*m)["s"].is_string());
}

TEST(EmitYaml, WritesBlockStyleWithQuotedStrings) {
  OJson m = {{"currentNodeId", "step-01"},
             {"stepsCompleted", OJson::array()},
             {"variables", OJson::object()},
             {"n", 3},
             {"ok", true},
             {"list", {"a", "b"}}};
  EXPECT_EQ(EmitYaml(m),
            "currentNodeId: \"step-01\"\nstepsCompleted: []\nvariables: {}\nn: 3\nok: "
            "true\nlist:\n  - \"a\"\n  - "
            "\"b\"\n");
  EXPECT_EQ(ComposeFrontmatter(OJson{{"a", "1"}}, "body\n"), "---\na: \"1\"\n---\nbody\n");
}

// Arbitrary JSON values a front matter can hold.
rc::Gen<OJson> GenValue(int depth) {
  auto scalar = rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string s) { return OJson(s); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t v) { return OJson(v); }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return OJson(b); }),
      rc::gen::just(OJson(nullptr)),
      rc::gen::map(rc::gen::inRange(-100000, 100000), [](int v) { return OJson(v / 8.0); }));
  if (depth == 0) return scalar;
  auto key = rc::gen::arbitrary<std::string>();
  return rc::gen::oneOf(
      scalar,
      rc::gen::map(rc::gen::container<std::vector<OJson>>(rc::gen::resize(4, GenValue(depth - 1))),
                   [](std::vector<OJson> v) { return OJson(v); }),
      rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, OJson>>>(
                       rc::gen::resize(4, rc::gen::pair(key, GenValue(depth - 1)))),
                   [](std::vector<std::pair<std::string, OJson>> kv) {
                     OJson o = OJson::object();
                     for (auto& [k, v] : kv) o[k] = v;
                     return o;
                   }));
}

std::string ValidText(const std::string& s) {
  // YAML cannot hold every control byte; keep printable ASCII and UTF-8.
  std::string out;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
      out.push_back(c);
  }
  return out;
}

OJson Printable(const OJson& v) {
  if (v.is_string()) return ValidText(v.get<std::string>());
  if (v.is_array()) {
    OJson out = OJson::array();
    for (const auto& x : v) out.push_back(Printable(x));
    return out;
  }
  if (v.is_object()) {
    OJson out = OJson::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[ValidText(it.key())] = Printable(it.value());
    return out;
  }
  return v;
}

RC_GTEST_PROP(FrontmatterProperties, EmitThenParseRoundTrips, ()) {
  OJson value = Printable(*GenValue(2));
  OJson mapping = OJson::object();
  mapping["value"] = value;
  auto back = ParseYamlMapping(EmitYaml(mapping));
  RC_ASSERT(back.has_value());
  RC_ASSERT(*back == mapping);
}

}  // namespace
}  // namespace llmconform::toolcalls
