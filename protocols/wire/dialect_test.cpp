#include "protocols/wire/dialect.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "protocols/wire/dialect_test_support.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::wire {
namespace {

using test_support::Ids;

const Deviation* Find(const std::vector<Deviation>& ds, std::string_view id) {
  for (const auto& d : ds) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

TEST(Dialect, OpenAiBaselineShowsNothing) {
  const std::string s =
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_"
      "reason\":null}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
  EXPECT_EQ(Ids(DetectStreamDialect(s)), std::vector<std::string>{});
}

TEST(Dialect, StreamDeviationsAreLocated) {
  const std::string s =
      ": keep-alive\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"hm\"}}]"
      "}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\","
      "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]},"
      "\"finish_reason\":\"stop\"}]}\n\n";
  const auto ds = DetectStreamDialect(s);
  ASSERT_NE(Find(ds, "DIA-REASONING-CONTENT"), nullptr);
  EXPECT_EQ(Find(ds, "DIA-REASONING-CONTENT")->where, "event 1 /choices/0/delta/reasoning_content");
  EXPECT_EQ(Find(ds, "DIA-ROLE-EVERY-CHUNK")->where, "event 2 /choices/0/delta/role");
  EXPECT_EQ(Find(ds, "DIA-TOOLCALL-NO-INDEX")->where, "event 2 /choices/0/delta/tool_calls/0");
  EXPECT_EQ(Find(ds, "DIA-FINISH-REASON-OMITTED")->where, "event 1 /choices/0");
  // From the accumulator's findings, mapped.
  EXPECT_EQ(Find(ds, "DIA-KEEPALIVE-COMMENT")->where, "stream");
  EXPECT_NE(Find(ds, "DIA-NO-DONE"), nullptr);
  EXPECT_NE(Find(ds, "DIA-FINISH-REASON-NOT-TOOL-CALLS"), nullptr);
}

TEST(Dialect, ABodyWithANullObjectFieldIsReadNotThrown) {
  EXPECT_NO_THROW(DetectBodyDialect(R"({"object":null,"x":1})", 500));
  EXPECT_TRUE(DetectBodyDialect(R"({"object":null,"x":1})", 500).empty());
}

TEST(Dialect, BodyDeviations) {
  EXPECT_EQ(Ids(DetectBodyDialect(R"({"error":{"code":429,"message":"x"}})", 200)),
            std::vector<std::string>{"DIA-ERROR-WITH-200"});
  EXPECT_EQ(Ids(DetectBodyDialect(R"({"error":{"code":429,"message":"x"}})", 429)),
            std::vector<std::string>{});
  EXPECT_EQ(Ids(DetectBodyDialect(R"({"detail":"bad"})", 422)),
            std::vector<std::string>{"DIA-FLAT-ERROR"});
  EXPECT_EQ(Ids(DetectBodyDialect(R"([{"error":{"code":400}}])", 400)),
            std::vector<std::string>{"DIA-ERROR-ARRAY"});
  const auto ds = DetectBodyDialect(
      R"({"choices":[{"message":{"content":"<think>x</think>y","reasoning_content":"r"}}]})", 200);
  EXPECT_EQ(Ids(ds),
            (std::vector<std::string>{"DIA-REASONING-CONTENT", "DIA-THINK-TAGS-IN-CONTENT"}));
  EXPECT_EQ(ds[0].where, "/choices/0/message/reasoning_content");
  EXPECT_EQ(Ids(DetectBodyDialect("not json", 500)), std::vector<std::string>{"DIA-NOT-JSON-BODY"});
}

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) + "/" + path);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The catalogue (specs/wire/dialects.json) and the code agree: every id the
// detectors report has an entry, and the entries with a `reader` are the
// deviations the stream accumulator reports.
// The Responses API's detector: each deviation at its first place; the Chat
// detector's ids are not reported on a Responses stream.
TEST(Dialect, ResponsesDeviationsAreLocated) {
  const std::string s =
      "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"model\":\"m\"}}\n\n"
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"output_index\":0,"
      "\"delta\":\"hi\"}\n\n"
      "event: response.output_item.added\n"
      "data: {\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":1,"
      "\"item\":{\"type\":\"function_call\",\"name\":\"f\"}}\n\n"
      "event: response.completed\n"
      "data: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":{\"status\":"
      "\"completed\"}}\n\n"
      "data: [DONE]\n\n";
  const auto ds = DetectStreamDialect(Surface::kResponses, s);
  EXPECT_EQ(Ids(ds),
            (std::vector<std::string>{"DIA-RESP-UNNAMED-EVENTS", "DIA-RESP-NO-SEQUENCE-NUMBER",
                                      "DIA-RESP-NO-ITEM-ADDED", "DIA-RESP-CALL-ID-AT-DONE",
                                      "DIA-RESP-NO-USAGE", "DIA-RESP-DONE-SENTINEL"}));
  EXPECT_EQ(Find(ds, "DIA-RESP-UNNAMED-EVENTS")->where, "event 1");
  EXPECT_EQ(Find(ds, "DIA-RESP-NO-SEQUENCE-NUMBER")->where, "event 1 /sequence_number");
  EXPECT_EQ(Find(ds, "DIA-RESP-NO-ITEM-ADDED")->where, "event 2 /output_index");
  EXPECT_EQ(Find(ds, "DIA-RESP-CALL-ID-AT-DONE")->where, "event 3 /item/call_id");
  EXPECT_EQ(Find(ds, "DIA-RESP-NO-USAGE")->where, "event 4 /response/usage");
  EXPECT_EQ(Find(ds, "DIA-RESP-DONE-SENTINEL")->where, "event 5");
  // A call_id that changes between .added and .done.
  const std::string changed =
      "event: response.output_item.added\n"
      "data: {\"type\":\"response.output_item.added\",\"sequence_number\":0,\"output_index\":0,"
      "\"item\":{\"type\":\"function_call\",\"call_id\":\"a\",\"name\":\"f\"}}\n\n"
      "event: response.output_item.done\n"
      "data: {\"type\":\"response.output_item.done\",\"sequence_number\":1,\"output_index\":0,"
      "\"item\":{\"type\":\"function_call\",\"call_id\":\"b\",\"name\":\"f\"}}\n\n";
  const auto dc = DetectStreamDialect(Surface::kResponses, changed);
  ASSERT_EQ(Ids(dc), std::vector<std::string>{"DIA-RESP-CALL-ID-AT-DONE"});
  EXPECT_EQ(dc[0].where, "event 2 /item/call_id");
  // A body: usage missing from a completed response; an error body is no response.
  EXPECT_EQ(
      Ids(DetectBodyDialect(Surface::kResponses,
                            R"({"object":"response","status":"completed","error":null})", 200)),
      std::vector<std::string>{"DIA-RESP-NO-USAGE"});
  EXPECT_TRUE(DetectBodyDialect(Surface::kResponses, R"({"error":{"message":"x"}})", 400).empty());
  // Hostile values: an index past 2^63, data that is not JSON, no bytes at all.
  EXPECT_EQ(Ids(DetectStreamDialect(Surface::kResponses,
                                    "event: x\ndata: {\"sequence_number\":0,\"output_index\":"
                                    "1e300}\n\nevent: y\ndata: {nope\n\n")),
            std::vector<std::string>{});
  EXPECT_TRUE(DetectStreamDialect(Surface::kResponses, "").empty());
}

TEST(Dialect, CatalogueMatchesTheCode) {
  const auto catalogue = nlohmann::json::parse(ReadSource("specs/wire/dialects.json"));
  std::set<std::string> listed, read;
  for (const auto& e : catalogue["dialects"]) {
    listed.insert(e["id"].get<std::string>());
    EXPECT_TRUE(e.contains("wire") && e.contains("providers") && e.contains("sources")) << e["id"];
    // Each deviation is of one surface, which its id's prefix names.
    const std::string id = e["id"].get<std::string>();
    const std::string surface = id.starts_with("DIA-RESP-")  ? "responses"
                                : id.starts_with("DIA-MSG-") ? "messages"
                                : id.starts_with("DIA-GEM-") ? "gemini"
                                                             : "chat";
    EXPECT_EQ(e.value("surface", ""), surface) << id;
    if (e.contains("reader")) {
      read.insert(e["id"].get<std::string>());
      const auto& r = e["reader"];
      EXPECT_TRUE(r.value("severity", "") == "must" || r.value("severity", "") == "should")
          << e["id"];
      EXPECT_FALSE(r.value("text", "").empty()) << e["id"];
      EXPECT_FALSE(r.value("source", "").empty()) << e["id"];
    }
  }
  for (std::string_view id : DialectIds()) EXPECT_TRUE(listed.contains(std::string(id))) << id;
  EXPECT_EQ(listed.size(), DialectIds().size());
  // A surface's detectors name only that surface's deviations.
  std::map<std::string, std::string> surface_of;
  for (const auto& e : catalogue["dialects"])
    surface_of[e["id"].get<std::string>()] = e.value("surface", "");
  for (Surface surface : AllSurfaces())
    for (std::string_view id : DialectIds(surface))
      EXPECT_EQ(surface_of[std::string(id)], SurfaceName(surface)) << id;
  EXPECT_EQ(read, std::set<std::string>(kAccumulatorDeviationIds.begin(),
                                        kAccumulatorDeviationIds.end()));
  for (std::string_view id : kAccumulatorDeviationIds) EXPECT_TRUE(IsDeviationId(id)) << id;
  EXPECT_FALSE(IsDeviationId("WIRE-STREAM-MALFORMED-CHUNK"));
}

// One name per deviation: the former WIRE-DIALECT-* names live only in the
// catalogue's `formerly` and in docs/dialects.md's table of old names, which
// agree; no rule of specs/wire/rules.json carries one.
TEST(Dialect, FormerNamesAreOnlyATableForOldReports) {
  const auto catalogue = nlohmann::json::parse(ReadSource("specs/wire/dialects.json"));
  const std::string doc = ReadSource("docs/dialects.md");
  std::set<std::string> former;
  for (const auto& e : catalogue["dialects"]) {
    if (!e.contains("formerly")) continue;
    const std::string old = e["formerly"].get<std::string>();
    EXPECT_TRUE(old.starts_with("WIRE-DIALECT-")) << old;
    EXPECT_TRUE(former.insert(old).second) << old << " is the former name of two deviations";
    const std::string row = "| `" + old + "` | `" + e["id"].get<std::string>() + "` |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/dialects.md lacks the row " << row;
  }
  EXPECT_EQ(former.size(), kAccumulatorDeviationIds.size());
  EXPECT_EQ(ReadSource("specs/wire/rules.json").find("WIRE-DIALECT-"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::wire
