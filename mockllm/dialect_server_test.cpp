// mockllm::Server with dialects: --dialect, the X-Mockllm-Dialect header,
// faults on top, the journal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "base/test_paths.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/server.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/dialect.h"

namespace llmconform::mockllm {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::vector<Trace> Probe() {
  std::vector<Trace> out;
  auto files =
      TraceFiles({(fs::path(::llmconform::test_paths::SourceRoot()) / "fixtures/probe").string()});
  EXPECT_TRUE(files.has_value());
  for (const auto& f : *files) out.push_back(*LoadTraceFile(f));
  return out;
}

std::unique_ptr<Server> DialectServerStart(ServerOptions o = {}) {
  auto s = Server::Start(Probe(), std::move(o));
  EXPECT_TRUE(s) << s.error().message;
  return std::move(*s);
}

struct DialectServerReply {
  int status = 0;
  std::string body;
};

// Sends the recorded request of probe trace `id` on its pinned route.
DialectServerReply Send(const Server& s, const std::string& id,
                        const httplib::Headers& headers = {}) {
  const Trace* t = nullptr;
  static const auto traces = Probe();
  for (const Trace& x : traces)
    if (x.id == id) t = &x;
  EXPECT_NE(t, nullptr) << id;
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(10, 0);
  auto r = c.Post(("/t/" + UrlEncode(id) + "/v1/chat/completions").c_str(), headers,
                  t->exchanges[0].request.body->dump(), "application/json");
  if (!r) return {};
  return {r->status, r->body};
}

std::set<std::string> StreamIds(const std::string& body) {
  std::set<std::string> out;
  for (const auto& d : llmconform::wire::DetectStreamDialect(body)) out.insert(d.id);
  return out;
}

TEST(DialectServer, TheHeaderPicksTheDialectPerRequest) {
  auto s = DialectServerStart();
  const DialectServerReply plain = Send(*s, "probe/streamed-tools");
  EXPECT_EQ(plain.status, 200);
  EXPECT_TRUE(StreamIds(plain.body).empty());
  const DialectServerReply gemini = Send(
      *s, "probe/streamed-tools", {{"X-Mockllm-Session", "g"}, {"X-Mockllm-Dialect", "gemini"}});
  EXPECT_EQ(StreamIds(gemini.body),
            (std::set<std::string>{"DIA-TOOLCALL-NO-INDEX", "DIA-FINISH-REASON-NOT-TOOL-CALLS"}));
  const DialectServerReply deepseek = Send(
      *s, "probe/streamed-tools", {{"X-Mockllm-Session", "d"}, {"X-Mockllm-Dialect", "deepseek"}});
  EXPECT_THAT(deepseek.body, HasSubstr("reasoning_content"));
  const auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 3u);
  EXPECT_FALSE(journal[0].contains("dialect"));
  EXPECT_EQ(journal[1]["dialect"], "gemini");
  EXPECT_EQ(journal[2]["dialect"], "deepseek");
}

TEST(DialectServer, TheOptionIsTheDefaultAndTheHeaderWins) {
  auto s = DialectServerStart({.dialect = "azure"});
  const DialectServerReply azure = Send(*s, "probe/stream");
  EXPECT_TRUE(azure.body.starts_with(R"(data: {"choices":[],"created":0)")) << azure.body;
  const DialectServerReply openai =
      Send(*s, "probe/stream", {{"X-Mockllm-Session", "o"}, {"X-Mockllm-Dialect", "openai"}});
  EXPECT_TRUE(openai.body.starts_with(R"(data: {"id":"chatcmpl-probe-stream")")) << openai.body;
}

TEST(DialectServer, UnknownDialectsAreRefused) {
  auto started = Server::Start(Probe(), {.dialect = "nope"});
  ASSERT_FALSE(started.has_value());
  EXPECT_THAT(
      started.error().message,
      HasSubstr(
          "--dialect \"nope\": unknown dialect (known: anthropic, antseed-anthropic, azure,"));
  auto s = DialectServerStart();
  const DialectServerReply r = Send(*s, "probe/plain", {{"X-Mockllm-Dialect", "nope"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("mockllm_unknown_dialect"));
  // The refused request did not use up the session's exchange.
  EXPECT_EQ(Send(*s, "probe/plain").status, 200);
}

TEST(DialectServer, FaultsApplyOnTopOfTheDialect) {
  auto s = DialectServerStart({.fault = OJson{{"drop_done", true}}});
  const DialectServerReply r = Send(*s, "probe/stream", {{"X-Mockllm-Dialect", "openrouter"}});
  EXPECT_THAT(r.body, HasSubstr(": OPENROUTER PROCESSING\n\n"));
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos);
  // An injected HTTP error is rewritten too: Gemini's error array.
  auto e = DialectServerStart({.fault = OJson{{"status", 429}}});
  const DialectServerReply g = Send(*e, "probe/plain", {{"X-Mockllm-Dialect", "gemini"}});
  EXPECT_EQ(g.status, 429);
  EXPECT_TRUE(g.body.starts_with(R"([{"error":{"code":429,)")) << g.body;
  EXPECT_THAT(g.body, HasSubstr("RESOURCE_EXHAUSTED"));
  // …and an injected 500 on a stream becomes llama.cpp's in-stream error.
  auto f = DialectServerStart({.fault = OJson{{"status", 500}}});
  const DialectServerReply l = Send(*f, "probe/stream", {{"X-Mockllm-Dialect", "llamacpp"}});
  EXPECT_EQ(l.status, 200);
  EXPECT_EQ(StreamIds(l.body), (std::set<std::string>{"DIA-ERROR-IN-STREAM"}));
}

TEST(DialectServer, SpeedKeepsTheRewrittenTimeline) {
  auto s = DialectServerStart({.speed = 0.01});
  const DialectServerReply r = Send(*s, "probe/streamed-tools", {{"X-Mockllm-Dialect", "groq"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr(R"("arguments":"{\"city\":\"Paris\"}")"));
}

// A Chat dialect on a Responses exchange: the recorded bytes, and the
// journal says why; a Responses dialect rewrites it.
TEST(DialectServer, ADialectOfAnotherSurfaceSendsTheReplyAsRecordedAndSaysSo) {
  auto trace = LoadTraceFile(fs::path(::llmconform::test_paths::SourceRoot()) /
                             "fixtures/recorded/openai-responses/"
                             "test_openai_responses_streaming_usage.trace.jsonl");
  ASSERT_TRUE(trace.has_value());
  const Exchange& x = trace->exchanges[0];
  std::string recorded;
  for (const Chunk& c : x.response.chunks) recorded += c.raw;
  auto started = Server::Start({*trace}, {});
  ASSERT_TRUE(started.has_value()) << started.error().message;
  const Server& s = **started;
  auto post = [&](const std::string& session, const std::string& dialect) {
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(10, 0);
    auto r = c.Post(("/t/" + UrlEncode(trace->id) + "/v1/responses").c_str(),
                    {{"X-Mockllm-Session", session}, {"X-Mockllm-Dialect", dialect}},
                    x.request.body->dump(), "application/json");
    return r ? r->body : std::string();
  };
  EXPECT_EQ(post("a", "deepseek"), recorded);
  const std::string litellm = post("b", "litellm-responses");
  std::set<std::string> ids;
  for (const auto& d : llmconform::wire::DetectStreamDialect(wire::Surface::kResponses, litellm))
    ids.insert(d.id);
  const auto want = FindDialect("litellm-responses")->Ids();
  EXPECT_EQ(ids, std::set<std::string>(want.begin(), want.end()));
  const auto journal = s.Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["dialect"], "deepseek");
  ASSERT_EQ(journal[0]["findings"].size(), 1u) << journal[0].dump();
  EXPECT_EQ(journal[0]["findings"][0]["rule"], "dialect_other_surface");
  EXPECT_THAT(journal[0]["findings"][0]["message"].get<std::string>(),
              HasSubstr("rewrites chat replies; this responses reply was sent as recorded"));
  EXPECT_EQ(journal[1]["dialect"], "litellm-responses");
  EXPECT_TRUE(!journal[1].contains("findings") || journal[1]["findings"].empty());
}

}  // namespace
}  // namespace llmconform::mockllm
