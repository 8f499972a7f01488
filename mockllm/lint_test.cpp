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
