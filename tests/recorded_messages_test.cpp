// The recorded Anthropic Messages corpus (fixtures/recorded/anthropic/): it is
// what `mockllm import` makes of the source cassettes kept under
// tests/import/anthropic/; every stream accumulates to what its own events
// say (the blocks opened, the text deltas joined, each tool block's input,
// message_delta's stop_reason and usage), also when re-split at random; every
// body reads; lint passes; `mockllm::Server` replays each exchange byte for
// byte.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <sstream>

#include "mockllm/lint.h"
#include "protocols/wire/messages.h"
#include "tests/recorded_support.h"

namespace {

namespace wire = llmconform::wire;
namespace mockllm = llmconform::mockllm;
using llmconform::recorded::Joined;
using llmconform::Json;

const std::filesystem::path kCorpus = llmconform::recorded::Root() / "fixtures/recorded/anthropic";

std::vector<mockllm::Trace> Corpus() { return llmconform::recorded::TracesIn(kCorpus); }

bool IsModelCall(const mockllm::Exchange& x) {
  return !x.request.path.substr(0, x.request.path.find('?')).ends_with("/count_tokens");
}

std::vector<llmconform::recorded::Stream> Streams() {
  return llmconform::recorded::StreamsIn(kCorpus);
}

// What a stream's events say, read without the accumulator: each data line's
// JSON taken as it comes.
struct Said {
  std::vector<Json> blocks;                   // content_block_start's blocks, by index
  std::map<std::int64_t, std::string> text;   // text_delta and thinking_delta joined
  std::map<std::int64_t, std::string> input;  // input_json_delta joined
  std::map<std::int64_t, std::string> signature;
  Json stop_reason;
  Json usage;  // the last message_delta's
};

Said WhatItSays(const std::string& body) {
  Said s;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("data: ")) continue;
    const Json d = Json::parse(line.substr(6), nullptr, false);
    if (!d.is_object()) continue;
    const std::string type = d.value("type", "");
    if (type == "content_block_start") {
      s.blocks.push_back(d["content_block"]);
    } else if (type == "content_block_delta") {
      const Json& delta = d["delta"];
      const std::int64_t i = d["index"];
      const std::string dt = delta.value("type", "");
      if (dt == "text_delta") s.text[i] += delta["text"].get<std::string>();
      if (dt == "thinking_delta") s.text[i] += delta["thinking"].get<std::string>();
      if (dt == "input_json_delta") s.input[i] += delta["partial_json"].get<std::string>();
      if (dt == "signature_delta") s.signature[i] = delta["signature"];
    } else if (type == "message_delta") {
      s.stop_reason = d["delta"]["stop_reason"];
      s.usage = d["usage"];
    }
  }
  return s;
}

// Issue 31's targets: 20 exchanges, 12 streamed, tool use (several in one
// turn), thinking with signatures, usage, an HTTP error.
TEST(RecordedMessages, HasEnoughOfIt) {
  std::size_t exchanges = 0, streamed = 0, calls = 0, several = 0, streamed_calls = 0,
              signatures = 0, usage = 0, errors = 0, pings = 0;
  for (const auto& t : Corpus()) {
    EXPECT_EQ(t.header["surface"], "messages") << t.source;
    EXPECT_EQ(t.header["origin"], "imported") << t.source;
    for (const auto& x : t.exchanges) {
      ++exchanges;
      errors += x.response.status >= 400 ? 1 : 0;
      if (!IsModelCall(x) || x.response.status >= 400) continue;
      const auto r =
          x.response.streamed
              ? wire::AccumulateSurfaceStream(wire::Surface::kMessages, Joined(x))
              : wire::ReadMessagesBody(x.response.body ? Json(*x.response.body) : Json());
      streamed += x.response.streamed ? 1 : 0;
      pings += x.response.streamed && Joined(x).find("event: ping") != std::string::npos;
      calls += r.FunctionCalls().empty() ? 0 : 1;
      several += r.FunctionCalls().size() >= 2 ? 1 : 0;
      streamed_calls += x.response.streamed && !r.FunctionCalls().empty() ? 1 : 0;
      for (const auto& item : r.items) signatures += item.signature ? 1 : 0;
      usage += r.usage.is_object() ? 1 : 0;
    }
  }
  EXPECT_GE(exchanges, 20u);
  EXPECT_GE(streamed, 12u);
  EXPECT_GE(calls, 3u);
  EXPECT_GE(several, 1u);
  EXPECT_GE(streamed_calls, 1u);
  EXPECT_GE(signatures, 2u);
  EXPECT_GE(usage, 18u);
  EXPECT_GE(errors, 2u);
  EXPECT_GE(pings, 10u);
}

TEST(RecordedMessages, EveryStreamAccumulatesToWhatItsEventsSay) {
  const auto streams = Streams();
  ASSERT_GE(streams.size(), 12u);
  for (const auto& s : streams) {
    const auto acc = wire::AccumulateSurfaceStream(wire::Surface::kMessages, s.body);
    EXPECT_TRUE(acc.findings.empty()) << s.where << ": " << acc.findings[0].message;
    const Said said = WhatItSays(s.body);
    ASSERT_EQ(acc.items.size(), said.blocks.size()) << s.where;
    for (std::size_t i = 0; i < acc.items.size(); ++i) {
      const auto& item = acc.items[i];
      const auto n = static_cast<std::int64_t>(i);
      EXPECT_EQ(Json(item.type), said.blocks[i]["type"]) << s.where << " block " << i;
      if (item.kind == wire::ItemKind::kMessage || item.kind == wire::ItemKind::kReasoning)
        EXPECT_EQ(item.text, said.text.contains(n) ? said.text.at(n) : "")
            << s.where << " block " << i;
      if (item.kind == wire::ItemKind::kFunctionCall) {
        EXPECT_EQ(Json(item.call_id), said.blocks[i]["id"]) << s.where << " block " << i;
        EXPECT_EQ(Json(item.name), said.blocks[i]["name"]) << s.where << " block " << i;
        EXPECT_EQ(item.arguments, said.input.at(n)) << s.where << " block " << i;
      }
      if (said.signature.contains(n)) EXPECT_EQ(item.signature, said.signature.at(n));
    }
    EXPECT_EQ(Json(acc.status.value_or("")), said.stop_reason) << s.where;
    for (const auto& [key, value] : said.usage.items())
      if (!value.is_null()) EXPECT_EQ(acc.usage[key], value) << s.where << " usage " << key;
    EXPECT_TRUE(acc.terminated) << s.where;
    EXPECT_FALSE(acc.id.empty()) << s.where;
  }
}

TEST(RecordedMessages, EveryBodyReads) {
  std::size_t bodies = 0;
  for (const auto& t : Corpus()) {
    for (const auto& x : t.exchanges) {
      if (x.response.streamed || !IsModelCall(x)) continue;
      ASSERT_TRUE(x.response.body) << t.id;
      const Json body(*x.response.body);
      const auto r = wire::ReadMessagesBody(body);
      EXPECT_TRUE(r.findings.empty()) << t.id << ": " << r.findings[0].message;
      if (x.response.status >= 400) {
        EXPECT_TRUE(r.error) << t.id;
      } else {
        EXPECT_EQ(r.items.size(), body["content"].size()) << t.id;
        EXPECT_EQ(Json(r.status.value_or("")), body["stop_reason"]) << t.id;
      }
      ++bodies;
    }
  }
  EXPECT_GE(bodies, 8u);
}

RC_GTEST_PROP(RecordedMessages, AnySplitOfAStreamAccumulatesTheSame, ()) {
  static const auto streams = Streams();
  RC_PRE(!streams.empty());
  const auto& s = *rc::gen::elementOf(streams);
  const auto sizes =
      *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(1, 98));
  RC_ASSERT(llmconform::recorded::AccumulateInReads(wire::Surface::kMessages, s.body, sizes) ==
            wire::AccumulateSurfaceStream(wire::Surface::kMessages, s.body));
}

// Lint passes every trace, with no MSG-* warning: Anthropic's own traffic
// keeps the contract.
TEST(RecordedMessages, PassesLintWithoutWarnings) {
  for (const auto& e : std::filesystem::directory_iterator(kCorpus)) {
    if (!e.path().string().ends_with(".trace.jsonl")) continue;
    const auto report =
        mockllm::LintTraceReport(llmconform::recorded::Slurp(e.path()), e.path().string());
    EXPECT_TRUE(report.problems.empty()) << report.problems[0];
    for (const auto& w : report.warnings)
      EXPECT_EQ(w.find("MSG-"), std::string::npos) << e.path() << ": " << w;
  }
}

// Each source cassette kept under tests/import/anthropic/ imports (default
// options) to its committed trace, byte for byte.
TEST(RecordedMessages, IsWhatImportMakesOfTheSourceCassettes) {
  llmconform::recorded::ExpectImportMakesTheTraces(
      llmconform::recorded::Root() / "tests/import/anthropic", kCorpus);
}

// mockllm replays every exchange, pinned, byte for byte.
TEST(RecordedMessages, ReplaysByteForByte) {
  llmconform::recorded::ExpectReplaysByteForByte(Corpus());
}

}  // namespace
