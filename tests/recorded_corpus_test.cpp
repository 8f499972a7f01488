// The bundled corpus of real recorded Chat Completions traffic
// (fixtures/recorded/, but openai-responses/): it is what
// `mockllm import` makes of the source cassettes, every stream accumulates to
// what a careful client reads from it (also when re-split at random), and
// fixtures/recorded/DIALECTS.md is what `llmconform dialect --markdown` says.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "harness/dialect_cmd.h"
#include "mockllm/import.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/stream_accumulator.h"

namespace {

namespace fs = std::filesystem;
using llmconform::Json;

using ::llmconform::test_paths::kRoot;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Recorded {
  std::string file;  // relative to the repository root
  std::string body;  // the stream, chunks joined
};

std::vector<llmconform::mockllm::Trace> Corpus() {
  std::vector<llmconform::mockllm::Trace> out;
  auto files = llmconform::mockllm::TraceFiles({(kRoot / "fixtures/recorded").string()});
  if (!files) return out;
  for (const auto& f : *files) {
    auto t = llmconform::mockllm::LoadTraceFile(f);
    // The Responses API corpus has its own test (recorded_responses_test.cpp).
    if (t && t->header.value("surface", "chat") == "chat") out.push_back(std::move(*t));
  }
  return out;
}

std::vector<Recorded> Streams() {
  std::vector<Recorded> out;
  for (const auto& t : Corpus()) {
    for (const auto& x : t.exchanges) {
      if (!x.response.streamed) continue;
      Recorded r{fs::relative(t.source, kRoot).string(), ""};
      for (const auto& c : x.response.chunks) r.body += c.raw;
      out.push_back(std::move(r));
    }
  }
  return out;
}

// What a careful client reads from a stream, written independently of the
// accumulator: events are split at blank lines (the recordings use LF), each
// `data:` JSON chunk read for text, reasoning, tool calls by index (first
// id/name, arguments concatenated), the last finish_reason and usage.
struct Reading {
  std::string content;
  std::string reasoning;
  std::map<int, std::pair<std::string, std::string>> calls;  // index -> (name, arguments)
  Json finish_reason = nullptr;
  Json usage = nullptr;
};

Reading CarefulRead(const std::string& body) {
  Reading r;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) end = body.size();
    std::string event = body.substr(pos, end - pos);
    pos = end + 2;
    if (!event.starts_with("data: ")) continue;
    const Json chunk = Json::parse(event.substr(6), nullptr, false);
    if (!chunk.is_object()) continue;
    // Usage counts even beside an error (OpenRouter sends both in its last chunk).
    if (chunk.contains("usage") && chunk["usage"].is_object()) r.usage = chunk["usage"];
    if (chunk.contains("error")) break;  // an error ends the reply (DIA-ERROR-IN-STREAM)
    if (chunk.contains("x_groq") && chunk["x_groq"].contains("usage") && r.usage.is_null())
      r.usage = chunk["x_groq"]["usage"];
    if (!chunk.contains("choices")) continue;
    for (const Json& c : chunk["choices"]) {
      if (c.contains("finish_reason") && !c["finish_reason"].is_null())
        r.finish_reason = c["finish_reason"];
      if (!c.contains("delta")) continue;
      const Json& d = c["delta"];
      if (d.contains("content") && d["content"].is_string())
        r.content += d["content"].get<std::string>();
      for (const char* k : {"reasoning_content", "reasoning"}) {
        if (d.contains(k) && d[k].is_string()) r.reasoning += d[k].get<std::string>();
      }
      if (!d.contains("tool_calls")) continue;
      for (const Json& tc : d["tool_calls"]) {
        auto& [name, args] = r.calls[tc.value("index", 0)];
        if (tc.contains("function")) {
          const Json& f = tc["function"];
          if (name.empty() && f.contains("name") && f["name"].is_string()) name = f["name"];
          if (f.contains("arguments") && f["arguments"].is_string())
            args += f["arguments"].get<std::string>();
        }
      }
    }
  }
  return r;
}

// The targets of issue 11: at least 8 providers, 40 exchanges, 20 of them
// streamed, covering parallel tool calls (plain and streamed), reasoning
// fields, stream_options.include_usage and error responses (4xx and 5xx
// statuses, and errors inside a 200). Fails if the corpus shrinks below them.
TEST(RecordedCorpus, HasEnoughOfIt) {
  std::size_t exchanges = 0;
  std::size_t streamed = 0;
  std::size_t parallel = 0;
  std::size_t streamed_parallel = 0;
  std::size_t status_4xx = 0;
  std::size_t status_5xx = 0;
  std::size_t error_in_200 = 0;
  std::size_t include_usage = 0;
  std::size_t reasoning = 0;
  std::set<std::string> providers;
  for (const auto& t : Corpus()) {
    providers.insert(t.header.value("provider", "?"));
    EXPECT_EQ(t.header["origin"], "imported") << t.source;
    for (const auto& x : t.exchanges) {
      ++exchanges;
      status_4xx += x.response.status >= 400 && x.response.status < 500 ? 1 : 0;
      status_5xx += x.response.status >= 500 ? 1 : 0;
      const auto* req = x.request.body ? &*x.request.body : nullptr;
      if (req && req->is_object() && req->contains("stream_options") &&
          (*req)["stream_options"].value("include_usage", false)) {
        ++include_usage;
      }
      if (x.response.streamed) {
        ++streamed;
        std::string body;
        for (const auto& c : x.response.chunks) body += c.raw;
        const auto acc = llmconform::wire::AccumulateStream(body);
        streamed_parallel += acc.message.tool_calls.size() >= 2 ? 1 : 0;
        error_in_200 += acc.error ? 1 : 0;
        reasoning +=
            acc.message.reasoning_content || acc.message.extra.contains("reasoning") ? 1 : 0;
        continue;
      }
      if (!x.response.body || !x.response.body->is_object()) continue;
      const auto& b = *x.response.body;
      error_in_200 += x.response.status == 200 && b.contains("error") ? 1 : 0;
      if (!b.contains("choices") || !b["choices"].is_array() || b["choices"].empty()) continue;
      const auto& c0 = b["choices"][0];
      if (!c0.is_object() || !c0.contains("message") || !c0["message"].is_object()) continue;
      const auto& m = c0["message"];
      if (m.contains("tool_calls") && m["tool_calls"].is_array() && m["tool_calls"].size() >= 2)
        ++parallel;
      for (const char* k : {"reasoning_content", "reasoning"})
        reasoning += m.contains(k) && m[k].is_string() ? 1 : 0;
    }
  }
  EXPECT_GE(providers.size(), 8u);
  EXPECT_GE(exchanges, 40u);
  EXPECT_GE(streamed, 20u);
  EXPECT_GE(parallel, 1u);
  EXPECT_GE(streamed_parallel, 1u);
  EXPECT_GE(status_4xx, 1u);
  EXPECT_GE(status_5xx, 1u);
  EXPECT_GE(error_in_200, 1u);
  EXPECT_GE(include_usage, 1u);
  EXPECT_GE(reasoning, 1u);
}

TEST(RecordedCorpus, EveryStreamAccumulatesToWhatACarefulClientReads) {
  const auto streams = Streams();
  ASSERT_FALSE(streams.empty());
  for (const auto& s : streams) {
    const auto acc = llmconform::wire::AccumulateStream(s.body);
    const Reading want = CarefulRead(s.body);
    EXPECT_EQ(acc.message.Text(), want.content) << s.file;
    std::string reasoning = acc.message.reasoning_content.value_or("");
    if (acc.message.extra.contains("reasoning") && acc.message.extra["reasoning"].is_string())
      reasoning += acc.message.extra["reasoning"].get<std::string>();
    EXPECT_EQ(reasoning, want.reasoning) << s.file;
    ASSERT_EQ(acc.message.tool_calls.size(), want.calls.size()) << s.file;
    std::size_t i = 0;
    for (const auto& [index, call] : want.calls) {
      EXPECT_EQ(acc.message.tool_calls[i].function.name, call.first) << s.file;
      EXPECT_EQ(acc.message.tool_calls[i].function.arguments, call.second) << s.file;
      ++i;
    }
    EXPECT_EQ(acc.finish_reason ? Json(*acc.finish_reason) : Json(nullptr), want.finish_reason)
        << s.file;
    EXPECT_EQ(acc.usage, want.usage) << s.file;
  }
}

RC_GTEST_PROP(RecordedCorpus, AnySplitOfAStreamAccumulatesTheSame, ()) {
  static const auto streams = Streams();
  RC_PRE(!streams.empty());
  const auto& s = *rc::gen::elementOf(streams);
  const auto whole = llmconform::wire::AccumulateStream(s.body);
  // Feed the same bytes in random pieces.
  llmconform::wire::SseParser parser;
  llmconform::wire::StreamAccumulator acc;
  std::size_t pos = 0;
  while (pos < s.body.size()) {
    const auto n =
        *rc::gen::inRange<std::size_t>(1, std::min<std::size_t>(s.body.size() - pos, 97) + 1);
    parser.Feed(std::string_view(s.body).substr(pos, n),
                [&](const llmconform::wire::SseEventView& ev) { acc.AddEvent(ev); });
    pos += n;
  }
  parser.Finish();
  acc.NoteComments(parser.comment_count());
  const auto split = acc.Finish();
  RC_ASSERT(split.message == whole.message);
  RC_ASSERT(split.finish_reason == whole.finish_reason);
  RC_ASSERT(split.usage == whole.usage);
}

// Every source recording kept under tests/import/ imports (default options,
// as SOURCES.md says) to the committed trace of its provider, byte for byte.
TEST(RecordedCorpus, IsWhatImportMakesOfTheSourceCassettes) {
  std::size_t sources = 0;
  for (const auto& e : fs::directory_iterator(kRoot / "tests/import")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".har") continue;
    ++sources;
    const std::string name = e.path().filename().string();
    auto r = llmconform::mockllm::ParseRecording(Slurp(e.path()), name);
    ASSERT_TRUE(r) << r.error().message;
    const fs::path committed = kRoot / "fixtures/recorded" /
                               r->trace.header.value("provider", "?") /
                               (llmconform::mockllm::TraceStem(name) + ".trace.jsonl");
    EXPECT_EQ(llmconform::mockllm::WriteTrace(r->trace), Slurp(committed)) << committed;
  }
  EXPECT_GE(sources, 20u);
}

// Every surface's traces: each exchange is judged by its surface's detector.
TEST(RecordedCorpus, DialectsMdIsGenerated) {
  std::vector<llmconform::harness::ExchangeDialect> rows;
  auto files = llmconform::mockllm::TraceFiles({(kRoot / "fixtures/recorded").string()});
  ASSERT_TRUE(files.has_value());
  for (const auto& f : *files) {
    auto t = llmconform::mockllm::LoadTraceFile(f);
    ASSERT_TRUE(t.has_value()) << f;
    auto r = llmconform::harness::TraceDialects(*t, fs::relative(t->source, kRoot).string());
    rows.insert(rows.end(), r.begin(), r.end());
  }
  EXPECT_EQ(llmconform::harness::DialectMarkdown(rows),
            Slurp(kRoot / "fixtures/recorded/DIALECTS.md"))
      << "regenerate: llmconform dialect fixtures/recorded --markdown --out "
         "fixtures/recorded/DIALECTS.md";
}

}  // namespace
