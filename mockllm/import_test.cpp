#include "mockllm/import.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/file.h"
#include "base/json_locate.h"
#include "mockllm/content_coding.h"
#include "mockllm/lint.h"

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kCassette = R"(interactions:
- request:
    body: '{"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o","stream":true}'
    headers:
      authorization:
      - Bearer sk-abcdefghijklmnopqrstuvwxyz0123
      content-type:
      - application/json
      host:
      - api.openai.com
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}


        data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}


        data: [DONE]


        '
    headers:
      content-type:
      - text/event-stream
      set-cookie:
      - session=abc
    status:
      code: 200
      message: OK
- request:
    body: '{"input":"x","model":"text-embedding-3-small"}'
    headers: {}
    method: POST
    uri: https://api.openai.com/v1/embeddings
  response:
    body:
      string: '{"data":[]}'
    headers: {}
    status:
      code: 200
      message: OK
version: 1
)";

TEST(ImportCassette, StreamBecomesOneChunkPerEventAndSecretsGo) {
  auto r = ParseCassette(kCassette, "dir/test_stream[x].yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->skipped, 1u);
  ASSERT_EQ(r->trace.exchanges.size(), 1u);
  const Exchange& x = r->trace.exchanges[0];
  EXPECT_EQ(x.request.path, "/v1/chat/completions");
  EXPECT_EQ(x.request.headers["authorization"], "[redacted]");
  EXPECT_FALSE(x.request.headers.contains("host"));
  EXPECT_EQ((*x.request.body)["model"], "gpt-4o");
  EXPECT_EQ(x.response.headers["set-cookie"], "[redacted]");
  ASSERT_TRUE(x.response.streamed);
  ASSERT_EQ(x.response.chunks.size(), 3u);
  EXPECT_EQ(x.response.chunks[0].raw,
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n");
  // The two empty lines before the closing quote are two line breaks (as
  // PyYAML, which wrote the cassette, reads them): the last event keeps its end.
  EXPECT_EQ(x.response.chunks[2].raw, "data: [DONE]\n\n");
  const OJson& h = r->trace.header;
  EXPECT_EQ(h["origin"], "imported");
  EXPECT_EQ(h["chunking"], "events");
  EXPECT_EQ(h["source"], "test_stream[x].yaml");
  EXPECT_EQ(h["source_format"], "vcr");
  EXPECT_EQ(h["provider"], "openai");
  EXPECT_EQ(h["skipped"], 1);
  EXPECT_EQ(r->trace.id, "openai/test_stream-x-");
  const std::string text = WriteTrace(r->trace);
  EXPECT_EQ(LintTrace(text, "t"), std::vector<std::string>{});
  EXPECT_EQ(text.find("sk-abc"), std::string::npos);
}

TEST(ImportCassette, ParsedBodyVariantsAndIntegerStatus) {
  constexpr std::string_view yaml = R"(version: 1
interactions:
- request:
    method: POST
    uri: https://api.groq.com/openai/v1/chat/completions
    headers: {content-type: [application/json]}
    parsed_body:
      model: llama
      temperature: 0.5
      n: 1
      stream: false
      stop: null
      messages: [{role: user, content: '123'}]
  response:
    status: 429
    headers: {content-type: [application/json]}
    parsed_body:
      error: {message: slow down, type: tokens, code: rate_limit_exceeded}
- request:
    method: POST
    uri: https://api.deepseek.com/chat/completions
    body: {type: json, content: {model: deepseek-chat, messages: []}}
  response:
    status: 200
    headers: {}
    body: {type: text, content: '{"id":"x"}'}
- request:
    method: POST
    uri: https://router.huggingface.co/together/v1/chat/completions
    body:
      model: llama-4
      messages: [{role: user, content: hi}]
  response:
    status: {code: 500, message: Internal Server Error}
    headers: {content-type: [application/json]}
    parsed_body: {error: {message: Internal server error, type: server_error}}
)";
  auto r = ParseCassette(yaml, "c.yaml");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->trace.exchanges.size(), 3u);
  const Exchange& a = r->trace.exchanges[0];
  EXPECT_EQ(
      a.request.body->dump(),
      R"({"model":"llama","temperature":0.5,"n":1,"stream":false,"stop":null,"messages":[{"role":"user","content":"123"}]})");
  EXPECT_EQ(a.response.status, 429);
  EXPECT_EQ((*a.response.body)["error"]["code"], "rate_limit_exceeded");
  const Exchange& b = r->trace.exchanges[1];
  EXPECT_EQ((*b.request.body)["model"], "deepseek-chat");
  EXPECT_EQ(b.response.BodyBytes(), R"({"id":"x"})");
  const Exchange& c = r->trace.exchanges[2];  // the body itself as a JSON mapping
  EXPECT_EQ(c.request.body->dump(),
            R"({"model":"llama-4","messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(c.response.status, 500);
  EXPECT_EQ(r->trace.header["provider"], "groq");
}

std::string BinaryCassette(std::string_view coding, const std::string& bytes) {
  return "interactions:\n- request:\n    method: POST\n    uri: "
         "http://localhost:11434/v1/chat/completions\n"
         "    body: '{}'\n    headers: {}\n  response:\n    status: {code: 200, message: OK}\n"
         "    headers:\n      content-encoding: [" +
         std::string(coding) +
         "]\n      content-type: [application/json]\n    body:\n      string: !!binary |\n       "
         " " +
         Base64Encode(bytes) + "\n";
}

TEST(ImportCassette, BinaryBodiesAreDecoded) {
  const std::string body = R"({"choices":[{"message":{"content":"ok"}}]})";
  for (const auto& [coding, bytes] :
       {std::pair<std::string, std::string>{"gzip", GzipForTest(body)},
        {"br", BrotliForTest(body)}}) {
    auto r = ParseCassette(BinaryCassette(coding, bytes), "b.yaml");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->trace.exchanges[0].response.BodyBytes(), body) << coding;
    EXPECT_TRUE(r->notes.empty());
    EXPECT_EQ(r->trace.header["provider"], "ollama");
  }
}

TEST(ImportCassette, UndecodableBodyIsKeptAsRawB64WithANote) {
  const std::string junk = "\x1f\x8b\x08\x00garbage\xff\xfe";
  auto r = ParseCassette(BinaryCassette("gzip", junk), "b.yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->trace.exchanges[0].response.BodyBytes(), junk);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_TRUE(r->notes[0].starts_with(
      "interaction 1: response body kept as raw_b64: content-encoding gzip"))
      << r->notes[0];
  const std::string text = WriteTrace(r->trace);
  EXPECT_NE(text.find("\"raw_b64\""), std::string::npos);
  EXPECT_NE(text.find("\"note\""), std::string::npos);
}

TEST(ImportCassette, AnAliasBombIsRefusedNotExpanded) {
  // 700 bytes naming 10^9 values ("billion laughs"): refused where it
  // expands, in bounded time and memory.
  std::string yaml =
      "interactions:\n- request:\n    method: POST\n    uri: http://x/v1/chat/completions\n"
      "    parsed_body:\n      l0: &l0 [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n";
  for (int level = 1; level <= 8; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    yaml += "      l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i ? "," : "") + prev;
    yaml += "]\n";
  }
  yaml += "  response: {status: 200, body: {string: 'ok'}}\n";
  auto r = ParseCassette(yaml, "laughs.yaml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("expands to more than 16777216 bytes of values"),
            std::string::npos)
      << r.error().message;
  EXPECT_TRUE(r.error().message.starts_with("laughs.yaml:")) << r.error().message;
}

TEST(ImportCassette, ErrorsAreLocated) {
  EXPECT_EQ(ParseCassette("interactions: [\n  {a: b\n", "bad.yaml").error().message.substr(0, 9),
            "bad.yaml:");
  auto e = ParseCassette("interactions:\n- request: {method: POST}\n  response: {status: 200}\n",
                         "m.yaml");
  EXPECT_EQ(e.error().message, "m.yaml:2:12: request: missing `uri`");
  e = ParseCassette(
      "interactions:\n- request: {method: POST, uri: 'http://x/v1/chat/completions'}\n"
      "  response: {status: abc}\n",
      "s.yaml");
  EXPECT_EQ(e.error().message,
            "s.yaml:3:22: response.status: expected a final HTTP status code 200-599, got \"abc\"");
  // Found by import_fuzz: a status of 646 imported into a trace that the
  // trace reader (200-599) then refused.
  e = ParseCassette(
      "interactions:\n- request: {method: POST, uri: 'http://x/v1/chat/completions'}\n"
      "  response: {status: {code: 646, message: OK}, body: {string: '{}'}}\n",
      "646.yaml");
  EXPECT_EQ(
      e.error().message,
      "646.yaml:3:29: response.status: expected a final HTTP status code 200-599, got \"646\"");
  // A 1xx is no final answer: no trace holds one.
  e = ParseCassette(
      "interactions:\n- request: {method: POST, uri: 'http://x/v1/chat/completions'}\n"
      "  response: {status: {code: 101, message: OK}, body: {string: '{}'}}\n",
      "101.yaml");
  EXPECT_EQ(
      e.error().message,
      "101.yaml:3:29: response.status: expected a final HTTP status code 200-599, got \"101\"");
  e = ParseCassette("interactions:\n" + std::string(kCassette.substr(
                                            kCassette.find("- request:\n    body: '{\"input"))),
                    "only-embeddings.yaml");
  EXPECT_EQ(
      e.error().message,
      "only-embeddings.yaml: no exchange to import (1 entry skipped: not a /chat/completions, "
      "/responses, /messages or Gemini /models/{model}:generateContent path)");
}

constexpr std::string_view kResponsesCassette = R"(interactions:
- request:
    body: '{"input":"hi","model":"gpt-4o","stream":true}'
    headers: {host: [api.openai.com]}
    method: POST
    uri: https://api.openai.com/v1/responses
  response:
    body:
      string: "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":1}\n\n"
    headers: {content-type: [text/event-stream; charset=utf-8]}
    status: {code: 200, message: OK}
- request:
    body: '{"model":"gpt-4o"}'
    headers: {}
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body: {string: '{"choices":[]}'}
    headers: {content-type: [application/json]}
    status: {code: 200, message: OK}
version: 1
)";

// Responses API exchanges are kept (they were skipped before), and the
// header names the surface when every exchange kept is of one.
TEST(ImportCassette, KeepsResponsesExchangesAndNamesTheSurface) {
  auto r = ParseCassette(kResponsesCassette, "resp.yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->skipped, 0u);
  ASSERT_EQ(r->trace.exchanges.size(), 2u);
  EXPECT_EQ(r->trace.exchanges[0].request.path, "/v1/responses");
  ASSERT_TRUE(r->trace.exchanges[0].response.streamed);
  EXPECT_EQ(r->trace.exchanges[0].response.chunks.size(), 2u);
  EXPECT_FALSE(r->trace.header.contains("surface"));  // two surfaces: none named

  r = ParseCassette(kResponsesCassette, "resp.yaml", {.paths = ImportPaths::kChat});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->skipped, 1u);
  EXPECT_EQ(r->trace.header["surface"], "chat");

  const std::string only_responses(
      kResponsesCassette.substr(0, kResponsesCassette.find("- request:\n    body: '{\"model")));
  r = ParseCassette(std::string(only_responses) + "version: 1\n", "resp.yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->trace.header["surface"], "responses");
  EXPECT_EQ(LintTrace(WriteTrace(r->trace), "t"), std::vector<std::string>{});
}

constexpr std::string_view kHar =
    R"({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
 "entries": [
  {"startedDateTime": "2025-01-01T00:00:00Z", "time": 30,
   "request": {"method": "POST", "url": "https://api.mistral.ai/v1/chat/completions",
     "headers": [{"name": ":authority", "value": "api.mistral.ai"}, {"name": "Authorization", "value": "Bearer abcdefghijk"}],
     "postData": {"mimeType": "application/json", "text": "{\"model\":\"mistral-small\",\"stream\":true}"}},
   "response": {"status": 200, "statusText": "OK",
     "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
     "content": {"mimeType": "text/event-stream", "encoding": "base64",
                 "text": "ZGF0YTogeyJjaG9pY2VzIjpbXX0KCmRhdGE6IFtET05FXQoK"}},
   "timings": {"send": 1, "wait": 20, "receive": 9}}
 ]}})";

TEST(ImportHar, EntriesBecomeExchangesWithTimings) {
  auto r = ParseHar(kHar, "x.har");
  ASSERT_TRUE(r) << r.error().message;
  const Exchange& x = r->trace.exchanges.at(0);
  EXPECT_EQ(x.request.headers["authorization"], "[redacted]");
  EXPECT_FALSE(x.request.headers.contains(":authority"));
  ASSERT_EQ(x.response.chunks.size(), 2u);
  EXPECT_EQ(x.response.chunks[0].raw, "data: {\"choices\":[]}\n\n");
  EXPECT_EQ(x.response.chunks[0].t_ms, 20);
  EXPECT_EQ(x.response.chunks[1].t_ms, 29);
  EXPECT_EQ(r->trace.header["source_format"], "har");
  EXPECT_EQ(r->trace.header["provider"], "mistral");
}

TEST(ImportHar, ErrorsAreLocated) {
  EXPECT_EQ(ParseHar("{\"log\": [1,]}", "a.har").error().message.substr(0, 14), "a.har:1:12: no");
  EXPECT_EQ(ParseHar("{\"log\": {\"entries\": [\n {\"request\": {}}]}}", "b.har").error().message,
            "b.har:2:2: /log/entries/0: missing `response`");
  EXPECT_EQ(ParseHar(std::string(10000, '['), "d.har").error().message,
            "d.har:1:513: not JSON: arrays and objects nest deeper than 512 levels");
  EXPECT_EQ(ParseHar(std::string_view(), "n.har").error().message.substr(0, 18),
            "n.har:1:1: not JSO");
  // Nesting the HAR reader skips over is refused as deep as anywhere else.
  const std::string deep_comment =
      "{\"log\": {\"entries\": [], \"comment\": " + std::string(600, '[') + std::string(600, ']') +
      "}}";
  EXPECT_EQ(ParseHar(deep_comment, "e.har").error().message,
            "e.har:1:546: not JSON: arrays and objects nest deeper than 512 levels");
  // A UTF-8 byte order mark is allowed, as ReadJson allows it; the text is
  // taken over as `mockllm import` reads a file.
  EXPECT_EQ(
      ParseRecording(std::string("\xEF\xBB\xBF{\"log\": {\"entries\": [\n {\"request\": {}}]}}"),
                     "f.har")
          .error()
          .message,
      "f.har:2:2: /log/entries/0: missing `response`");
  // Invalid UTF-8 is not JSON, located.
  EXPECT_EQ(ParseHar("{\"log\": \"\xFF\"}", "g.har").error().message.substr(0, 18),
            "g.har:1:10: not JS");
}

// A HAR of `n` entries, each answered `bytes` (base64) with `coding` and
// `type`.
std::string HarAnswering(std::size_t n, std::string_view coding, const std::string& bytes,
                         std::string_view type = "application/json") {
  std::string har = "{\"log\": {\"version\": \"1.2\", \"entries\": [";
  for (std::size_t i = 0; i < n; ++i) {
    har += std::string(i ? "," : "") +
           "\n {\"request\": {\"method\": \"POST\", \"url\": "
           "\"https://api.openai.com/v1/chat/completions\", \"headers\": []},\n"
           "  \"response\": {\"status\": 200, \"headers\": [{\"name\": \"Content-Encoding\", "
           "\"value\": \"" +
           std::string(coding) + "\"}, {\"name\": \"Content-Type\", \"value\": \"" +
           std::string(type) + "\"}],\n   \"content\": {\"encoding\": \"base64\", \"text\": \"" +
           Base64Encode(bytes) + "\"}}}";
  }
  return har + "]}}";
}

// gzip(gzip(8 MiB)) is a few hundred bytes: each layer stays under the cap
// of one body, the whole is refused as a decompression bomb, located.
TEST(ImportHar, ADecompressionBombIsRefusedLocated) {
  const std::string bomb = GzipForTest(GzipForTest(std::string(8 << 20, ' ')));
  ASSERT_LT(bomb.size(), 2000u);
  auto r = ParseHar(HarAnswering(1, "gzip, gzip", bomb), "bomb.har");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "bomb.har:4:46: entry 1: response body: content-encoding \"gzip, gzip\" decodes to "
            "more than 100 times its " +
                std::to_string(bomb.size()) + " encoded bytes (a decompression bomb?)");
  // The same from a cassette's !!binary body, located at the body.
  auto c = ParseCassette(BinaryCassette("gzip, gzip", bomb), "bomb.yaml");
  ASSERT_FALSE(c);
  EXPECT_TRUE(c.error().message.starts_with("bomb.yaml:13:7: interaction 1: response body"))
      << c.error().message;
}

// What all the bodies of one file decode to is bounded, and so are the SSE
// events its streams hold.
TEST(ImportHar, OneFilesDecodedBytesAndEventsAreBounded) {
  const std::string body = std::string(600 << 10, 'x');  // within a body's own cap
  const std::string har = HarAnswering(3, "gzip", GzipForTest(body), "text/plain");
  ASSERT_TRUE(ParseHar(har, "ok.har", {.paths = ImportPaths::kChat}));
  auto r = ParseHar(har, "all.har", {.max_decoded_bytes = 1 << 20});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "all.har:7:46: entry 2: response body: content-encoding \"gzip\" decodes to more "
            "than is left of the 1048576 bytes all the bodies of one file may decode to");

  std::string stream;
  for (int i = 0; i < 600; ++i) stream += "data: {}\n\n";
  const std::string sse = HarAnswering(2, "gzip", GzipForTest(stream), "text/event-stream");
  ASSERT_TRUE(ParseHar(sse, "ok.har", {.max_events = 1200}));
  auto e = ParseHar(sse, "events.har", {.max_events = 1000});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message,
            "events.har:7:46: entry 2: response body: the file's streams hold more than 1000 SSE "
            "events in all");
}

TEST(ExportHar, ImportReadsTheExportBack) {
  auto first = ParseCassette(kCassette, "c.yaml");
  ASSERT_TRUE(first);
  const OJson har = TracesToHar({first->trace}, "1.0");
  EXPECT_EQ(har["log"]["version"], "1.2");
  auto again = ParseHar(har.dump(), "c.har");
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_EQ(again->trace.exchanges.size(), 1u);
  EXPECT_EQ(again->trace.exchanges[0].response.chunks, first->trace.exchanges[0].response.chunks);
  EXPECT_EQ(again->trace.exchanges[0].request.body, first->trace.exchanges[0].request.body);
}

// A HAR past what the locator walks (kMaxLocatedBytes) places its errors at
// its first non-blank; taken over, its text is freed once parsed, and the
// errors are placed there all the same.
TEST(ImportHar, ALongTextFreedOncePlacesItsErrorsAsWhenKept) {
  const std::string body(llmconform::kMaxLocatedBytes, 'x');
  const std::string entry =
      R"({"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions",)"
      R"("headers":[]},"response":{"status":200,"headers":[],"content":{"text":")" +
      body + R"("}}})";
  // An entry the reader refuses, and one whose body is refused (two SSE events
  // where one is allowed), placed through Assemble's locator.
  const std::string events =
      R"({"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions",)"
      R"("headers":[]},"response":{"status":200,"headers":[{"name":"content-type",)"
      R"("value":"text/event-stream"}],"content":{"text":"data: a\n\ndata: b\n\n"}}})";
  for (const std::string& bad : {std::string(R"({"request": 5})"), events}) {
    const std::string har = "\xEF\xBB\xBF\n\n  {\"log\":{\"entries\":[" + entry + "," + bad + "]}}";
    auto kept = ParseHar(har, "big.har", {.max_events = 1});
    auto freed = ParseRecording(std::string(har), "big.har", {.max_events = 1});
    ASSERT_FALSE(kept);
    ASSERT_FALSE(freed);
    EXPECT_EQ(freed.error().message, kept.error().message);
    EXPECT_TRUE(kept.error().message.starts_with("big.har:3:3: ")) << kept.error().message;
  }
}

TEST(WriteLintedTrace, WritesWhatWriteTraceWritesAndNothingThatFailsLint) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("llmconform-import-write-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto r = ParseHar(kHar, "x.har");
  ASSERT_TRUE(r) << r.error().message;
  const std::string whole = WriteTrace(r->trace);
  auto report = WriteLintedTrace(r->trace, dir / "x.trace.jsonl");
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->problems.empty());
  EXPECT_EQ(*llmconform::ReadFile(dir / "x.trace.jsonl"), whole);
  EXPECT_TRUE(r->trace.exchanges.at(0).request.headers.empty());  // freed once written

  // A secret in the last line: lint lists it, and no file is written, not
  // even the lines before it.
  auto leaky = ParseHar(kHar, "x.har");
  ASSERT_TRUE(leaky);
  leaky->trace.exchanges.back().request.headers["authorization"] = "Bearer abcdefgh1234";
  report = WriteLintedTrace(leaky->trace, dir / "leaky.trace.jsonl");
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("/request/headers/authorization: holds a secret"),
            std::string::npos)
      << report->problems[0];
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"x.trace.jsonl"});

  // Where nothing can be written, a trace that fails lint says so first (as
  // every input error comes before a write error); a clean one is the error.
  auto leaky_again = ParseHar(kHar, "x.har");
  ASSERT_TRUE(leaky_again);
  leaky_again->trace.exchanges.back().request.headers["authorization"] = "Bearer abcdefgh1234";
  report = WriteLintedTrace(leaky_again->trace, "/proc/llmconform-cannot/t.trace.jsonl");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->problems.size(), 1u);
  auto clean = ParseHar(kHar, "x.har");
  ASSERT_TRUE(clean);
  auto unwritable = WriteLintedTrace(clean->trace, "/proc/llmconform-cannot/t.trace.jsonl");
  ASSERT_FALSE(unwritable);
  EXPECT_TRUE(unwritable.error().message.starts_with("/proc/llmconform-cannot/t.trace.jsonl: "));
  std::filesystem::remove_all(dir);
}

TEST(TraceStem, StripsFolderAndSuffix) {
  EXPECT_EQ(TraceStem("tests/c/test_x[a b].yaml"), "test_x-a-b-");
  EXPECT_EQ(TraceStem("x.har"), "x");
  EXPECT_EQ(TraceStem("/"), "recording");
}

// Hostile input: random bytes, and random damage to a valid recording, give a
// value or a located error — never a crash.
RC_GTEST_PROP(ImportParsers, RandomBytesGiveAResultOrALocatedError, (const std::string& bytes)) {
  for (auto* parse : {&ParseCassette, &ParseHar}) {
    auto r = parse(bytes, "r.in", {});
    if (!r) RC_ASSERT(r.error().message.starts_with("r.in"));
  }
}

RC_GTEST_PROP(ImportParsers, DamagedRecordingsGiveAResultOrALocatedError, ()) {
  const bool har = *rc::gen::arbitrary<bool>();
  std::string text(har ? kHar : kCassette);
  const auto edits = *rc::gen::inRange(1, 6);
  for (int i = 0; i < edits; ++i) {
    const auto pos = *rc::gen::inRange<std::size_t>(0, text.size());
    const char c = *rc::gen::elementOf(std::string("{}[]:,-'\"\n !&*|>#\\\x80"));
    text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), c);
  }
  auto r = ParseRecording(std::string_view(text), "d.in");
  // Taken over (as `mockllm import` reads a file) a text is read in place: the
  // same trace or the same error.
  auto in_place = ParseRecording(std::string(text), "d.in");
  RC_ASSERT(bool(r) == bool(in_place));
  if (!r) {
    RC_ASSERT(r.error().message == in_place.error().message);
    RC_ASSERT(r.error().message.starts_with("d.in"));
  } else {
    RC_ASSERT(WriteTrace(r->trace) == WriteTrace(in_place->trace));
    RC_ASSERT(LintTrace(WriteTrace(r->trace), "t").empty());
  }
}

}  // namespace
}  // namespace llmconform::mockllm
