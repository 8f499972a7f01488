// The recorded Responses API corpus (fixtures/recorded/openai-responses/):
// it is what `mockllm import` makes of the source cassettes kept under
// tests/import/responses/, every stream accumulates to what its terminal
// event says (also when re-split at random), every body reads, and
// `mockllm::Server` replays each exchange byte for byte.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "protocols/wire/responses.h"
#include "tests/recorded_support.h"

namespace {

namespace wire = llmconform::wire;
namespace mockllm = llmconform::mockllm;
namespace recorded = llmconform::recorded;
using llmconform::Json;

const std::filesystem::path kCorpus =
    llmconform::recorded::Root() / "fixtures/recorded/openai-responses";

using recorded::Joined;
using recorded::Stream;

std::vector<mockllm::Trace> ResponsesCorpus() { return recorded::TracesIn(kCorpus); }
std::vector<Stream> ResponsesStreams() { return recorded::StreamsIn(kCorpus); }

// The terminal event's response, found without the accumulator: the data of
// the last event whose type ends the stream.
Json TerminalResponse(const std::string& body) {
  Json found;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("data: ")) continue;
    const Json data = Json::parse(line.substr(6), nullptr, false);
    if (!data.is_object() || !data.contains("type")) continue;
    const std::string type = data["type"];
    if (type == "response.completed" || type == "response.incomplete" || type == "response.failed")
      found = data["response"];
  }
  return found;
}

// Issue 30's targets: 20 exchanges, 12 streamed, function calls (parallel
// too), reasoning summaries, usage, an HTTP error, a server that is not
// OpenAI's. Fails if the corpus shrinks below them.
TEST(RecordedResponses, HasEnoughOfIt) {
  std::size_t exchanges = 0, streamed = 0, calls = 0, parallel = 0, summaries = 0, usage = 0,
              errors = 0;
  std::set<std::string> providers;
  for (const auto& t : ResponsesCorpus()) {
    EXPECT_EQ(t.header["surface"], "responses") << t.source;
    EXPECT_EQ(t.header["origin"], "imported") << t.source;
    providers.insert(t.header.value("provider", "?"));
    for (const auto& x : t.exchanges) {
      ++exchanges;
      errors += x.response.status >= 400 ? 1 : 0;
      const auto r =
          x.response.streamed
              ? wire::AccumulateSurfaceStream(wire::Surface::kResponses, Joined(x))
              : wire::ReadResponsesBody(x.response.body ? Json(*x.response.body) : Json());
      streamed += x.response.streamed ? 1 : 0;
      calls += r.FunctionCalls().empty() ? 0 : 1;
      parallel += r.FunctionCalls().size() >= 2 ? 1 : 0;
      for (const auto& item : r.items) summaries += item.summary.empty() ? 0 : 1;
      usage += r.usage.is_object() ? 1 : 0;
    }
  }
  EXPECT_GE(exchanges, 20u);
  EXPECT_GE(streamed, 12u);
  EXPECT_GE(calls, 2u);
  EXPECT_GE(parallel, 1u);
  EXPECT_GE(summaries, 1u);
  EXPECT_GE(usage, 10u);
  EXPECT_GE(errors, 1u);
  EXPECT_TRUE(providers.contains("openrouter"));
}

TEST(RecordedResponses, EveryStreamAccumulatesToWhatItsTerminalEventSays) {
  const auto streams = ResponsesStreams();
  ASSERT_GE(streams.size(), 12u);
  for (const auto& s : streams) {
    const auto acc = wire::AccumulateSurfaceStream(wire::Surface::kResponses, s.body);
    const bool differs = std::any_of(acc.findings.begin(), acc.findings.end(), [](const auto& f) {
      return f.rule == "RESP-TERMINAL-OUTPUT";
    });
    // OpenRouter's terminal response lists its items in another order, with
    // other ids, than its events built them: the deviation, asserted.
    EXPECT_EQ(differs, s.where.find("openrouter") != std::string::npos) << s.where;
    if (differs) continue;
    const Json terminal = TerminalResponse(s.body);
    ASSERT_TRUE(terminal.is_object()) << s.where;
    const auto want = wire::ReadResponsesBody(terminal);
    ASSERT_EQ(acc.items.size(), want.items.size()) << s.where;
    for (std::size_t i = 0; i < acc.items.size(); ++i) {
      const auto &a = acc.items[i], &w = want.items[i];
      EXPECT_EQ(a.type, w.type) << s.where << " item " << i;
      EXPECT_EQ(a.id, w.id) << s.where << " item " << i;
      EXPECT_EQ(a.text, w.text) << s.where << " item " << i;
      EXPECT_EQ(a.summary, w.summary) << s.where << " item " << i;
      EXPECT_EQ(a.call_id, w.call_id) << s.where << " item " << i;
      EXPECT_EQ(a.name, w.name) << s.where << " item " << i;
      EXPECT_EQ(a.arguments, w.arguments) << s.where << " item " << i;
    }
    EXPECT_EQ(acc.status, want.status) << s.where;
    EXPECT_EQ(acc.usage, want.usage) << s.where;
    EXPECT_EQ(acc.id, want.id) << s.where;
    EXPECT_TRUE(acc.terminated) << s.where;
  }
}

RC_GTEST_PROP(RecordedResponses, AnySplitOfAStreamAccumulatesTheSame, ()) {
  static const auto streams = ResponsesStreams();
  RC_PRE(!streams.empty());
  const auto& s = *rc::gen::elementOf(streams);
  const auto sizes =
      *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(1, 98));
  RC_ASSERT(llmconform::recorded::AccumulateInReads(wire::Surface::kResponses, s.body, sizes) ==
            wire::AccumulateSurfaceStream(wire::Surface::kResponses, s.body));
}

// Lint passes every trace (contract breaks of recorded traffic are warnings).
TEST(RecordedResponses, PassesLint) { recorded::ExpectLintClean(kCorpus); }

// Each source cassette kept under tests/import/responses/ imports (default
// options) to its committed trace, byte for byte.
TEST(RecordedResponses, IsWhatImportMakesOfTheSourceCassettes) {
  recorded::ExpectImportMakesTheTraces(recorded::Root() / "tests/import/responses", kCorpus);
}

// mockllm replays every exchange, pinned, byte for byte: a stream as its
// chunks joined, a body as recorded, with the recorded status.
TEST(RecordedResponses, ReplaysByteForByte) {
  recorded::ExpectReplaysByteForByte(ResponsesCorpus());
}

}  // namespace
