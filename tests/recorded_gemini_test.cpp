// The recorded Gemini corpus (fixtures/recorded/gemini/): it is what
// `mockllm import` makes of the source cassettes kept under
// tests/import/gemini/, every stream accumulates to what its chunks say when
// read by hand (the text parts joined, the thoughts joined, each function
// call, the last finishReason and usageMetadata) also when re-split at
// random, every body reads, lint passes, and `mockllm::Server` replays each
// exchange byte for byte.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "protocols/wire/gemini.h"
#include "tests/recorded_support.h"

namespace {

namespace fs = std::filesystem;
namespace wire = llmconform::wire;
namespace mockllm = llmconform::mockllm;
namespace recorded = llmconform::recorded;
using llmconform::Json;

using ::llmconform::test_paths::kRoot;
const fs::path kCorpus = kRoot / "fixtures/recorded/gemini";

using recorded::Joined;
using recorded::Stream;

std::vector<mockllm::Trace> Corpus() { return recorded::TracesIn(kCorpus); }
std::vector<Stream> Streams() { return recorded::StreamsIn(kCorpus); }

// What the chunks say, read without the accumulator: candidate 0's text
// parts and thought parts joined, its function calls (name, args), the last
// finishReason and usageMetadata.
struct ByHand {
  std::string text, thoughts;
  std::vector<std::pair<std::string, Json>> calls;
  std::optional<std::string> finish;
  Json usage;
};

ByHand ReadByHand(const std::string& body) {
  ByHand out;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("data: ")) continue;
    if (line.ends_with('\r')) line.pop_back();
    const Json data = Json::parse(line.substr(6), nullptr, false);
    if (!data.is_object()) continue;
    if (data.contains("usageMetadata")) out.usage = data["usageMetadata"];
    for (const Json& c : data.value("candidates", Json::array())) {
      if (c.value("index", 0) != 0) continue;
      if (c.contains("finishReason")) out.finish = c["finishReason"].get<std::string>();
      if (!c.contains("content")) continue;
      for (const Json& p : c["content"].value("parts", Json::array())) {
        if (p.contains("text")) (p.value("thought", false) ? out.thoughts : out.text) += p["text"];
        if (p.contains("functionCall"))
          out.calls.emplace_back(p["functionCall"]["name"],
                                 p["functionCall"].value("args", Json()));
      }
    }
  }
  return out;
}

// Issue 31's targets: 20 exchanges, 12 streamed, function calls (several in
// one turn; streamed ones), thoughts, thought signatures (Gemini puts them on
// the text or call after the thoughts, not on the thoughts), usage, Vertex
// AI. Fails if the corpus shrinks below them.
TEST(RecordedGemini, HasEnoughOfIt) {
  std::size_t exchanges = 0, streamed = 0, calls = 0, several = 0, streamed_calls = 0, thoughts = 0,
              signatures = 0, usage = 0, vertex = 0;
  for (const auto& t : Corpus()) {
    EXPECT_EQ(t.header["surface"], "gemini") << t.source;
    EXPECT_EQ(t.header["origin"], "imported") << t.source;
    for (const auto& x : t.exchanges) {
      ++exchanges;
      vertex += x.request.path.find("/publishers/google/models/") != std::string::npos ? 1 : 0;
      const auto r = x.response.streamed
                         ? wire::AccumulateSurfaceStream(wire::Surface::kGemini, Joined(x))
                         : wire::ReadGeminiBody(x.response.body ? Json(*x.response.body) : Json());
      streamed += x.response.streamed ? 1 : 0;
      calls += r.FunctionCalls().empty() ? 0 : 1;
      several += r.FunctionCalls().size() >= 2 ? 1 : 0;
      streamed_calls += x.response.streamed && !r.FunctionCalls().empty() ? 1 : 0;
      for (const auto& item : r.items) {
        thoughts += item.kind == wire::ItemKind::kReasoning ? 1 : 0;
        signatures += item.encrypted ? 1 : 0;
      }
      usage += r.usage.is_object() ? 1 : 0;
    }
  }
  EXPECT_GE(exchanges, 20u);
  EXPECT_GE(streamed, 12u);
  EXPECT_GE(calls, 3u);
  EXPECT_GE(several, 1u);
  EXPECT_GE(streamed_calls, 2u);
  EXPECT_GE(thoughts, 3u);
  EXPECT_GE(signatures, 10u);
  EXPECT_GE(usage, 20u);
  EXPECT_GE(vertex, 2u);
}

TEST(RecordedGemini, EveryStreamAccumulatesToWhatItsChunksSay) {
  const auto streams = Streams();
  ASSERT_GE(streams.size(), 12u);
  for (const auto& s : streams) {
    const auto acc = wire::AccumulateSurfaceStream(wire::Surface::kGemini, s.body);
    const ByHand want = ReadByHand(s.body);
    EXPECT_EQ(acc.Text(), want.text) << s.where;
    EXPECT_EQ(acc.Reasoning(), want.thoughts) << s.where;
    const auto calls = acc.FunctionCalls();
    ASSERT_EQ(calls.size(), want.calls.size()) << s.where;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i]->name, want.calls[i].first) << s.where;
      EXPECT_EQ(Json::parse(calls[i]->arguments),
                want.calls[i].second.is_null() ? Json::object() : want.calls[i].second)
          << s.where;
    }
    EXPECT_EQ(acc.status, want.finish) << s.where;
    EXPECT_EQ(acc.usage, want.usage) << s.where;
    EXPECT_EQ(acc.terminated, want.finish.has_value()) << s.where;
    for (const auto& f : acc.findings) ADD_FAILURE() << s.where << ": " << f.message;
  }
}

RC_GTEST_PROP(RecordedGemini, AnySplitOfAStreamAccumulatesTheSame, ()) {
  static const auto streams = Streams();
  RC_PRE(!streams.empty());
  const auto& s = *rc::gen::elementOf(streams);
  const auto whole = wire::AccumulateSurfaceStream(wire::Surface::kGemini, s.body);
  std::vector<std::size_t> cuts;
  for (std::size_t pos = 0; pos < s.body.size();) {
    pos += *rc::gen::inRange<std::size_t>(1, std::min<std::size_t>(s.body.size() - pos, 97) + 1);
    cuts.push_back(pos);
  }
  RC_ASSERT(wire::AccumulateSurfaceStreamSplit(wire::Surface::kGemini, s.body, cuts) == whole);
}

TEST(RecordedGemini, PassesLint) { recorded::ExpectLintClean(kCorpus); }

// Each source cassette kept under tests/import/gemini/ imports to its committed trace.
TEST(RecordedGemini, IsWhatImportMakesOfTheSourceCassettes) {
  recorded::ExpectImportMakesTheTraces(kRoot / "tests/import/gemini", kCorpus);
}

// mockllm replays every exchange byte for byte; the model is in the path, and
// `?alt=sse` does not change the route.
TEST(RecordedGemini, ReplaysByteForByte) {
  recorded::ExpectReplaysByteForByte(Corpus(), "?alt=sse");
}

}  // namespace
