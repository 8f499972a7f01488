#include "protocols/thinkingml/gymbro_publisher.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::gymbro {
namespace {

TEST(EventPublisher, PublishesTheSeedShapes) {
  EventPublisher p("m1", "r1");
  RouteInfo route{"openai", "gpt-4o-mini", 1, std::nullopt};
  EXPECT_EQ(p.Status("queued"),
            (StreamEvent{"status", R"({"state":"queued","message_id":"m1","request_id":"r1"})"}));
  EXPECT_EQ(p.Status("routed", route),
            (StreamEvent{
                "status",
                R"({"state":"routed","message_id":"m1","request_id":"r1","provider":"openai",)"
                R"("resolved_model":"gpt-4o-mini","endpoint_id":1,"upstream_request_id":null})"}));
  EXPECT_EQ(
      p.Deltas("中文"),
      (std::vector<StreamEvent>{
          {"content_delta", R"({"message_id":"m1","request_id":"r1","seq":1,"delta":"中文"})"}}));
  EXPECT_EQ(
      p.Heartbeat(1736253242000),
      (StreamEvent{"heartbeat", R"({"message_id":"m1","request_id":"r1","ts":1736253242000})"}));
  route.upstream_request_id = "up-1";
  EXPECT_EQ(
      p.Completed(route),
      (StreamEvent{"completed", R"({"message_id":"m1","request_id":"r1","provider":"openai",)"
                                R"("resolved_model":"gpt-4o-mini","endpoint_id":1,)"
                                R"("upstream_request_id":"up-1","reply_len":2,"metadata":null})"}));
  EXPECT_TRUE(p.finished());
}

TEST(EventPublisher, ErrorCarriesTheLegacyField) {
  EventPublisher p("m1", "r1");
  EXPECT_EQ(
      p.Error("provider_error", "upstream closed", {"openai", "", 1, std::nullopt}),
      (StreamEvent{"error",
                   R"({"message_id":"m1","request_id":"r1","code":"provider_error",)"
                   R"("message":"upstream closed","error":"upstream closed","provider":"openai",)"
                   R"("resolved_model":null,"endpoint_id":1})"}));
}

TEST(EventPublisher, SplitsLongChunksAndNumbersEveryPiece) {
  EventPublisher p("m", "r");
  auto first = p.Deltas(std::string(300, 'x'));
  ASSERT_EQ(first.size(), 2u);
  auto second = p.Deltas("y");
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].data.find("\"seq\":3"), std::string::npos);
  EXPECT_EQ(p.reply_len(), 301u);
  EXPECT_TRUE(p.Deltas("").empty());
}

RC_GTEST_PROP(EventPublisherProperties, WhatItPublishesIsAValidStream, ()) {
  const auto chunks = *rc::gen::container<std::vector<std::string>>(
      rc::gen::map(rc::gen::pair(rc::gen::element<std::string>("a", "中", "\n", ". ", "😀"),
                                 rc::gen::inRange(0, 400)),
                   [](const std::pair<std::string, int>& p) {
                     std::string s;
                     for (int i = 0; i < p.second; ++i) s += p.first;
                     return s;
                   }));
  const bool fail = *rc::gen::arbitrary<bool>();
  EventPublisher p("m", "r");
  std::vector<StreamEvent> events{p.Status("queued"), p.Status("working"), p.Status("routed")};
  std::string expected;
  for (const auto& c : chunks) {
    for (auto& e : p.Deltas(c)) events.push_back(std::move(e));
    events.push_back(p.Heartbeat(1736253242000));
    expected += c;
  }
  events.push_back(fail ? p.Error("provider_error", "boom", {}) : p.Completed({}));
  const EventCheck check = CheckEvents(events, {"r"});
  RC_ASSERT(check.findings.empty());
  RC_ASSERT(check.reply == expected);
  RC_ASSERT(check.termination == (fail ? Termination::kError : Termination::kCompleted));
}

}  // namespace
}  // namespace llmconform::gymbro
