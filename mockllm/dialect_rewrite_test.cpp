#include "mockllm/dialect_rewrite.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "mockllm/replay_plan.h"
#include "mockllm/surface_dialect_test_support.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/stream_accumulator.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

namespace fs = std::filesystem;
constexpr auto kChat = llmconform::wire::Surface::kChat;
using ::llmconform::test_paths::kRoot;

using test_support::Detect;
using test_support::Joined;

std::set<std::string> IdsOf(const Dialect& d) {
  auto ids = d.Ids();
  return {ids.begin(), ids.end()};
}

// The Chat Completions answers of fixtures/probe (its folders hold the other
// surfaces' stand-ins, which the DIA-* dialects do not rewrite).
std::vector<Trace> ProbeTraces() {
  std::vector<Trace> out;
  auto files = TraceFiles({(kRoot / "fixtures/probe").string()});
  EXPECT_TRUE(files.has_value());
  for (const auto& f : *files) {
    auto t = LoadTraceFile(f);
    EXPECT_TRUE(t.has_value()) << f;
    if (t && t->header.value("surface", "chat") == "chat") out.push_back(std::move(*t));
  }
  return out;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DialectRewrite, TheCatalogueParsesAndHasTheNamedDialects) {
  auto parsed = ParseDialects(ReadText(kRoot / "specs/wire/dialects.json"), "dialects.json");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->size(), BuiltinDialects().size());  // the compiled-in copy is the file
  for (const char* name : {"openai", "azure", "deepseek", "ollama", "vllm", "llamacpp", "groq",
                           "mistral", "openrouter", "gemini"}) {
    EXPECT_NE(FindDialect(name), nullptr) << name;
  }
  ASSERT_NE(FindDialect("openai"), nullptr);
  EXPECT_TRUE(FindDialect("openai")->steps.empty());
  EXPECT_EQ(FindDialect("no-such"), nullptr);
  // Every rewrite names a catalogue deviation.
  std::set<std::string> known;
  for (const auto id : llmconform::wire::DialectIds()) known.insert(std::string(id));
  for (const auto& r : RewritableDeviations())
    EXPECT_TRUE(known.contains(std::string(r.id))) << r.id;
}

TEST(DialectRewrite, BadDialectsAreLocatedErrors) {
  const std::string head =
      R"({"dialects":[{"id":"DIA-NO-DONE","surface":"chat"},{"id":"DIA-NAMED-EVENT","surface":"chat"}],"providers":[)";
  auto err = [&](const std::string& providers) {
    auto r = ParseDialects(head + providers + "]}", "d.json");
    EXPECT_FALSE(r.has_value()) << providers;
    return r ? std::string() : r.error().message;
  };
  EXPECT_NE(
      err(R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-FOO"}]})").find("d.json:1:"),
      std::string::npos);
  EXPECT_NE(err(R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-FOO"}]})")
                .find("/providers/0/deviations/0/id: \"DIA-FOO\" is not in the catalogue"),
            std::string::npos);
  EXPECT_NE(err(R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-NAMED-EVENT"}]})")
                .find("no rewrite for DIA-NAMED-EVENT"),
            std::string::npos);
  EXPECT_NE(
      err(R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-NO-DONE","params":{"n":1}}]})")
          .find("takes no parameter"),
      std::string::npos);
  EXPECT_NE(
      err(R"({"name":"x","surface":"chat","deviations":[]},{"name":"x","surface":"chat","deviations":[]})")
          .find("defined twice"),
      std::string::npos);
  EXPECT_NE(err(R"({"name":"X Y","surface":"chat","deviations":[]})").find("/providers/0/name"),
            std::string::npos);
  const std::string keep =
      R"({"dialects":[{"id":"DIA-KEEPALIVE-COMMENT","surface":"chat"}],"providers":[)";
  auto bad_param = ParseDialects(
      keep +
          R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-KEEPALIVE-COMMENT","params":{"count":"2"}}]}]})",
      "k");
  ASSERT_FALSE(bad_param.has_value());
  EXPECT_NE(bad_param.error().message.find("/params/count: expected number, got string"),
            std::string::npos);
  auto range = ParseDialects(
      keep +
          R"({"name":"x","surface":"chat","deviations":[{"id":"DIA-KEEPALIVE-COMMENT","params":{"count":1000}}]}]})",
      "k");
  ASSERT_FALSE(range.has_value());
  EXPECT_FALSE(ParseDialects("[1,2", "k").has_value());
  // Surfaces: a provider's and a deviation's are required and known, and a
  // dialect's deviations are of its own surface.
  EXPECT_NE(err(R"({"name":"y","deviations":[]})").find("/providers/0/surface: missing"),
            std::string::npos);
  EXPECT_NE(err(R"({"name":"y","surface":"soap","deviations":[]})")
                .find("/providers/0/surface: unknown surface \"soap\" (known: chat, responses"),
            std::string::npos);
  EXPECT_NE(err(R"({"name":"y","surface":7,"deviations":[]})").find("expected a surface name"),
            std::string::npos);
  EXPECT_NE(err(R"({"name":"y","surface":"messages","deviations":[{"id":"DIA-NO-DONE"}]})")
                .find("/providers/0/deviations/0/id: DIA-NO-DONE is a chat deviation; dialect "
                      "\"y\" is of surface messages"),
            std::string::npos);
  auto bad_dev = ParseDialects(
      R"({"dialects":[{"id":"DIA-NO-DONE","surface":"gopher"}],"providers":[]})", "s.json");
  ASSERT_FALSE(bad_dev.has_value());
  EXPECT_NE(bad_dev.error().message.find("s.json:1:"), std::string::npos);
  EXPECT_NE(bad_dev.error().message.find("/dialects/0/surface: unknown surface \"gopher\""),
            std::string::npos);
  auto no_dev_surface =
      ParseDialects(R"({"dialects":[{"id":"DIA-NO-DONE"}],"providers":[]})", "s.json");
  ASSERT_FALSE(no_dev_surface.has_value());
  EXPECT_NE(no_dev_surface.error().message.find("/dialects/0/surface: missing"), std::string::npos);
  EXPECT_FALSE(ParseDialects("{}", "k").has_value());
}

// The canonical battery shows no deviation: it is what OpenAI sends.
TEST(DialectRewrite, TheCanonicalRepliesShowNoDeviation) {
  for (const Trace& t : ProbeTraces())
    for (const Exchange& x : t.exchanges)
      EXPECT_TRUE(Detect(x.response, ExchangeSurface(x)).empty()) << t.id;
}

TEST(DialectRewrite, AChoiceIndexThatIsNotANumberRewritesWithoutThrowing) {
  // A lint-clean trace may hold "index": "0" or null; every dialect answered
  // it with a 500 (nlohmann's value() threw).
  RecordedResponse r;
  r.streamed = true;
  r.headers = {{"content-type", "text/event-stream"}};
  for (const char* index : {"\"0\"", "null"}) {
    r.chunks = {
        {0, std::string("data: {\"id\":7,\"choices\":[{\"index\":") + index +
                ",\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{"
                "\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}],"
                "\"usage\":{\"total_tokens\":3}}\n\n"},
        {1, "data: [DONE]\n\n"}};
    for (const Dialect& d : BuiltinDialects()) {
      EXPECT_NO_THROW(RewriteResponse(r, d, true, kChat)) << d.name << " index " << index;
    }
  }
}

// Rewriting the canonical battery with dialect X makes the detector of
// `llmconform dialect` report exactly X's deviations: each exchange shows
// only X's, and together they show every one of them.
TEST(DialectRewrite, TheDetectorFindsExactlyTheDialectsDeviations) {
  const auto traces = ProbeTraces();
  ASSERT_GE(traces.size(), 8u);
  // The battery is Chat Completions' (responses_dialect_test.cpp round-trips
  // the Responses API's dialects over its recorded corpus).
  for (const Dialect* dp : DialectsOf(llmconform::wire::Surface::kChat)) {
    const Dialect& d = *dp;
    const std::set<std::string> want = IdsOf(d);
    std::set<std::string> seen;
    for (const Trace& t : traces) {
      for (const Exchange& x : t.exchanges) {
        const RecordedResponse r =
            RewriteResponse(x.response, d, RequestStreams(x.request), ExchangeSurface(x));
        for (const std::string& id : Detect(r, ExchangeSurface(x))) {
          EXPECT_TRUE(want.contains(id)) << d.name << " on " << t.id << " shows " << id;
          seen.insert(id);
        }
        // Deterministic.
        EXPECT_EQ(r, RewriteResponse(x.response, d, RequestStreams(x.request), ExchangeSurface(x)))
            << d.name << " " << t.id;
      }
    }
    EXPECT_EQ(seen, want) << d.name;
  }
}

// Each provider of the recorded corpus has a dialect, and every deviation
// its real recordings show is one the dialect produces, or one it names as
// deliberately not reproduced.
TEST(DialectRewrite, DialectsAgreeWithTheRecordedCorpus) {
  std::map<std::string, std::set<std::string>> real;  // provider -> deviations seen
  auto files = TraceFiles({(kRoot / "fixtures/recorded").string()});
  ASSERT_TRUE(files.has_value());
  for (const auto& f : *files) {
    auto t = LoadTraceFile(f);
    ASSERT_TRUE(t.has_value()) << f;
    // The DIA-* dialects are Chat Completions': a trace of another surface is not judged.
    if (t->header.value("surface", "chat") != "chat") continue;
    const std::string provider = t->header.value("provider", "");
    for (const Exchange& x : t->exchanges) {
      // The DIA-* dialects are Chat Completions': other surfaces' exchanges
      // (the Responses API, Gemini, Vertex AI's) are not judged.
      if (auto s = wire::SurfaceOfPath(x.request.path); s && *s != wire::Surface::kChat) continue;
      ASSERT_FALSE(provider.empty()) << f;
      auto d = Detect(x.response, llmconform::wire::Surface::kChat);
      real[provider].insert(d.begin(), d.end());
    }
  }
  ASSERT_GE(real.size(), 8u);
  for (const auto& [provider, ids] : real) {
    const Dialect* d = FindDialect(provider);
    ASSERT_NE(d, nullptr) << "fixtures/recorded/" << provider
                          << " has no dialect in specs/wire/dialects.json";
    const auto want = IdsOf(*d);
    for (const std::string& id : ids) {
      EXPECT_TRUE(want.contains(id) || d->not_reproduced.contains(id))
          << provider << "'s recordings show " << id
          << ", which its dialect neither produces nor lists in not_reproduced";
    }
  }
}

TEST(DialectRewrite, NothingToRewritePassesThroughUnchanged) {
  for (const Trace& t : ProbeTraces()) {
    for (const Exchange& x : t.exchanges) {
      EXPECT_EQ(RewriteResponse(x.response, *FindDialect("openai"), true, ExchangeSurface(x)),
                x.response);
      if (t.id == "probe/stream" || t.id == "probe/plain") {
        // Gemini changes tool calls and errors only.
        EXPECT_EQ(RewriteResponse(x.response, *FindDialect("gemini"), RequestStreams(x.request),
                                  ExchangeSurface(x)),
                  x.response);
      }
    }
  }
}

const Trace* ById(const std::vector<Trace>& traces, std::string_view id) {
  for (const Trace& t : traces)
    if (t.id == id) return &t;
  return nullptr;
}

TEST(DialectRewrite, DeviationsAppliedAreTheStepsThatChangeTheReplies) {
  const std::vector<Trace> traces = ProbeTraces();
  const Trace* stream = ById(traces, "probe/stream");
  const Trace* tools = ById(traces, "probe/streamed-tools");
  ASSERT_TRUE(stream && tools);
  // Gemini changes tool calls and errors only: nothing in a text stream.
  EXPECT_EQ(DeviationsApplied(stream->exchanges, *FindDialect("gemini")),
            std::vector<std::string>{});
  EXPECT_EQ(DeviationsApplied(tools->exchanges, *FindDialect("openai")),
            std::vector<std::string>{});
  // Every step of a dialect touches a streamed tool call it can change, and
  // the list is in the dialect's own order.
  const std::vector<std::string> gemini =
      DeviationsApplied(tools->exchanges, *FindDialect("gemini"));
  EXPECT_NE(std::find(gemini.begin(), gemini.end(), "DIA-TOOLCALL-NO-INDEX"), gemini.end());
  const std::vector<std::string> ids = FindDialect("gemini")->Ids();
  std::size_t at = 0;
  for (const std::string& id : gemini) {
    while (at < ids.size() && ids[at] != id) ++at;
    EXPECT_LT(at, ids.size()) << id << " out of the dialect's order";
  }
}

TEST(DialectRewrite, ShapesOfSomeRewrites) {
  const auto traces = ProbeTraces();
  const Trace* st = ById(traces, "probe/streamed-tools");
  ASSERT_NE(st, nullptr);
  // Ollama: every call whole in one delta, role on every chunk; the
  // accumulated calls are the same.
  const RecordedResponse& canon = st->exchanges[0].response;
  const RecordedResponse ollama = RewriteResponse(canon, *FindDialect("ollama"), true, kChat);
  const auto a = llmconform::wire::AccumulateStream(Joined(canon));
  const auto b = llmconform::wire::AccumulateStream(Joined(ollama));
  ASSERT_EQ(a.message.tool_calls.size(), 2u);
  ASSERT_EQ(b.message.tool_calls.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.message.tool_calls[i].function.arguments,
              b.message.tool_calls[i].function.arguments);
    EXPECT_EQ(a.message.tool_calls[i].id, b.message.tool_calls[i].id);
  }
  EXPECT_LT(ollama.chunks.size(), canon.chunks.size());
  EXPECT_NE(Joined(ollama).find(R"("arguments":"{\"city\":\"Paris\"}")"), std::string::npos);
  // Gemini: the same without index, finish_reason stop.
  const RecordedResponse gemini = RewriteResponse(canon, *FindDialect("gemini"), true, kChat);
  EXPECT_EQ(Joined(gemini).find("\"index\":0,\"id\""), std::string::npos);
  EXPECT_NE(Joined(gemini).find("\"finish_reason\":\"stop\""), std::string::npos);
  // Azure: the first event is the empty one.
  const RecordedResponse azure = RewriteResponse(canon, *FindDialect("azure"), true, kChat);
  EXPECT_TRUE(
      azure.chunks[0].raw.starts_with(R"(data: {"choices":[],"created":0,"id":"","model":"")"));
  // Times stay ordered and within the recording.
  for (std::size_t i = 1; i < azure.chunks.size(); ++i)
    EXPECT_LE(azure.chunks[i - 1].t_ms, azure.chunks[i].t_ms);
  EXPECT_EQ(azure.chunks.back().t_ms, canon.chunks.back().t_ms);

  // Errors: Gemini's array, vLLM's flat body, OpenRouter's 200.
  const Trace* bad = ById(traces, "probe/invalid-request");
  ASSERT_NE(bad, nullptr);
  const RecordedResponse& err = bad->exchanges[0].response;
  EXPECT_TRUE(RewriteResponse(err, *FindDialect("gemini"), false, kChat)
                  .BodyBytes()
                  .starts_with(R"([{"error":{"code":400,"message":"Invalid ')"));
  const RecordedResponse vllm = RewriteResponse(err, *FindDialect("vllm"), false, kChat);
  EXPECT_EQ(vllm.status, 400);
  EXPECT_TRUE(vllm.BodyBytes().starts_with(R"({"object":"error","message":)"));
  // A 500 to a streamed request: llama.cpp answers 200 with an error event.
  const Trace* five = ById(traces, "probe/server-error-stream");
  ASSERT_NE(five, nullptr);
  const RecordedResponse llama =
      RewriteResponse(five->exchanges[0].response, *FindDialect("llamacpp"), true, kChat);
  EXPECT_EQ(llama.status, 200);
  EXPECT_TRUE(llama.streamed);
  EXPECT_EQ(llama.Header("content-type"), "text/event-stream");
  const auto acc = llmconform::wire::AccumulateStream(Joined(llama));
  ASSERT_TRUE(acc.error.has_value());
  EXPECT_EQ(RewriteResponse(five->exchanges[0].response, *FindDialect("llamacpp"), false, kChat),
            five->exchanges[0].response);
}

// Faults apply on top of a rewrite as on a recording.
TEST(DialectRewrite, FaultsPlanOnTheRewrittenReply) {
  const auto traces = ProbeTraces();
  const Trace* s = ById(traces, "probe/stream");
  ASSERT_NE(s, nullptr);
  const RecordedResponse dd =
      RewriteResponse(s->exchanges[0].response, *FindDialect("deepseek"), true, kChat);
  Fault f;
  f.drop_done = true;
  const ResponsePlan plan = PlanResponse(dd, f, 1);
  EXPECT_EQ(plan.Body().find("[DONE]"), std::string::npos);
  EXPECT_NE(plan.Body().find("reasoning_content"), std::string::npos);
  EXPECT_TRUE(plan.Body().starts_with(": keep-alive\n\n"));
}

// A random canonical stream: text pieces, then (maybe) tool calls in
// fragments, a finish chunk, maybe a usage chunk, [DONE].
RecordedResponse RandomCanonicalStream() {
  const auto words = *rc::gen::container<std::vector<std::string>>(
      *rc::gen::inRange<std::size_t>(0, 5),
      rc::gen::elementOf(std::vector<std::string>{"Hi", " there", "ü", " 42", "\\n", "\""}));
  const auto calls = *rc::gen::inRange(0, 3);
  const bool usage = *rc::gen::arbitrary<bool>();
  auto chunk = [&](const nlohmann::ordered_json& delta, const nlohmann::ordered_json& finish) {
    nlohmann::ordered_json c = {
        {"id", "chatcmpl-r"},
        {"object", "chat.completion.chunk"},
        {"created", 1},
        {"model", "m"},
        {"choices",
         {{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}}}}};
    return "data: " + c.dump() + "\n\n";
  };
  RecordedResponse r;
  r.streamed = true;
  std::int64_t t = 0;
  auto add = [&](std::string raw) { r.chunks.push_back(Chunk{t += 10, std::move(raw)}); };
  add(chunk({{"role", "assistant"}, {"content", ""}}, nullptr));
  for (const auto& w : words) add(chunk({{"content", w}}, nullptr));
  for (int i = 0; i < calls; ++i) {
    add(chunk({{"tool_calls",
                {{{"index", i},
                  {"id", "call_" + std::to_string(i)},
                  {"type", "function"},
                  {"function", {{"name", "f"}, {"arguments", ""}}}}}}},
              nullptr));
    const auto pieces = *rc::gen::inRange(1, 4);
    const std::string args = R"({"a":)" + std::to_string(i) + "}";
    for (int p = 0; p < pieces; ++p) {
      const std::size_t from = args.size() * p / pieces, to = args.size() * (p + 1) / pieces;
      add(chunk({{"tool_calls",
                  {{{"index", i}, {"function", {{"arguments", args.substr(from, to - from)}}}}}}},
                nullptr));
    }
  }
  add(chunk(nlohmann::ordered_json::object(), calls > 0 ? "tool_calls" : "stop"));
  if (usage) {
    nlohmann::ordered_json u = {
        {"id", "chatcmpl-r"},
        {"object", "chat.completion.chunk"},
        {"created", 1},
        {"model", "m"},
        {"choices", nlohmann::ordered_json::array()},
        {"usage", {{"prompt_tokens", 1}, {"completion_tokens", 2}, {"total_tokens", 3}}}};
    add("data: " + u.dump() + "\n\n");
  }
  add("data: [DONE]\n\n");
  return r;
}

std::string StripThink(std::string s) {
  if (s.starts_with("<think>")) s.erase(0, s.find("</think>\n\n") + 10);
  return s;
}

// Any canonical stream, any dialect: the rewrite is deterministic,
// independent of how the stream was chunked, shows only the dialect's
// deviations, and a careful reader (the stream accumulator) gets the same
// text, tool calls and usage from it.
RC_GTEST_PROP(DialectRewriteProperties, RewritesKeepTheMessage, ()) {
  const RecordedResponse canon = RandomCanonicalStream();
  const Dialect& d = **rc::gen::elementOf(DialectsOf(llmconform::wire::Surface::kChat));
  const RecordedResponse out = RewriteResponse(canon, d, true, kChat);
  RC_ASSERT(out == RewriteResponse(canon, d, true, kChat));
  // Re-chunked: the same bytes.
  RecordedResponse resplit = canon;
  resplit.chunks.clear();
  for (const std::string& piece :
       SeededSplit(Joined(canon), *rc::gen::arbitrary<std::uint64_t>(), 7))
    resplit.chunks.push_back(Chunk{0, piece});
  RC_ASSERT(Joined(RewriteResponse(resplit, d, true, kChat)) == Joined(out));
  const auto ids = IdsOf(d);
  for (const std::string& id : Detect(out, llmconform::wire::Surface::kChat))
    RC_ASSERT(ids.contains(id));
  const auto a = llmconform::wire::AccumulateStream(Joined(canon));
  const auto b = llmconform::wire::AccumulateStream(Joined(out));
  RC_ASSERT(StripThink(b.message.Text()) == a.message.Text());
  RC_ASSERT(b.message.tool_calls.size() == a.message.tool_calls.size());
  for (std::size_t i = 0; i < a.message.tool_calls.size(); ++i) {
    RC_ASSERT(b.message.tool_calls[i].function.name == a.message.tool_calls[i].function.name);
    RC_ASSERT(b.message.tool_calls[i].function.arguments ==
              a.message.tool_calls[i].function.arguments);
  }
  RC_ASSERT(b.usage == a.usage);
}

}  // namespace
}  // namespace llmconform::mockllm
