// The Responses API's dialects (DIA-RESP-*): each rewrite, applied to the
// recorded OpenAI corpus (fixtures/recorded/openai-responses), is found by
// the detector of `llmconform dialect` as exactly its own deviation; the
// provider dialects show exactly theirs; a dialect of another surface leaves
// a Responses reply (and a Responses dialect a Chat reply) byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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

// OpenAI's own Responses exchanges that show no deviation: the canonical
// replies the rewrites start from.
std::vector<Exchange> CanonicalResponses() {
  std::vector<Exchange> out;
  for (const Trace& t : Load("fixtures/recorded/openai-responses")) {
    if (t.header.value("provider", "") != "openai") continue;
    for (const Exchange& x : t.exchanges)
      if (ExchangeSurface(x) == Surface::kResponses &&
          Detect(x.response, Surface::kResponses).empty())
        out.push_back(x);
  }
  return out;
}

TEST(ResponsesDialects, TheCanonicalCorpusIsBigEnoughToShowEveryDeviation) {
  const auto canon = CanonicalResponses();
  std::size_t streamed = 0, calls = 0;
  for (const Exchange& x : canon) {
    streamed += x.response.streamed ? 1 : 0;
    if (x.response.streamed &&
        !wire::AccumulateSurfaceStream(Surface::kResponses, Joined(x.response))
             .FunctionCalls()
             .empty())
      ++calls;
  }
  EXPECT_GE(canon.size(), 15u);
  EXPECT_GE(streamed, 8u);
  EXPECT_GE(calls, 1u);  // DIA-RESP-CALL-ID-AT-DONE needs a streamed call
}

TEST(ResponsesDialects, EachRewriteIsDetectedAsItselfAndNothingElse) {
  EXPECT_EQ(test_support::ExpectEachRewriteExactly("DIA-RESP-", Surface::kResponses,
                                                   CanonicalResponses()),
            6u);
}

TEST(ResponsesDialects, EachProviderDialectShowsExactlyItsDeviations) {
  test_support::ExpectEachProviderDialectExactly(Surface::kResponses, CanonicalResponses(),
                                                 "openai-responses", 4u);
}

// What the real recordings show is either produced by their provider's
// Responses dialect ("openai" -> openai-responses, "P" -> P-responses) or
// named by it as not reproduced (OpenAI's early streams without
// sequence_number).
TEST(ResponsesDialects, TheRecordedCorpusShowsOnlyItsProvidersDeviations) {
  std::map<std::string, std::set<std::string>> seen;  // dialect -> ids
  for (const Trace& t : Load("fixtures/recorded/openai-responses")) {
    const std::string provider = t.header.value("provider", "");
    const std::string name = provider == "openai" ? "openai-responses" : provider + "-responses";
    for (const Exchange& x : t.exchanges)
      for (const std::string& id : Detect(x.response, ExchangeSurface(x))) seen[name].insert(id);
  }
  EXPECT_EQ(seen["openai-responses"], std::set<std::string>{"DIA-RESP-NO-SEQUENCE-NUMBER"});
  EXPECT_EQ(seen["openrouter-responses"],
            (std::set<std::string>{"DIA-RESP-UNNAMED-EVENTS", "DIA-RESP-DONE-SENTINEL"}));
  for (const auto& [name, ids] : seen) {
    const Dialect* d = FindDialect(name);
    ASSERT_NE(d, nullptr) << "no dialect " << name << " for what its recordings show";
    EXPECT_EQ(d->surface, Surface::kResponses) << name;
    const auto steps = d->Ids();
    for (const std::string& id : ids)
      EXPECT_TRUE(std::find(steps.begin(), steps.end(), id) != steps.end() ||
                  d->not_reproduced.contains(id))
          << name << "'s recordings show " << id;
  }
}

TEST(ResponsesDialects, ADialectOfAnotherSurfaceLeavesTheBytesAlone) {
  const auto canon = CanonicalResponses();
  ASSERT_FALSE(canon.empty());
  for (const Dialect* d : DialectsOf(Surface::kChat)) {
    for (const Exchange& x : canon) {
      EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), Surface::kResponses),
                x.response)
          << d->name;
      // So is the plan replay writes, faults included.
      const OJson fault = OJson::parse(R"({"status": 503})");
      EXPECT_EQ(PlanDialectResponse(x, *d, fault, 4).Body(),
                PlanResponse(x.response, *FaultFromJson(fault), 4, Surface::kResponses).Body())
          << d->name;
    }
    EXPECT_TRUE(DeviationsApplied(canon, *d).empty()) << d->name;
  }
  // And a Responses dialect on a Chat reply.
  for (const Trace& t : Load("fixtures/probe"))
    for (const Exchange& x : t.exchanges) {
      if (ExchangeSurface(x) != Surface::kChat) continue;
      for (const Dialect* d : DialectsOf(Surface::kResponses))
        EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), Surface::kChat),
                  x.response)
            << d->name << " on " << t.id;
    }
}

}  // namespace
}  // namespace llmconform::mockllm
