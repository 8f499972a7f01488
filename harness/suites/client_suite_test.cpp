#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "base/file.h"
#include "base/test_paths.h"
#include "harness/client_cmd.h"
#include "harness/replies_sent.h"
#include "harness/runner.h"
#include "harness/scratch_dir.h"
#include "harness/suites/client_reading.h"
#include "harness/suites/client_request.h"
#include "harness/suites/registry.h"
#include "harness/suites/suite_test_support.h"
#include "mockllm/dialect_rewrite.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using client_suite::ReadReply;
using client_suite::Reply;
using reports::Outcome;

using ::llmconform::test_paths::kRoot;

std::string Chunk(const Json& delta, const Json& finish = nullptr) {
  return "data: " +
         Json{{"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}}.dump() +
         "\n\n";
}

TEST(ClientReading, JoinsAStreamAndItsUsage) {
  const std::string body =
      ": keep-alive\n\n" + Chunk({{"content", "Hel"}}) + Chunk({{"content", "lo"}}, "stop") +
      "data: {\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\ndata: [DONE]\n\n";
  const Json r =
      ReadReply(Reply{.content_type = "text/event-stream", .body = body, .stream = true});
  EXPECT_EQ(r["text"], "Hello");
  EXPECT_EQ(r["usage"]["total_tokens"], 3);
  EXPECT_EQ(r["finish"], "stop");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(client_suite::CommentLines(body), 1u);
}

TEST(ClientReading, TakesWholeToolCallsWithoutIndexInOrder) {
  const Json a = {
      {"id", "a"}, {"type", "function"}, {"function", {{"name", "f"}, {"arguments", "{\"x\":1}"}}}};
  const Json b = {
      {"id", "b"}, {"type", "function"}, {"function", {{"name", "g"}, {"arguments", "{}"}}}};
  const std::string body =
      Chunk({{"tool_calls", {a}}}) + Chunk({{"tool_calls", {b}}}, "stop") + "data: [DONE]\n\n";
  const Json r = ReadReply(Reply{.body = body, .stream = true});
  ASSERT_EQ(r["tool_calls"].size(), 2u);
  EXPECT_EQ(r["tool_calls"][0], (Json{{"id", "a"}, {"name", "f"}, {"arguments", "{\"x\":1}"}}));
  EXPECT_EQ(r["tool_calls"][1]["name"], "g");
}

TEST(ClientReading, NamesEachKindOfError) {
  const std::string event =
      Chunk({{"content", "Hi"}}) + "data: {\"error\":{\"message\":\"boom\"}}\n\n";
  EXPECT_EQ(ReadReply(Reply{.body = event, .stream = true})["error"]["kind"], "in_stream");
  const std::string cut = Chunk({{"content", "Hi"}});
  const Json r = ReadReply(Reply{.body = cut, .stream = true, .cut = true});
  EXPECT_EQ(r["error"]["kind"], "cut");
  EXPECT_EQ(r["text"], "Hi");  // what arrived before the cut
  const Json in_200 =
      ReadReply(Reply{.body = R"({"error":{"code":429,"message":"Provider returned error"}})"});
  EXPECT_EQ(in_200["error"]["kind"], "in_body");
  EXPECT_TRUE(in_200["error"]["status"].is_null());
  const Json flat = ReadReply(Reply{.status = 400, .body = R"({"object":"error","message":"no"})"});
  EXPECT_EQ(flat["error"], (Json{{"status", 400}, {"kind", "http"}, {"message", "no"}}));
  EXPECT_EQ(ReadReply(Reply{.body = "<html>"})["error"]["kind"], "malformed");
}

TEST(ClientReading, ReadsTheOtherSurfacesInTheSameShape) {
  const std::string message =
      R"({"type":"message","role":"assistant","content":[{"type":"text","text":"Hi"},)"
      R"({"type":"tool_use","id":"toolu_1","name":"f","input":{"b":1,"a":2}}],)"
      R"("stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":10}})";
  const Json m = ReadReply(Reply{.body = message, .surface = wire::Surface::kMessages});
  EXPECT_EQ(m["text"], "Hi");
  ASSERT_EQ(m["tool_calls"].size(), 1u);
  EXPECT_EQ(m["tool_calls"][0]["id"], "toolu_1");
  EXPECT_EQ(Json::parse(m["tool_calls"][0]["arguments"].get<std::string>()),
            (Json{{"a", 2}, {"b", 1}}));
  EXPECT_EQ(m["usage"],
            (Json{{"prompt_tokens", 20}, {"completion_tokens", 10}, {"total_tokens", nullptr}}));
  EXPECT_TRUE(m["error"].is_null());
  // An error event inside the 200 stream; a Gemini stream that ends before its finishReason.
  const std::string failed =
      "event: message_start\ndata: "
      R"({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":0}}})"
      "\n\nevent: error\ndata: "
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"
      "\n\n";
  const Json e =
      ReadReply(Reply{.body = failed, .stream = true, .surface = wire::Surface::kMessages});
  EXPECT_EQ(e["error"]["kind"], "in_stream");
  const Json g = ReadReply(Reply{
      .body = R"(data: {"candidates":[{"content":{"parts":[{"text":"Par"}],"role":"model"}}]})"
              "\r\n\r\n",
      .stream = true,
      .surface = wire::Surface::kGemini});
  EXPECT_EQ(g["text"], "Par");
  EXPECT_EQ(g["error"]["kind"], "cut");
}

// Gemini's streamGenerateContent framed as one JSON array (Google's framing
// without alt=sse, DIA-GEM-STREAM-JSON-ARRAY) carries the whole answer: the
// reference reads it, so a client that cannot is seen to fail.
TEST(ClientReading, ReadsAGeminiStreamFramedAsAJsonArray) {
  const std::string array =
      R"([{"candidates":[{"content":{"parts":[{"text":"Par"}],"role":"model"}}]})"
      "\n,\r\n"
      R"({"candidates":[{"content":{"parts":[{"text":"is"}],"role":"model"},"finishReason":"STOP"}],)"
      R"("usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5}})"
      "\n]";
  const Json r = ReadReply(Reply{.content_type = "application/json; charset=UTF-8",
                                 .body = array,
                                 .stream = true,
                                 .surface = wire::Surface::kGemini});
  EXPECT_EQ(r["text"], "Paris");
  EXPECT_EQ(r["usage"]["total_tokens"], 5);
  EXPECT_TRUE(r["error"].is_null()) << r.dump();
  // Cut short, it is no answer.
  const Json cut = ReadReply(Reply{
      .body = array.substr(0, 30), .stream = true, .cut = true, .surface = wire::Surface::kGemini});
  EXPECT_EQ(cut["error"]["kind"], "cut");
}

TEST(ClientRequest, BuildsEachSurfacesRequestFromTheNeutralCall) {
  const Json tool = {
      {"type", "function"},
      {"function", {{"name", "f"}, {"description", "d"}, {"parameters", {{"type", "object"}}}}}};
  Json input = {{"surface", "gemini"},
                {"model", "gemini-2.0-flash"},
                {"messages", {{{"role", "user"}, {"content", "Hi"}}}},
                {"tools", {tool}},
                {"stream", true}};
  auto g = client_suite::RequestFor(input);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->path, "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
  EXPECT_EQ(g->body["contents"][0], (Json{{"role", "user"}, {"parts", {{{"text", "Hi"}}}}}));
  EXPECT_EQ(g->body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
            (Json{{"type", "object"}}));
  EXPECT_FALSE(g->body.contains("stream"));
  input["surface"] = "messages";
  input["options"] = {{"params", {{"max_tokens", 64}}}};
  auto m = client_suite::RequestFor(input);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->path, "/v1/messages");
  EXPECT_EQ(m->body["tools"][0]["input_schema"], (Json{{"type", "object"}}));
  EXPECT_EQ(m->body["max_tokens"], 64);
  EXPECT_EQ(m->body["stream"], true);
  input["messages"][0]["role"] = "system";
  auto refused = client_suite::RequestFor(input);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("/input/messages/0/role"), std::string::npos)
      << refused.error().message;
  input["surface"] = "completions";
  EXPECT_FALSE(client_suite::RequestFor(input));
  EXPECT_EQ(client_suite::ServerRoot("http://127.0.0.1:1/t/x/v1"), "http://127.0.0.1:1/t/x");
}

TEST(ClientReading, TakesInlineReasoningOffTheText) {
  const Json r = ReadReply(Reply{
      .body =
          R"({"choices":[{"index":0,"message":{"role":"assistant","content":"<think>\nhm\n</think>\n\nYes."},"finish_reason":"stop"}]})"});
  EXPECT_EQ(r["text"], "Yes.");
  EXPECT_EQ(r["reasoning"], "hm");
}

// Any bytes read as any kind of reply: an object with every output field.
RC_GTEST_PROP(ClientReading, AnyBytesReadAsAnObjectWithEveryField,
              (const std::string& body, bool stream, bool cut, int pick)) {
  constexpr int kStatus[] = {200, 400, 429, 500};
  const std::string sse = "data: " + body + "\n\n";
  for (const std::string* b : {&body, &sse}) {
    const Json r = ReadReply(Reply{.status = kStatus[(pick % 4 + 4) % 4],
                                   .body = *b,
                                   .stream = stream,
                                   .cut = cut,
                                   .surface = wire::AllSurfaces()[(pick / 4 % 4 + 4) % 4]});
    for (const char* key : {"text", "reasoning", "tool_calls", "usage", "finish", "error"})
      RC_ASSERT(r.contains(key));
  }
}

TEST(RepliesSent, CountsAttemptsAndKeepsTheRefusedReplies) {
  auto trace = mockllm::LoadTraceFile(kRoot / "fixtures/synthesized/client-retry-429.trace.jsonl");
  ASSERT_TRUE(trace) << trace.error().message;
  const Json body = {{"model", "gpt-4o-mini"}};
  Json journal = Json::array();
  for (int x : {0, 1})
    journal.push_back({{"seq", x + 1},
                       {"request", {{"body", body}}},
                       {"response", {{"status", x == 0 ? 429 : 200}, {"exchange", x}}}});
  AnnotateReplies(journal, *trace, "openrouter");
  EXPECT_EQ(journal[0]["attempt"], 1);
  EXPECT_EQ(journal[1]["attempt"], 2);
  ASSERT_EQ(journal[1]["refused"].size(), 1u);
  // OpenRouter answers the 429 as a 200 with the error body.
  EXPECT_EQ(journal[1]["refused"][0]["status"], 200);
  EXPECT_EQ(journal[0]["replied"]["retry_after_ms"], 100) << journal.dump();
  EXPECT_NE(journal[1]["replied"]["body"].get<std::string>().find("Hello there"),
            std::string::npos);
}

const Scenario& Find(std::string_view name) {
  for (const auto& s : BundledSpecs().scenarios)
    if (s.protocol == "client" && s.name == name) return s;
  throw std::runtime_error("no scenario client/" + std::string(name));
}

std::vector<reports::CheckResult> CheckWith(const Scenario& s, const Json& outputs,
                                            const std::string& body, int status = 200) {
  Observation obs;
  obs.outputs = outputs;
  Json replied = {{"status", status},
                  {"content_type", "application/json"},
                  {"stream", false},
                  {"cut", false},
                  {"body", body}};
  Json entry = Json::object();
  entry["replied"] = std::move(replied);
  entry["attempt"] = 1;
  entry["refused"] = Json::array();
  obs.journal = Json::array();
  obs.journal.push_back(std::move(entry));
  return FindSuite("client")->make()->Check(s, obs);
}

// CLIENT-RETRY-429 over a journal of a 429 (retry-after-ms: 100) and the
// retry mockllm journaled `waited` ms later.
reports::CheckResult RetryAfter(std::int64_t waited) {
  auto trace = mockllm::LoadTraceFile(kRoot / "fixtures/synthesized/client-retry-429.trace.jsonl");
  if (!trace) throw std::runtime_error(trace.error().message);
  const Json body = {{"model", "gpt-4o-mini"}};
  Observation obs;
  obs.outputs = {{"text", "x"}, {"error", nullptr}, {"attempts", 2}};
  for (int x : {0, 1})
    obs.journal.push_back({{"seq", x + 1},
                           {"request", {{"body", body}}},
                           {"response", {{"status", x == 0 ? 429 : 200}, {"exchange", x}}},
                           {"at_ms", 1000 + x * waited}});
  AnnotateReplies(obs.journal, *trace, "");
  for (const auto& c : FindSuite("client")->make()->Check(Find("retry-429"), obs))
    if (c.rule == "CLIENT-RETRY-429") return c;
  throw std::runtime_error("no CLIENT-RETRY-429 result");
}

TEST(ClientChecks, ARetryBeforeTheNamedWaitFails) {
  const auto early = RetryAfter(40);
  EXPECT_EQ(early.outcome, Outcome::kFail);
  EXPECT_NE(early.message.find("attempt 2 came 40 ms after the rate limit that asked for a wait "
                               "of 100 ms"),
            std::string::npos)
      << early.message;
  const auto waited = RetryAfter(100);
  EXPECT_EQ(waited.outcome, Outcome::kPass) << waited.message;
}

TEST(ClientChecks, AFieldLeftOutIsUnsupportedNotFailed) {
  const auto checks = CheckWith(
      Find("plain-text"), {{"text", "Hi"}, {"error", nullptr}},
      R"({"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","reasoning_content":"r"}}],"usage":{"total_tokens":2}})");
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].outcome, Outcome::kPass) << checks[0].message;
  for (int i : {1, 2}) {
    EXPECT_EQ(checks[i].outcome, Outcome::kSkip) << checks[i].rule;
    EXPECT_NE(checks[i].message.find("unsupported"), std::string::npos) << checks[i].message;
  }
}

TEST(ClientChecks, AnErrorIn200ThatRaisesNothingFails) {
  const auto checks = CheckWith(Find("rate-limited"), {{"text", ""}, {"error", nullptr}},
                                R"({"error":{"code":429,"message":"Provider returned error"}})");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].outcome, Outcome::kFail);
  EXPECT_NE(checks[0].message.find("raised none"), std::string::npos) << checks[0].message;
}

TEST(ClientChecks, ATextThatDiffersFailsWithBoth) {
  const auto checks = CheckWith(Find("plain-text"), {{"text", "H"}, {"error", nullptr}},
                                R"({"choices":[{"index":0,"message":{"content":"Hi"}}]})");
  EXPECT_EQ(checks[0].outcome, Outcome::kFail);
  ASSERT_TRUE(checks[0].evidence);
  EXPECT_EQ(checks[0].evidence->expected, "\"Hi\"");
}

// The stall scenario (a 6 s stall, the call's timeout 2 s) judged on what
// the client reported, the reply planned with a stall of `stall_ms`.
reports::CheckResult StallCheck(const Json& outputs, int stall_ms = 6000) {
  Observation obs;
  obs.outputs = outputs;
  obs.journal =
      Json::array({{{"attempt", 1},
                    {"refused", Json::array()},
                    {"replied",
                     {{"status", 200},
                      {"content_type", "text/event-stream"},
                      {"stream", true},
                      {"cut", false},
                      {"stall_ms", stall_ms},
                      {"body", Chunk({{"content", "Hi"}}, "stop") + "data: [DONE]\n\n"}}}}});
  const auto checks = FindSuite("client")->make()->Check(Find("stall"), obs);
  EXPECT_EQ(checks.size(), 1u);
  return checks.at(0);
}

TEST(ClientChecks, AStallPastTheCallsTimeoutIsReportedAsATimeout) {
  EXPECT_EQ(Find("stall").input["options"]["timeout_ms"], 2000);
  for (const Json& error :
       {Json{{"kind", "APIConnectionTimeoutError"}, {"message", "Request timed out."}},
        Json{{"kind", "DOMException"}, {"message", "The operation was aborted due to timeout"}},
        Json{{"kind", "timeout"}, {"message", "timed out"}}}) {
    const auto c = StallCheck({{"text", ""}, {"error", error}});
    EXPECT_EQ(c.outcome, Outcome::kPass) << error.dump() << ": " << c.message;
  }
  // Waited out: the whole text and no error.
  const auto waited = StallCheck({{"text", "Hi"}, {"error", nullptr}});
  EXPECT_EQ(waited.outcome, Outcome::kFail);
  EXPECT_NE(waited.message.find("stalled for 6000 ms, past the call's timeout of 2000 ms, and the "
                                "client raised no error"),
            std::string::npos)
      << waited.message;
  // Another error than a timeout.
  const auto other =
      StallCheck({{"text", ""}, {"error", {{"kind", "cut"}, {"message", "closed"}}}});
  EXPECT_EQ(other.outcome, Outcome::kFail);
  EXPECT_NE(other.message.find("another error than a timeout"), std::string::npos) << other.message;
  // A reply that does not stall past the timeout: nothing to judge.
  EXPECT_EQ(StallCheck({{"text", "Hi"}, {"error", nullptr}}, 1500).outcome, Outcome::kSkip);
  // An SDK that does not expose errors: unsupported.
  EXPECT_EQ(StallCheck({{"text", "Hi"}}).outcome, Outcome::kSkip);
}

TEST(ClientChecks, AnAdapterOfAnotherSurfaceIsUnsupportedNotFailed) {
  const auto checks = CheckWith(Find("messages-plain-text"),
                                {{"unsupported", "this adapter speaks chat, not messages"}},
                                R"({"type":"message","content":[{"type":"text","text":"Hi"}]})");
  ASSERT_FALSE(checks.empty());
  for (const auto& c : checks) {
    EXPECT_EQ(c.outcome, Outcome::kSkip) << c.rule;
    EXPECT_NE(c.message.find("unsupported: this adapter speaks chat"), std::string::npos);
  }
}

TEST(ClientChecks, ACallItsSdkRefusedToSendIsUnsupportedWithTheReason) {
  Observation obs;
  obs.outputs = {
      {"error", {{"kind", "InvalidPromptError"}, {"message", "messages must not be empty"}}}};
  const auto checks = FindSuite("client")->make()->Check(Find("http-error"), obs);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].outcome, Outcome::kSkip);
  EXPECT_NE(checks[0].message.find("refused the call before sending it (InvalidPromptError: "
                                   "messages must not be empty)"),
            std::string::npos)
      << checks[0].message;
}

TEST(ClientEvidence, KeepsTheRepliesSentAndWhatTheClientWrote) {
  ScratchDir dir;
  Json journal = Json::array();
  journal.push_back({{"attempt", 1},
                     {"replied",
                      {{"status", 429},
                       {"content_type", "application/json"},
                       {"stream", false},
                       {"cut", false},
                       {"body", "{\"error\":{}}"}}}});
  journal.push_back({{"attempt", 2},
                     {"replied",
                      {{"status", 200},
                       {"content_type", "text/event-stream"},
                       {"stream", true},
                       {"cut", true},
                       {"body", "data: {}\n\n"}}}});
  journal.push_back({{"response", {{"status", 400}}}});  // refused: no reply from the trace
  const fs::path at = dir.path() / "retry-429@openrouter";
  ASSERT_TRUE(WriteClientEvidence(at, journal, std::string("{\"text\":\"\"}")));
  EXPECT_EQ(ReadFile(at / "sent.txt").value_or(""),
            "--- request 1, attempt 1: HTTP 429 application/json\n{\"error\":{}}\n"
            "--- request 2, attempt 2: HTTP 200 text/event-stream, stream, cut (the connection "
            "closed early)\ndata: {}\n\n"
            "--- request 3: no reply from the trace (mockllm answered HTTP 400)\n");
  EXPECT_EQ(ReadFile(at / "read.json").value_or(""), "{\"text\":\"\"}");
  // A client that wrote nothing: no read.json, not even a previous run's.
  ASSERT_TRUE(WriteClientEvidence(at, Json::array(), std::nullopt));
  EXPECT_FALSE(fs::exists(at / "read.json"));
  EXPECT_EQ(ReadFile(at / "sent.txt").value_or(""), "--- no request reached mockllm\n");
}

// An SDK that sends the API's defaults (tool_choice "auto") and a tool's
// `strict` flag the recording lacks is answered: the profile judges reading.
TEST(ClientProfile, ARequestWithTheApiDefaultsIsAnsweredAndItsEvidenceKept) {
  ScratchDir dir;
  RunOptions options;
  options.source_root = kRoot;
  options.evidence_dir = dir.path() / "evidence";
  options.client_cmd = R"(/usr/bin/python3 -c '
import json, os, urllib.request
i = json.load(open(os.environ["LLMCONFORM_INPUT"]))
tools = [dict(t, function=dict(t["function"], strict=False)) for t in i["tools"]]
body = {"model": i["model"], "messages": i["messages"], "tools": tools, "tool_choice": "auto"}
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
    json.dumps(body).encode(), {"content-type": "application/json"})
m = json.load(urllib.request.urlopen(req))["choices"][0]["message"]
calls = [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
         for c in m["tool_calls"]]
json.dump({"tool_calls": calls, "error": None}, open(os.environ["LLMCONFORM_OUTPUT"], "w"))
')";
  const auto checks = RunClientScenario(Find("tool-call"), options, "openai");
  bool judged = false;
  for (const auto& c : checks) {
    EXPECT_NE(c.outcome, Outcome::kFail) << c.rule << ": " << c.message;
    EXPECT_NE(c.outcome, Outcome::kError) << c.rule << ": " << c.message;
    judged = judged || (c.rule == "CLIENT-TOOL-CALLS" && c.outcome == Outcome::kPass);
  }
  EXPECT_TRUE(judged);
  const fs::path evidence = options.evidence_dir / "tool-call@openai";
  EXPECT_NE(ReadFile(evidence / "sent.txt").value_or("").find("get_weather"), std::string::npos);
  EXPECT_NE(ReadFile(evidence / "read.json").value_or("").find("get_weather"), std::string::npos);
}

// The reference client passes every rule of the profile in every dialect;
// each scenario runs under the dialects of its own surface (14 Chat
// scenarios, at least 8 of each other surface). Six at a time: the `stall`
// scenario waits out its 2 s timeout in each Chat dialect, mostly idle.
TEST(ClientProfile, TheReferencePassesEveryDialect) {
  RunOptions options;
  options.source_root = kRoot;
  options.filter = "client/*";
  options.jobs = 6;
  std::size_t at_least = 0;
  for (const auto& d : mockllm::BuiltinDialects()) {
    options.dialects.push_back(d.name);
    at_least += d.surface == wire::Surface::kChat ? 14u : 8u;
  }
  reports::Reporter quiet;
  const reports::RunResult run = RunScenarios(BundledSpecs(), options, quiet);
  ASSERT_GE(run.scenarios.size(), at_least);
  std::set<std::string> rows;
  for (const auto& s : run.scenarios) rows.insert(s.info.dialect);
  for (const auto& d : mockllm::BuiltinDialects()) EXPECT_TRUE(rows.contains(d.name)) << d.name;
  std::set<std::string> passed;
  for (const auto& s : run.scenarios) {
    for (const auto& c : s.checks) {
      EXPECT_TRUE(c.outcome == Outcome::kPass || c.outcome == Outcome::kSkip)
          << s.info.Id() << " " << c.rule << ": " << c.message;
      if (c.outcome == Outcome::kPass) passed.insert(c.rule);
    }
  }
  EXPECT_EQ(passed.size(), FindSuite("client")->rule_ids().size());  // each rule judged somewhere
}

// The reference client reads every rule of every scenario of the Responses,
// Messages and Gemini surfaces from the bytes mockllm sent, and such a
// scenario runs once under its surface's provider name in a run with dialects.
TEST(ClientProfile, TheReferencePassesEverySurface) {
  RunOptions options;
  options.source_root = kRoot;
  options.filter = "client/*";
  options.jobs = 2;
  options.dialects = {"openai"};
  reports::Reporter quiet;
  const reports::RunResult run = RunScenarios(BundledSpecs(), options, quiet);
  std::set<std::string> surfaces;
  for (const auto& s : run.scenarios) {
    const Scenario& scenario = Find(s.info.name);
    const std::string surface = scenario.input["surface"];
    if (surface == "chat") {
      EXPECT_EQ(s.info.dialect, "openai");
      continue;
    }
    surfaces.insert(s.info.dialect);
    for (const auto& c : s.checks)
      EXPECT_EQ(c.outcome, Outcome::kPass) << s.info.Id() << " " << c.rule << ": " << c.message;
  }
  EXPECT_EQ(surfaces, (std::set<std::string>{"anthropic", "gemini-api", "openai-responses"}));
}

}  // namespace
}  // namespace llmconform::harness
