// Anthropic Messages' dialects (DIA-MSG-*): each rewrite, applied to the
// recorded Anthropic corpus (fixtures/recorded/anthropic) and the probe's
// Messages stand-ins (fixtures/probe/messages), is found by the detector of
// `llmconform dialect` as exactly its own deviation; the provider dialects
// show exactly theirs; the replies still accumulate to the same content; a
// dialect of another surface leaves a Messages reply byte for byte, and a
// Messages dialect a Chat or Responses reply.
#include <gtest/gtest.h>

#include <set>

#include "mockllm/dialect_rewrite.h"
#include "mockllm/surface_dialect_test_support.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using wire::Surface;

using test_support::Detect;
using test_support::Joined;
using test_support::Load;

// Anthropic's own Messages exchanges and the probe's stand-ins: the
// canonical replies the rewrites start from (each shows no deviation).
std::vector<Exchange> CanonicalMessages() {
  std::vector<Exchange> out;
  for (const char* dir : {"fixtures/recorded/anthropic", "fixtures/probe/messages"})
    for (const Trace& t : Load(dir))
      for (const Exchange& x : t.exchanges) {
        if (ExchangeSurface(x) != Surface::kMessages) continue;
        EXPECT_TRUE(Detect(x.response, Surface::kMessages).empty()) << t.id;
        out.push_back(x);
      }
  return out;
}

TEST(MessagesDialects, EachRewriteIsDetectedAsItselfAndNothingElse) {
  EXPECT_EQ(
      test_support::ExpectEachRewriteExactly("DIA-MSG-", Surface::kMessages, CanonicalMessages()),
      6u);
}

TEST(MessagesDialects, EachProviderDialectShowsExactlyItsDeviations) {
  test_support::ExpectEachProviderDialectExactly(Surface::kMessages, CanonicalMessages(),
                                                 "anthropic", 7u);
}

// The rewrites that need a whole tool input leave a cut one alone.
TEST(MessagesDialects, ACutToolInputIsLeftAsRecorded) {
  Exchange x;
  x.request.body = OJson::parse(R"({"stream": true})");
  x.response.streamed = true;
  for (const char* raw :
       {"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
        "{\"input_tokens\":5,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n"})
    x.response.chunks.push_back(Chunk{.raw = raw});
  for (const char* id : {"DIA-MSG-TOOL-INPUT-AT-START", "DIA-MSG-TOOL-INPUT-WHOLE-DELTA"}) {
    Dialect one{.name = id, .surface = Surface::kMessages};
    one.steps.push_back(DialectStep{id, OJson::object()});
    EXPECT_EQ(RewriteResponse(x.response, one, true, Surface::kMessages), x.response) << id;
  }
}

TEST(MessagesDialects, ADialectOfAnotherSurfaceLeavesTheBytesAlone) {
  const auto canon = CanonicalMessages();
  ASSERT_FALSE(canon.empty());
  for (Surface other : {Surface::kChat, Surface::kResponses})
    for (const Dialect* d : DialectsOf(other)) {
      for (const Exchange& x : canon) {
        EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), Surface::kMessages),
                  x.response)
            << d->name;
        const OJson fault = OJson::parse(R"({"status": 529})");
        EXPECT_EQ(PlanDialectResponse(x, *d, fault, 4).Body(),
                  PlanResponse(x.response, *FaultFromJson(fault), 4, Surface::kMessages).Body())
            << d->name;
      }
      EXPECT_TRUE(DeviationsApplied(canon, *d).empty()) << d->name;
    }
  for (const char* dir : {"fixtures/probe", "fixtures/probe/responses"})
    for (const Trace& t : Load(dir))
      for (const Exchange& x : t.exchanges) {
        const Surface s = ExchangeSurface(x);
        if (s == Surface::kMessages) continue;
        for (const Dialect* d : DialectsOf(Surface::kMessages))
          EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), s), x.response)
              << d->name << " on " << t.id;
      }
}

// A fault's error body, written in Anthropic's shape, takes the dialect's
// error envelope.
TEST(MessagesDialects, FaultsTakeTheErrorEnvelope) {
  const auto canon = CanonicalMessages();
  const Dialect* litellm = FindDialect("litellm-anthropic");
  ASSERT_NE(litellm, nullptr);
  const OJson fault = OJson::parse(R"({"status": 529})");
  const std::string body = PlanDialectResponse(canon.front(), *litellm, fault, 4).Body();
  const auto ds = wire::DetectBodyDialect(Surface::kMessages, body, 529);
  ASSERT_EQ(ds.size(), 1u) << body;
  EXPECT_EQ(ds[0].id, "DIA-MSG-OPENAI-ERROR-BODY");
  EXPECT_EQ(ds[0].where, "/error");
  const OJson j = OJson::parse(body);
  EXPECT_EQ(j["error"]["code"], "529");
  EXPECT_FALSE(j.contains("type"));
}

}  // namespace
}  // namespace llmconform::mockllm
