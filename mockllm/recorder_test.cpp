#include "mockllm/recorder.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "base/test_paths.h"
#include "mockllm/lint.h"
#include "mockllm/redaction.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

namespace fs = std::filesystem;

const std::string kFixture =
    std::string(::llmconform::test_paths::SourceRoot()) + "/fixtures/test/mockllm_chat.trace.jsonl";

// A fresh directory for one test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = fs::temp_directory_path() /
            ("mockllm_test_" + std::to_string(getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct RecorderReply {
  int status = 0;
  std::string body;
};

RecorderReply RecorderPost(int port, const std::string& path, const std::string& body) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(10, 0);
  httplib::Headers headers = {{"Authorization", "Bearer sk-live-abcdefghijklmnopqrstuvwxyz"},
                              {"X-Org-Token", "org-secret-1"},
                              {"Ocp-Apim-Subscription-Key", "0123456789abcdef0123"},
                              {"X-Trace-Note", "ghp_0123456789abcdefghijABCDEFGHIJ012345"}};
  auto r = c.Post(path.c_str(), headers, body, "application/json");
  if (!r) return {};
  return {r->status, r->body};
}

// The requests of the bundled chat fixture, spelt as a client would send them.
std::vector<std::string> FixtureRequests(const Trace& t) {
  std::vector<std::string> out;
  for (const Exchange& x : t.exchanges) out.push_back(x.request.body->dump());
  return out;
}

// An upstream's reads may cut a key anywhere: record, serve --proxy and
// probe --record (all Redactor::Record) redact the stream joined, and keep
// every chunk in its place with its time.
TEST(Redactor, RedactsASecretSplitAcrossStreamChunksWhereItStarts) {
  const WireExchange w{.path = "/v1/chat/completions",
                       .status = 200,
                       .pieces = {{1, R"(data: {"c":"sk-proj-AAAA)"},
                                  {2, "BBBB"},
                                  {3, "CCCCDDDDEEEEFFFF and ghp_0123456789abcdefghij"},
                                  {4, R"(ABCDEFGHIJ012345"})"
                                      "\n\n"}},
                       .streamed = true};
  const Exchange x = Redactor().Record(w);
  ASSERT_EQ(x.response.chunks.size(), 4u);
  EXPECT_EQ(x.response.chunks[0], (Chunk{1, R"(data: {"c":"sk-[redacted])"}));
  EXPECT_EQ(x.response.chunks[1], (Chunk{2, ""}));
  EXPECT_EQ(x.response.chunks[2], (Chunk{3, " and [redacted]"}));
  EXPECT_EQ(x.response.chunks[3], (Chunk{4, "\"}\n\n"}));
  EXPECT_TRUE(LintTrace(std::string(R"({"format":"llmconform-trace/1","id":"x"})") + "\n" +
                            WriteExchange(x) + "\n",
                        "r.jsonl")
                  .empty());
  // A stream that broke off is cut where its redacted bytes end.
  WireExchange cut = w;
  cut.complete = false;
  const auto fault = Redactor().Record(cut).fault;
  ASSERT_TRUE(fault);
  EXPECT_EQ(*fault, (OJson{{"cut_after_bytes", 44}}));
}

TEST(Recorder, RecordsWhatReplaysByteIdenticallyWithoutSecrets) {
  TempDir dir;
  auto fixture = LoadTraceFile(kFixture);
  ASSERT_TRUE(fixture) << fixture.error().message;
  auto upstream = Server::Start({*fixture}, {});
  ASSERT_TRUE(upstream) << upstream.error().message;
  const fs::path out = dir.path() / "chat.trace.jsonl";
  auto recorder =
      Recorder::Start({.recording = {.upstream = (*upstream)->base_url() + "/t/test%2Fmockllm-chat",
                                     .out = out,
                                     .redact_headers = {"X-Org-Token"},
                                     .header_fields = {{"provider", "mock"}}}});
  ASSERT_TRUE(recorder) << recorder.error().message;

  std::vector<RecorderReply> direct;
  std::vector<RecorderReply> proxied;
  for (const std::string& body : FixtureRequests(*fixture)) {
    proxied.push_back(RecorderPost((*recorder)->port(), "/v1/chat/completions", body));
  }
  (*upstream)->Reset();
  for (const std::string& body : FixtureRequests(*fixture)) {
    direct.push_back(
        RecorderPost((*upstream)->port(), "/t/test%2Fmockllm-chat/v1/chat/completions", body));
  }
  (*recorder)->Stop();
  EXPECT_EQ((*recorder)->exchanges_written(), 2u);
  for (std::size_t i = 0; i < direct.size(); ++i) {
    EXPECT_EQ(proxied[i].status, 200);
    EXPECT_EQ(proxied[i].body, direct[i].body) << "exchange " << i;
  }

  const std::string text = ReadFile(out);
  EXPECT_EQ(text.find("sk-live"), std::string::npos);
  EXPECT_EQ(text.find("org-secret"), std::string::npos);
  // Redaction uses the lint's rules (secret_rules.json): names and text.
  EXPECT_EQ(text.find("0123456789abcdef0123"), std::string::npos);
  EXPECT_EQ(text.find("ghp_0123456789"), std::string::npos);
  EXPECT_TRUE(LintTrace(text, out.string()).empty());
  auto recorded = ParseTrace(text, out.string());
  ASSERT_TRUE(recorded) << recorded.error().message;
  EXPECT_EQ(recorded->id, "chat");
  EXPECT_EQ(recorded->header["origin"], "recorded");
  EXPECT_EQ(recorded->header["provider"], "mock");
  ASSERT_EQ(recorded->exchanges.size(), 2u);
  const Exchange& stream = recorded->exchanges[1];
  EXPECT_EQ(stream.seq, 2);
  EXPECT_EQ(stream.request.headers["authorization"], "[redacted]");
  EXPECT_EQ(stream.request.headers["x-org-token"], "[redacted]");
  EXPECT_TRUE(stream.response.streamed);
  EXPECT_EQ(stream.response.headers["x-request-id"], "req_mock2");
  EXPECT_FALSE(stream.fault);

  // The recording replays to the same bytes.
  auto replay = Server::Start({*recorded}, {});
  ASSERT_TRUE(replay) << replay.error().message;
  const auto requests = FixtureRequests(*fixture);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(RecorderPost((*replay)->port(), "/t/chat/v1/chat/completions", requests[i]).body,
              direct[i].body);
  }
}

// Two million one-byte reads must not become two million chunks: past
// max_chunks every read joins the last chunk, and the exchange says so.
TEST(Recorder, ReadsPastTheChunkCapJoinTheLastChunkAndTheTraceSaysSo) {
  TempDir dir;
  httplib::Server upstream;
  upstream.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [](std::size_t, httplib::DataSink& sink) {
      for (int i = 0; i < 1000; ++i) {
        if (!sink.write(i % 2 ? "b" : "a", 1)) return false;
      }
      sink.done();
      return true;
    });
  });
  const int up = upstream.bind_to_any_port("127.0.0.1");
  ASSERT_GT(up, 0);
  std::thread serving([&] { upstream.listen_after_bind(); });
  const fs::path out = dir.path() / "reads.trace.jsonl";
  auto recorder = Recorder::Start(
      {.recording = {
           .upstream = "http://127.0.0.1:" + std::to_string(up), .out = out, .max_chunks = 100}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  const RecorderReply reply = RecorderPost((*recorder)->port(), "/v1/chat/completions", "{}");
  (*recorder)->Stop();
  upstream.stop();
  serving.join();
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += i % 2 ? 'b' : 'a';
  EXPECT_EQ(reply.body, expected);
  auto recorded = LoadTraceFile(out);
  ASSERT_TRUE(recorded) << recorded.error().message;
  ASSERT_EQ(recorded->exchanges.size(), 1u);
  const Exchange& x = recorded->exchanges[0];
  ASSERT_EQ(x.response.chunks.size(), 100u);
  std::string joined;
  for (const Chunk& c : x.response.chunks) joined += c.raw;
  EXPECT_EQ(joined, expected);
  EXPECT_EQ(x.response.chunks[0].raw, "a");
  EXPECT_EQ(x.response.chunks[99].raw.size(), 901u);
  EXPECT_EQ(x.extra["note"],
            "the body came in 1000 reads: the last 900 are joined to chunk 99 (a recording keeps "
            "at most 100 chunks)");
}

TEST(Recorder, KeepsAStreamThatBreaksOffAsACutFault) {
  TempDir dir;
  auto fixture = LoadTraceFile(kFixture);
  ASSERT_TRUE(fixture);
  fixture->exchanges[1].fault = OJson{{"cut_after_events", 2}};
  auto upstream = Server::Start({*fixture}, {});
  ASSERT_TRUE(upstream);
  const fs::path out = dir.path() / "cut.trace.jsonl";
  auto recorder = Recorder::Start(
      {.recording = {.upstream = (*upstream)->base_url() + "/t/test%2Fmockllm-chat/", .out = out}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  const auto requests = FixtureRequests(*fixture);
  RecorderPost((*recorder)->port(), "/v1/chat/completions", requests[0]);
  RecorderPost((*recorder)->port(), "/v1/chat/completions", requests[1]);
  (*recorder)->Stop();
  auto recorded = LoadTraceFile(out);
  ASSERT_TRUE(recorded) << recorded.error().message;
  ASSERT_EQ(recorded->exchanges.size(), 2u);
  std::size_t bytes = 0;
  for (const Chunk& c : recorded->exchanges[1].response.chunks) bytes += c.raw.size();
  ASSERT_TRUE(recorded->exchanges[1].fault);
  EXPECT_EQ(*recorded->exchanges[1].fault, (OJson{{"cut_after_bytes", bytes}}));
}

TEST(Recorder, AppendsToATraceWhoseLastLineHasNoEnd) {
  TempDir dir;
  auto fixture = LoadTraceFile(kFixture);
  ASSERT_TRUE(fixture);
  auto upstream = Server::Start({*fixture}, {});
  ASSERT_TRUE(upstream);
  // A trace written by hand, its last line without a newline.
  const fs::path out = dir.path() / "hand.trace.jsonl";
  std::string text = ReadFile(kFixture);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::ofstream(out, std::ios::binary) << text;
  auto recorder = Recorder::Start(
      {.recording = {.upstream = (*upstream)->base_url() + "/t/test%2Fmockllm-chat/",
                     .out = out,
                     .append = true}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  RecorderPost((*recorder)->port(), "/v1/chat/completions", FixtureRequests(*fixture)[0]);
  (*recorder)->Stop();
  auto recorded = LoadTraceFile(out);
  ASSERT_TRUE(recorded) << recorded.error().message;
  EXPECT_EQ(recorded->exchanges.size(), fixture->exchanges.size() + 1);
}

// An upstream answering `status`: a 502 to the client, nothing recorded.
void UpstreamStatusIsA502(int status) {
  TempDir dir;
  httplib::Server upstream;
  upstream.Post(".*", [status](const httplib::Request&, httplib::Response& res) {
    res.status = status;
    res.set_content("{}", "application/json");
  });
  const int port = upstream.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { upstream.listen_after_bind(); });
  const fs::path out = dir.path() / "bad.trace.jsonl";
  auto recorder = Recorder::Start(
      {.recording = {.upstream = "http://127.0.0.1:" + std::to_string(port), .out = out}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  RecorderReply r = RecorderPost((*recorder)->port(), "/v1/chat/completions", "{}");
  EXPECT_EQ(r.status, 502);
  EXPECT_NE(r.body.find("answered status " + std::to_string(status) +
                        ", not a final HTTP status (200-599)"),
            std::string::npos)
      << r.body;
  (*recorder)->Stop();
  upstream.stop();
  serving.join();
  EXPECT_EQ((*recorder)->exchanges_written(), 0u);
  EXPECT_TRUE(LoadTraceFile(out)) << "the recording no longer loads";
}

TEST(Recorder, AnUpstreamStatusNoTraceCanHoldIsA502AndNotRecorded) {
  for (const int status : {999, 101}) {
    SCOPED_TRACE(status);
    UpstreamStatusIsA502(status);
  }
}

TEST(Recorder, RefusesToOverwriteAndReportsBadUpstreams) {
  TempDir dir;
  const fs::path out = dir.path() / "x.trace.jsonl";
  std::ofstream(out) << "{}\n";
  auto exists = Recorder::Start({.recording = {.upstream = "http://127.0.0.1:9", .out = out}});
  ASSERT_FALSE(exists);
  EXPECT_EQ(exists.error().message, out.string() + ": the file exists (use --append to add to it)");
  auto bad = Recorder::Start(
      {.recording = {.upstream = "ftp://example.com", .out = dir.path() / "y.trace.jsonl"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "--upstream \"ftp://example.com\": expected an http:// or https:// URL");
}

TEST(Recorder, UnreachableUpstreamIsA502AndNothingIsWritten) {
  TempDir dir;
  const fs::path out = dir.path() / "none.trace.jsonl";
  // A port that was just free: nothing listens there.
  int free_port = 0;
  {
    auto probe = Server::Start({}, {});
    ASSERT_TRUE(probe);
    free_port = (*probe)->port();
  }
  auto recorder = Recorder::Start(
      {.recording = {.upstream = "http://127.0.0.1:" + std::to_string(free_port), .out = out}});
  ASSERT_TRUE(recorder);
  RecorderReply r = RecorderPost((*recorder)->port(), "/v1/chat/completions", "{}");
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["type"], "mockllm_upstream_error");
  (*recorder)->Stop();
  EXPECT_EQ((*recorder)->exchanges_written(), 0u);
}

}  // namespace
}  // namespace llmconform::mockllm
