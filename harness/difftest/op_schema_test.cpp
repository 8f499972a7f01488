#include "harness/difftest/op_schema.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/json.h"
#include "base/test_paths.h"
#include "harness/oracle.h"
#include "harness/scratch_dir.h"

namespace llmconform::harness::difftest {
namespace {

namespace fs = std::filesystem;

TEST(Select, FollowsPointersAndMapsStarsOverArrays) {
  const Json doc = Json::parse(R"({"text":"t","a/b":1,"m~n":2,"findings":[{"rule":"R1","x":1},
      {"rule":"R2"},{"x":3}],"list":[10,20]})");
  EXPECT_EQ(Select(doc, ""), doc);
  EXPECT_EQ(Select(doc, "/text"), Json("t"));
  EXPECT_EQ(Select(doc, "/a~1b"), Json(1));
  EXPECT_EQ(Select(doc, "/m~0n"), Json(2));
  EXPECT_EQ(Select(doc, "/list/1"), Json(20));
  EXPECT_EQ(Select(doc, "/list/2"), std::nullopt);
  EXPECT_EQ(Select(doc, "/findings/*/rule"), Json::parse(R"(["R1","R2"])"));
  EXPECT_EQ(Select(doc, "/findings/*/x"), Json::parse("[1,3]"));
  EXPECT_EQ(Select(doc, "/nothing"), std::nullopt);
  EXPECT_EQ(Select(doc, "/text/deeper"), std::nullopt);
  EXPECT_EQ(Select(Json::array(), "/*"), Json::array());
}

TEST(DifferingPointers, AbsentOnOneSideIsADifference) {
  const Json want =
      Json::parse(R"({"text":"a","command":null,"findings":[{"rule":"R","message":"m"}]})");
  const Json got = Json::parse(R"({"text":"a","findings":[{"rule":"R","message":"other"}]})");
  EXPECT_EQ(DifferingPointers(want, got, {"/text", "/command", "/findings/*/rule"}),
            std::vector<std::string>{"/command"});
  EXPECT_TRUE(DifferingPointers(want, want, {"", "/text"}).empty());
  EXPECT_EQ(DifferingPointers(want, got, {""}), std::vector<std::string>{""});
}

RC_GTEST_PROP(DifferingPointers, AnObjectAgreesWithItselfAndDiffersWhereChanged,
              (const std::string& a, const std::string& b)) {
  const Json doc{{"x", a}, {"y", {{"z", b}}}};
  RC_ASSERT(DifferingPointers(doc, doc, {"/x", "/y/z", ""}).empty());
  Json changed = doc;
  changed["y"]["z"] = b + "!";
  RC_ASSERT(DifferingPointers(doc, changed, {"/x", "/y/z"}) == std::vector<std::string>{"/y/z"});
}

TEST(CheckComparePointer, SaysWhatIsWrong) {
  EXPECT_TRUE(CheckComparePointer(""));
  EXPECT_TRUE(CheckComparePointer("/a/*/b~0~1"));
  auto no_slash = CheckComparePointer("text");
  ASSERT_FALSE(no_slash);
  EXPECT_NE(no_slash.error().message.find("starts with '/'"), std::string::npos);
  auto tilde = CheckComparePointer("/a~2");
  ASSERT_FALSE(tilde);
  EXPECT_NE(tilde.error().message.find("'~'"), std::string::npos);
  EXPECT_FALSE(CheckComparePointer("/a~"));
}

// Every op of the oracle has a schema in specs/oracle whose compare pointers
// select something in the reference's output for each example.
TEST(LoadOpSchema, EveryOperationHasOneThatFitsItsExamples) {
  const fs::path specs = fs::path(::llmconform::test_paths::SourceRoot()) / "specs";
  for (const auto& op : OracleOperations()) {
    auto schema = LoadOpSchema(specs, op.name);
    ASSERT_TRUE(schema) << schema.error().message;
    EXPECT_EQ(schema->op, op.name);
    ASSERT_FALSE(schema->compare.empty()) << op.name;
    ASSERT_TRUE(schema->doc.contains("examples")) << op.name;
    for (const Json& example : schema->doc["examples"]) {
      auto out = op.run(example);
      ASSERT_TRUE(out) << op.name << ": " << out.error().message;
      bool any = false;
      for (const auto& p : schema->compare) any |= Select(*out, p).has_value();
      EXPECT_TRUE(any) << op.name << ": no compare pointer selects anything in " << out->dump();
    }
  }
}

TEST(LoadOpSchema, ErrorsAreLocated) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  fs::create_directories(dir.path() / "oracle");
  auto write = [&](const std::string& text) {
    std::ofstream(dir.path() / "oracle" / "x.y.json") << text;
  };
  auto missing = LoadOpSchema(dir.path(), "nope.op");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.op.json"), std::string::npos);

  write("{\"input\": {}, \"output\": {},\n \"compare\": [\"/a\", \"b\"]}");
  auto bad = LoadOpSchema(dir.path(), "x.y");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("x.y.json:2:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("starts with '/'"), std::string::npos);

  write("{\"input\": {}, \"output\": {}, \"compare\": []}");
  auto empty = LoadOpSchema(dir.path(), "x.y");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("non-empty"), std::string::npos);

  write("{\"output\": {}, \"compare\": [\"/a\"]}");
  EXPECT_FALSE(LoadOpSchema(dir.path(), "x.y"));
  write("[1, 2");
  EXPECT_FALSE(LoadOpSchema(dir.path(), "x.y"));
}

}  // namespace
}  // namespace llmconform::harness::difftest
