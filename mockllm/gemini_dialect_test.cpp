// The Gemini API's dialects (DIA-GEM-*): each rewrite, applied to the
// recorded Developer API corpus (fixtures/recorded/gemini) and the probe's
// stand-ins (fixtures/probe/gemini, which hold the error answers), is found
// by the detector of `llmconform dialect` as exactly its own deviation; the
// provider dialects show exactly theirs; the Vertex AI recordings show only
// the `vertex` dialect's; a Gemini dialect leaves other surfaces' bytes alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/json_read.h"
#include "mockllm/dialect/rewrites.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/surface_dialect_test_support.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using wire::Surface;

using test_support::Joined;
using test_support::Load;

std::set<std::string> GeminiDialectDetect(const RecordedResponse& r) {
  return test_support::Detect(r, Surface::kGemini);
}

bool IsVertex(const Exchange& x) { return x.request.path.find("/projects/") != std::string::npos; }

// The Developer API's own exchanges (recorded and the probe's stand-ins):
// the canonical replies the rewrites start from.
std::vector<Exchange> Canonical() {
  std::vector<Exchange> out;
  for (const char* dir : {"fixtures/recorded/gemini", "fixtures/probe/gemini"})
    for (const Trace& t : Load(dir))
      for (const Exchange& x : t.exchanges)
        if (ExchangeSurface(x) == Surface::kGemini && !IsVertex(x)) out.push_back(x);
  return out;
}

// The data of each SSE event of `raw` parsed.
std::vector<OJson> EventData(std::string_view raw) {
  std::vector<OJson> out;
  wire::SseParser parser;
  parser.Feed(raw, [&](const wire::SseEventView& ev) {
    out.push_back(ReadOrderedJsonOrDiscarded(ev.data));
  });
  parser.Finish();
  return out;
}

// What `d` shows over `exchanges`: exactly its deviations, and the replies
// still carry what they said.
void ExpectExactly(const Dialect& d, const std::vector<Exchange>& exchanges) {
  test_support::ExpectExactly(
      d, exchanges, Surface::kGemini, [&](const Exchange& x, const RecordedResponse& r) {
        if (!r.streamed) return;
        const std::string before = Joined(x.response), after = Joined(r);
        if (after.starts_with('[')) {  // the same responses, in one array
          const OJson array = ReadOrderedJsonOrDiscarded(after);
          ASSERT_TRUE(array.is_array()) << after;
          EXPECT_EQ(r.Header("content-type"), "application/json; charset=UTF-8");
          const auto events = EventData(before);
          ASSERT_EQ(array.size(), events.size());
          for (std::size_t i = 0; i < events.size(); ++i)
            EXPECT_EQ(array[i].dump(), events[i].dump()) << d.name << " response " << i;
          return;
        }
        const auto a = wire::AccumulateSurfaceStream(Surface::kGemini, before);
        const auto b = wire::AccumulateSurfaceStream(Surface::kGemini, after);
        EXPECT_EQ(a.Text(), b.Text()) << d.name;
        EXPECT_EQ(a.FunctionCalls().size(), b.FunctionCalls().size()) << d.name;
        EXPECT_EQ(a.usage.is_null(), b.usage.is_null()) << d.name;
      });
}

TEST(GeminiDialects, TheCanonicalCorpusShowsNoDeviationAndCoversEveryRewrite) {
  const auto canon = Canonical();
  std::size_t streamed = 0, multi = 0, errors_to_streams = 0;
  for (const Exchange& x : canon) {
    EXPECT_TRUE(GeminiDialectDetect(x.response).empty()) << x.request.path;
    streamed += x.response.streamed ? 1 : 0;
    multi += x.response.streamed && EventData(Joined(x.response)).size() > 1 ? 1 : 0;
    errors_to_streams +=
        !x.response.streamed && x.response.status >= 400 && RequestStreams(x.request) ? 1 : 0;
  }
  EXPECT_GE(canon.size(), 40u);
  EXPECT_GE(streamed, 12u);
  EXPECT_GE(multi, 8u);              // DIA-GEM-USAGE-LAST-ONLY needs streams of 2+ responses
  EXPECT_GE(errors_to_streams, 1u);  // DIA-GEM-ERROR-ARRAY needs an error to a streamed request
}

TEST(GeminiDialects, EachRewriteIsDetectedAsItselfAndNothingElse) {
  const auto canon = Canonical();
  std::size_t rows = 0;
  for (const RewritableDeviation& r : RewritableDeviations()) {
    if (!std::string_view(r.id).starts_with("DIA-GEM-")) continue;
    ++rows;
    Dialect one{.name = std::string(r.id), .surface = Surface::kGemini};
    one.steps.push_back(DialectStep{std::string(r.id), dialect::FindRewrite(r.id)->defaults});
    ExpectExactly(one, canon);
  }
  EXPECT_EQ(rows, 4u);
}

TEST(GeminiDialects, EachProviderDialectShowsExactlyItsDeviations) {
  const auto canon = Canonical();
  const auto dialects = DialectsOf(Surface::kGemini);
  ASSERT_GE(dialects.size(), 3u);
  for (const Dialect* d : dialects) ExpectExactly(*d, canon);
  ASSERT_NE(CanonicalDialect(Surface::kGemini), nullptr);
  EXPECT_EQ(CanonicalDialect(Surface::kGemini)->name, "gemini-api");
}

// What the real recordings show: nothing on the Developer API's, and on
// Vertex AI's only what the `vertex` dialect produces.
TEST(GeminiDialects, TheVertexRecordingsShowOnlyTheVertexDialectsDeviations) {
  const Dialect* vertex = FindDialect("vertex");
  ASSERT_NE(vertex, nullptr);
  const auto steps = vertex->Ids();
  std::size_t vertex_exchanges = 0;
  for (const Trace& t : Load("fixtures/recorded/gemini"))
    for (const Exchange& x : t.exchanges) {
      const auto ids = GeminiDialectDetect(x.response);
      if (!IsVertex(x)) {
        EXPECT_TRUE(ids.empty()) << t.id;
        continue;
      }
      ++vertex_exchanges;
      EXPECT_TRUE(ids.contains("DIA-GEM-VERTEX-FIELDS")) << t.id;
      for (const std::string& id : ids)
        EXPECT_TRUE(std::find(steps.begin(), steps.end(), id) != steps.end()) << t.id << " " << id;
    }
  EXPECT_EQ(vertex_exchanges, 2u);
}

TEST(GeminiDialects, AGeminiDialectLeavesOtherSurfacesAlone) {
  for (const Trace& t : Load("fixtures/probe"))
    for (const Exchange& x : t.exchanges) {
      const Surface s = ExchangeSurface(x);
      if (s == Surface::kGemini) continue;
      for (const Dialect* d : DialectsOf(Surface::kGemini))
        EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), s), x.response)
            << d->name << " on " << t.id;
    }
  // And a dialect of another surface on a Gemini reply.
  for (const Exchange& x : Canonical())
    for (const Dialect* d : DialectsOf(Surface::kChat))
      EXPECT_EQ(RewriteResponse(x.response, *d, RequestStreams(x.request), Surface::kGemini),
                x.response)
          << d->name;
}

}  // namespace
}  // namespace llmconform::mockllm
