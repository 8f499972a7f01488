#include "mockllm/lint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/test_paths.h"

namespace llmconform::mockllm {
namespace {

using ::testing::ElementsAre;

constexpr std::string_view kHeader = R"({"format":"llmconform-trace/1","id":"x"})";

TEST(TraceLint, CleanTraceHasNoProblems) {
  EXPECT_TRUE(
      LintTrace(
          std::string(kHeader) + "\n" +
              R"({"request":{"path":"/v1/chat/completions","headers":{"authorization":"[redacted]"}},"response":{"status":200}})",
          "ok.jsonl")
          .empty());
}

TEST(TraceLint, NamesFileLineAndPointerOfEverySecret) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/chat/completions","headers":{"Authorization":"Bearer abcdefgh1234","x-api-key":"k1"},"body":{"messages":[{"role":"user","content":"my key is sk-abcdefghijklmnopqrstuvwxyz"}]}},"response":{"status":200,"headers":{"set-cookie":"session=1"}}})" +
      "\n";
  EXPECT_THAT(LintTrace(text, "s.jsonl"),
              ElementsAre("s.jsonl:2:70: /request/headers/Authorization: holds a secret (a "
                          "credential header \"Authorization\"; rule auth-header); redact it",
                          "s.jsonl:2:104: /request/headers/x-api-key: holds a secret (an API key "
                          "field \"x-api-key\"; rule api-key-field); redact it",
                          "s.jsonl:2:155: /request/body/messages/0/content: holds a secret (an sk- "
                          "API key; rule openai-key); redact it",
                          "s.jsonl:2:250: /response/headers/set-cookie: holds a secret (a "
                          "credential header \"set-cookie\"; rule auth-header); redact it"));
}

TEST(TraceLint, FindsSecretsInBase64ChunksAndGoesOnAfterBadLines) {
  const std::string text =
      std::string(kHeader) + "\n" + R"({"request":{"path":"/v1/x"},"response":{"status":"ok"}})" +
      "\n" +
      R"({"request":{"path":"/v1/x"},"response":{"status":200,"chunks":[{"t_ms":0,"raw_b64":"QmVhcmVyIGFiY2RlZmdoMTIz"}]}})" +
      "\nnot json sk-abcdefghijklmnopqrstuvwxyz\n";
  EXPECT_THAT(
      LintTrace(text, "b.jsonl"),
      ElementsAre(
          "b.jsonl:2:50: /response/status: expected integer, got string",
          "b.jsonl:3:84: /response/chunks/0/raw_b64: holds a secret (a bearer token; rule "
          "bearer-token); redact it",
          "b.jsonl:4:2: syntax error while parsing value - invalid literal; last read: 'no'",
          "b.jsonl:4:1: /: holds a secret (an sk- API key; rule openai-key); redact it"));
}

// A stream is read joined: a key split across chunks (as an upstream's reads
// cut it) is a secret, reported at the chunk where it starts.
TEST(TraceLint, FindsASecretSplitAcrossStreamChunks) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/x"},"response":{"status":200,"chunks":[{"t_ms":0,"raw":"data: {\"c\":\"sk-proj-AAAA"},{"t_ms":5,"raw":"BBBBCCCCDDDDEEEEFFFF and ghp_0123456789abcdefghij"},{"t_ms":9,"raw_b64":"QUJDREVGR0hJSjAxMjM0NSJ9Cgo="}]}})" +
      "\n";
  EXPECT_THAT(
      LintTrace(text, "c.jsonl"),
      ElementsAre("c.jsonl:2:80: /response/chunks/0/raw: holds a secret (an sk- API key; rule "
                  "openai-key, split across chunks 0 to 1); redact it",
                  "c.jsonl:2:127: /response/chunks/1/raw: holds a secret (a GitHub token; rule "
                  "github-token, split across chunks 1 to 2); redact it"));
}

// The BEGIN line of a PEM private key is evidence enough, its END line cut off.
TEST(TraceLint, FindsAPemPrivateKeyWithoutItsEndLine) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/x","body":{"messages":[{"role":"user","content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"}]}},"response":{"status":200}})" +
      "\n";
  const auto problems = LintTrace(text, "p.jsonl");
  ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(problems);
  EXPECT_THAT(problems[0],
              ::testing::HasSubstr("/request/body/messages/0/content: holds a "
                                   "secret (a PEM private key; rule pem-private-key)"));
}

TEST(TraceLint, BundledFixturesAreClean) {
  for (auto name : {"mockllm_chat", "mockllm_tools", "mockllm_ratelimit"}) {
    const std::string path = std::string(::llmconform::test_paths::SourceRoot()) +
                             "/fixtures/test/" + name + ".trace.jsonl";
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_THAT(LintTrace(text.str(), path), ElementsAre()) << path;
  }
}

TEST(TraceLint, ReportsEveryProblemOfALine) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"seq":"one","request":{"path":"v1"},"response":{"status":"ok","chunks":[{"t_ms":-1,"raw":"a"},{"raw":"b"}]},"fault":{"status":1,"drop_done":"yes"}})" +
      "\n";
  const auto problems = LintTrace(text, "e.jsonl");
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  for (auto pointer : {"/seq:", "/request/path:", "/response/status:", "/response/chunks/0/t_ms:",
                       "/response/chunks/1:", "/fault/status:", "/fault/drop_done:"}) {
    EXPECT_NE(all.find(pointer), std::string::npos) << pointer << " not in\n" << all;
  }
  EXPECT_EQ(problems.size(), 7u) << all;
}

// Issue 34: a 1xx status and headers that cannot be replayed are format
// problems, each placed; framing headers are warned about, not counted.
TEST(TraceLint, FinalStatusesHeaderTokensAndFramingHeaders) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/x"},"response":{"status":101,"headers":{"Content-Length ":"3","x":"a\u000bb"}}})" +
      "\n" +
      R"({"request":{"path":"/v1/x"},"response":{"status":200,"headers":{"Transfer-Encoding":"chunked","x-ok":"1"}}})" +
      "\n";
  const LintReport report = LintTraceReport(text, "h.jsonl");
  EXPECT_THAT(
      report.problems,
      ElementsAre("h.jsonl:2:50: /response/status: expected a final HTTP status 200-599, got 101",
                  "h.jsonl:2:83: /response/headers/Content-Length : the header name "
                  "\"Content-Length \" is not an HTTP token (byte 14 is 0x20)",
                  "h.jsonl:2:91: /response/headers/x: the header value holds a control character "
                  "(0x0b at byte 1)"));
  EXPECT_EQ(report.format_errors, 3u);
  EXPECT_THAT(report.warnings,
              ElementsAre("h.jsonl:3:85: /response/headers/Transfer-Encoding: warning: a framing "
                          "header, not replayed (the server frames the answer itself)"));
}

// A path with a query never matches a request: warned about, at the path, and
// not counted; a query kept apart (request.query) is what import writes.
TEST(TraceLint, APathWithAQueryIsWarnedAbout) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/x?alt=sse"},"response":{"status":200}})" + "\n" +
      R"({"request":{"path":"/v1/x","query":"alt=sse"},"response":{"status":200}})" + "\n";
  const LintReport report = LintTraceReport(text, "q.jsonl");
  EXPECT_THAT(report.problems, ElementsAre());
  EXPECT_THAT(report.warnings,
              ElementsAre("q.jsonl:2:20: /request/path: warning: the path has a query, so no "
                          "request matches it (mockllm matches the path alone); put the query in "
                          "request.query"));
}

// A Responses API exchange is read as a client reads it: the contract rules
// it breaks are warnings placed at the chunk of their event (or the body's
// value), never problems.
TEST(TraceLint, ResponsesContractBreaksAreLocatedWarnings) {
  const std::string text =
      std::string(kHeader) + "\n" +
      R"({"request":{"path":"/v1/responses"},"response":{"status":200,"chunks":[{"t_ms":0,"raw":"event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{}}\n\n"},{"t_ms":0,"raw":"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,\"response\":{\"id\":\"r\",\"model\":\"m\",\"status\":\"completed\",\"output\":[]}}\n\n"}]}})" +
      "\n" +
      R"({"request":{"path":"/v1/responses"},"response":{"status":200,"body":{"object":"response","model":"m","output":[]}}})" +
      "\n" +
      R"({"request":{"path":"/v1/chat/completions"},"response":{"status":200,"body":{"weird":true}}})" +
      "\n";
  const LintReport report = LintTraceReport(text, "r.jsonl");
  EXPECT_TRUE(report.problems.empty());
  ASSERT_EQ(report.warnings.size(), 2u);
  EXPECT_THAT(report.warnings[0],
              ::testing::StartsWith("r.jsonl:2:196: /response/chunks/1: warning: RESP-SEQUENCE: "
                                    "event 2 /sequence_number: sequence_number 2, expected 1"));
  EXPECT_THAT(report.warnings[1], ::testing::StartsWith("r.jsonl:3:"));
  EXPECT_THAT(report.warnings[1],
              ::testing::HasSubstr("/response/body/id: warning: RESP-TERMINAL-ID-MODEL: /id: the "
                                   "response has no id"));
}

}  // namespace
}  // namespace llmconform::mockllm
