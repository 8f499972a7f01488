#include "protocols/thinkingml/oracle_ops.h"

#include <gtest/gtest.h>

#include "base/json.h"

namespace llmconform::thinkingml {
namespace {

const OracleOp& Op(std::string_view name) {
  static const std::vector<OracleOp> ops = OracleOps();
  return OracleOpNamed(ops, name);
}

TEST(OracleOps, ValidateReturnsFindingsWithPositionsAndParts) {
  auto out =
      Op("thinkingml.validate")
          .run(Json{{"text",
                     "<thinking><phase id=\"1\"><title>T</title>x</phase></thinking>\n"
                     "<final>答\n<!-- <serp_queries>\n[\"q\"]\n</serp_queries> --></final><br>"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, Json::parse(R"({"valid":false,
    "findings":[{"rule":"TML-2.1","line":5,"column":28,
      "message":"tag \"<br>\" is not allowed; only <think>, <serp>, <thinking>, <phase id=\"N\">, <title> and <final> may appear"}],
    "parts":{"think":null,"serp":null,"phases":[{"id":1,"title":"T","text":"x"}],"final":"答","queries":["q"]}})"));
}

TEST(OracleOps, ValidateRejectsInputWithoutText) {
  auto out = Op("thinkingml.validate").run(Json{{"txt", "x"}});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, "/text: expected string, got nothing (the field is required)");
}

TEST(OracleOps, Escape) {
  auto out = Op("thinkingml.escapeThinkingFinalLiterals")
                 .run(Json{{"text", "<thinking><final></thinking>"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, (Json{{"text", "<thinking>&lt;final&gt;</thinking>"}}));
}

TEST(OracleOps, CheckEventsTakesDataAsTextOrObject) {
  auto out = Op("gymbro.checkEvents").run(Json::parse(R"({"request_id":"r","events":[
                    {"event":"content_delta","data":{"message_id":"m","request_id":"r","seq":1,"delta":"a"}},
                    {"event":"content_delta","data":"{\"message_id\":\"m\",\"request_id\":\"r\",\"seq\":3,\"delta\":\"b\"}"},
                    {"event":"completed","data":{"message_id":"m","request_id":"r","reply_len":2}}]})"));
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, Json::parse(R"({"valid":false,"reply":"ab","outcome":"completed","findings":[
    {"rule":"GYMBRO-6.5","severity":"must","event":1,
     "message":"event 2 (content_delta) has seq 3 where 2 was expected; seq starts at 1 and rises by 1"}]})"));
}

TEST(OracleOps, CheckEventsReportsMalformedInput) {
  auto out = Op("gymbro.checkEvents").run(Json::parse(R"({"events":[{"event":"status"}]})"));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message,
            "/events/0/data: expected string or object, got nothing (the field is required)");
  auto bad_id = Op("gymbro.checkEvents").run(Json::parse(R"({"events":[],"request_id":5})"));
  ASSERT_FALSE(bad_id);
  EXPECT_EQ(bad_id.error().message, "/request_id: expected string, got number");
}

}  // namespace
}  // namespace llmconform::thinkingml
