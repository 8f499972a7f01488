// The probe's batteries and judges of the Responses, Messages and Gemini
// surfaces (harness/probe_surfaces.cpp), against the canonical answers of
// fixtures/probe/SURFACE/ and against broken ones.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "base/test_paths.h"
#include "harness/probe.h"
#include "harness/probe_test_support.h"
#include "mockllm/trace_files.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using ::llmconform::test_paths::kRoot;
using probe_test::Item;
using probe_test::Reply;
using wire::Surface;

const Surface kSurfaces[] = {Surface::kResponses, Surface::kMessages, Surface::kGemini};

std::string Folder(Surface s) { return std::string(wire::SurfaceName(s)); }

std::string ModelOf(Surface s) {
  switch (s) {
    case Surface::kResponses:
      return "gpt-5-mini";
    case Surface::kMessages:
      return "claude-sonnet-4-5";
    case Surface::kGemini:
      return "gemini-2.5-flash";
    case Surface::kChat:
      break;
  }
  return "gpt-4o-mini";
}

// The recorded answer of an exchange as the probe would have received it.
ProbeReply ReplyOf(const mockllm::Exchange& x) {
  ProbeReply r;
  r.status = x.response.status;
  for (const auto& [name, value] : x.response.headers.items())
    r.headers.emplace_back(name, value.get<std::string>());
  if (x.response.streamed) {
    r.pieces = x.response.chunks;
  } else {
    r.pieces.push_back(mockllm::Chunk{0, x.response.BodyBytes()});
  }
  return r;
}

std::map<std::string, mockllm::Trace> Fixtures(const fs::path& dir) {
  std::map<std::string, mockllm::Trace> out;
  auto files = mockllm::TraceFiles({dir.string()});
  EXPECT_TRUE(files.has_value());
  if (!files) return out;
  for (const auto& f : *files) {
    auto t = mockllm::LoadTraceFile(f);
    EXPECT_TRUE(t.has_value()) << f;
    if (t) out[t->id] = std::move(*t);
  }
  return out;
}

// Each surface's battery is exactly the requests fixtures/probe/SURFACE/
// recorded (method, path, body; the version header Anthropic requires), and
// every feature of the probe is in it.
TEST(ProbeSurfaces, TheBatteryIsTheRecordedRequestsOfItsFolder) {
  for (Surface s : kSurfaces) {
    SCOPED_TRACE(Folder(s));
    const auto traces = Fixtures(kRoot / "fixtures/probe" / Folder(s));
    const auto battery = ProbeBattery(s, ModelOf(s));
    ASSERT_EQ(battery.size(), traces.size());
    std::set<std::string> features;
    for (const ProbeItem& item : battery) {
      auto it = traces.find("probe/" + Folder(s) + "/" + item.name);
      ASSERT_NE(it, traces.end()) << item.name;
      EXPECT_EQ(it->second.header.value("surface", ""), Folder(s));
      const mockllm::RecordedRequest& req = it->second.exchanges.at(0).request;
      EXPECT_EQ(item.body, *req.body) << item.name;
      EXPECT_EQ(item.surface, s);
      // Recorded as mockllm records: the path without its query, the query beside it.
      std::string path = ProbeRequestPath(item, ModelOf(s));
      if (const auto q = path.find('?'); q != std::string::npos) {
        EXPECT_EQ(req.extra.value("query", ""), path.substr(q + 1)) << item.name;
        path.resize(q);
      }
      EXPECT_EQ((s == Surface::kGemini ? "/v1beta" : "/v1") + path, req.path) << item.name;
      EXPECT_EQ(wire::SurfaceOfPath(req.path), s) << req.path;
      features.insert(item.feature);
    }
    EXPECT_EQ(features, std::set<std::string>(ProbeFeatures().begin(), ProbeFeatures().end()));
  }
  // Gemini names the model in the path, the others in the body.
  const auto g = ProbeBattery(Surface::kGemini, "m");
  EXPECT_EQ(ProbeRequestPath(Item(g, "stream"), "m"), "/models/m:streamGenerateContent?alt=sse");
  EXPECT_EQ(ProbeRequestPath(Item(g, "plain"), "m"), "/models/m:generateContent");
  EXPECT_FALSE(Item(g, "plain").body.contains("model"));
  EXPECT_EQ(ProbeBattery(Surface::kMessages, "m")[0].body["model"], "m");
  EXPECT_FALSE(
      Item(ProbeBattery(Surface::kMessages, "m"), "invalid-request").body.contains("max_tokens"));
}

TEST(ProbeSurfaces, KeysGoWhereEachSurfaceReadsThem) {
  using H = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ProbeAuthHeaders(Surface::kResponses, "k"), (H{{"authorization", "Bearer k"}}));
  EXPECT_EQ(ProbeAuthHeaders(Surface::kMessages, "k"),
            (H{{"anthropic-version", "2023-06-01"}, {"x-api-key", "k"}}));
  EXPECT_EQ(ProbeAuthHeaders(Surface::kMessages, ""), (H{{"anthropic-version", "2023-06-01"}}));
  EXPECT_EQ(ProbeAuthHeaders(Surface::kGemini, "k"), (H{{"x-goog-api-key", "k"}}));
  EXPECT_EQ(ProbeAuthHeaders(Surface::kGemini, ""), H{});
  EXPECT_EQ(DefaultKeyEnv(Surface::kChat), "OPENAI_API_KEY");
  EXPECT_EQ(DefaultKeyEnv(Surface::kResponses), "OPENAI_API_KEY");
  EXPECT_EQ(DefaultKeyEnv(Surface::kMessages), "ANTHROPIC_API_KEY");
  EXPECT_EQ(DefaultKeyEnv(Surface::kGemini), "GEMINI_API_KEY");
}

// The canonical answers pass every item (the error items read the error in
// the surface's own shape) and show no contract finding.
TEST(ProbeSurfaces, TheCanonicalAnswersPassWithoutDeviations) {
  for (Surface s : kSurfaces) {
    const auto traces = Fixtures(kRoot / "fixtures/probe" / Folder(s));
    for (const ProbeItem& item : ProbeBattery(s, ModelOf(s))) {
      SCOPED_TRACE(Folder(s) + "/" + item.name);
      const auto& x = traces.at("probe/" + Folder(s) + "/" + item.name).exchanges.at(0);
      const ProbeItemResult r = JudgeProbeReply(item, ReplyOf(x), {});
      EXPECT_EQ(r.outcome, ProbeOutcome::kPass) << r.detail;
      EXPECT_TRUE(r.deviations.empty()) << r.deviations[0].id << ": " << r.deviations[0].message;
      EXPECT_EQ(r.streamed, x.response.streamed) << r.detail;
    }
  }
}

// What each judge names: the calls with their ids, the reasoning, the usage,
// the error in the surface's shape.
TEST(ProbeSurfaces, TheEvidenceNamesWhatWasRead) {
  auto judge = [](Surface s, std::string_view name) {
    const auto traces = Fixtures(kRoot / "fixtures/probe" / Folder(s));
    const auto battery = ProbeBattery(s, ModelOf(s));
    const auto& x = traces.at("probe/" + Folder(s) + "/" + std::string(name)).exchanges.at(0);
    return JudgeProbeReply(Item(battery, name), ReplyOf(x), {}).detail;
  };
  EXPECT_NE(judge(Surface::kResponses, "parallel-tools")
                .find("2 function call(s): get_weather({\"city\":\"Paris\"}) call_probe_paris, "
                      "get_weather({\"city\":\"London\"}) call_probe_london"),
            std::string::npos);
  EXPECT_NE(judge(Surface::kMessages, "streamed-tools").find("toolu_01ProbeLondon"),
            std::string::npos);
  EXPECT_NE(judge(Surface::kMessages, "reasoning").find("reasoning \"7919 has no divisor"),
            std::string::npos);
  EXPECT_NE(judge(Surface::kGemini, "stream-usage").find("\"totalTokenCount\":21"),
            std::string::npos);
  EXPECT_NE(judge(Surface::kMessages, "server-error-stream").find("Overloaded"), std::string::npos);
  EXPECT_NE(judge(Surface::kGemini, "rate-limited").find("HTTP 429"), std::string::npos);
}

TEST(ProbeSurfaces, BrokenAnswersFailWithALocatedReason) {
  const auto r = ProbeBattery(Surface::kResponses, "m");
  const auto m = ProbeBattery(Surface::kMessages, "m");
  const auto g = ProbeBattery(Surface::kGemini, "m");

  // Garbage events: no text, and the reader's located finding says why.
  auto res = JudgeProbeReply(Item(r, "stream"),
                             Reply(200, "text/event-stream", "event: x\ndata: {nope\n\n"), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail);
  EXPECT_NE(res.detail.find("RESP-EVENT-JSON"), std::string::npos) << res.detail;
  ASSERT_FALSE(res.deviations.empty());
  EXPECT_EQ(res.deviations[0].where.rfind("event 1", 0), 0u) << res.deviations[0].where;

  // Not JSON at all, an empty stream.
  res = JudgeProbeReply(Item(m, "plain"), Reply(200, "application/json", "<html>"), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail);
  EXPECT_NE(res.detail.find("the body is not JSON: \"<html>\""), std::string::npos) << res.detail;
  res = JudgeProbeReply(Item(g, "stream"), Reply(200, "text/event-stream", ""), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail);
  EXPECT_NE(res.detail.find("no event in 0 bytes"), std::string::npos) << res.detail;

  // An error that is not in the surface's shape is no readable error.
  res = JudgeProbeReply(Item(m, "invalid-request"), Reply(400, "text/plain", "bad"), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail) << res.detail;
  // A refused tool request is "unsupported", a refused plain one fails.
  const std::string refused =
      R"({"type":"error","error":{"type":"invalid_request_error","message":"no tools"}})";
  EXPECT_EQ(JudgeProbeReply(Item(m, "tool"), Reply(400, "application/json", refused), {}).outcome,
            ProbeOutcome::kUnsupported);
  EXPECT_EQ(JudgeProbeReply(Item(m, "plain"), Reply(400, "application/json", refused), {}).outcome,
            ProbeOutcome::kFail);

  // A Responses function call without call_id cannot be answered.
  const std::string no_id =
      R"({"id":"resp_1","object":"response","status":"completed","model":"m","output":[)"
      R"({"type":"function_call","id":"fc_1","name":"get_weather","arguments":"{}","status":"completed"}],)"
      R"("usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}})";
  res = JudgeProbeReply(Item(r, "tool"), Reply(200, "application/json", no_id), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail);
  EXPECT_NE(res.detail.find("without the id"), std::string::npos) << res.detail;

  // One Gemini call where two were asked for; args that are no object.
  const std::string one =
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather",)"
      R"("args":{"city":"Paris"}}}]},"finishReason":"STOP","index":0}],)"
      R"("usageMetadata":{"promptTokenCount":1,"totalTokenCount":2}})";
  res = JudgeProbeReply(Item(g, "parallel-tools"), Reply(200, "application/json", one), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kUnsupported) << res.detail;
  res = JudgeProbeReply(Item(g, "tool"), Reply(200, "application/json", one), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kPass) << res.detail;
  // A text answer where reasoning was asked for: not shown.
  const std::string text =
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Yes."}]},"finishReason":"STOP",)"
      R"("index":0}],"usageMetadata":{"promptTokenCount":1,"totalTokenCount":2}})";
  res = JudgeProbeReply(Item(g, "reasoning"),
                        Reply(200, "text/event-stream", "data: " + text + "\n\n"), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kUnsupported) << res.detail;
  // A JSON body where a stream was asked for.
  res = JudgeProbeReply(Item(g, "stream"), Reply(200, "application/json", text), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail) << res.detail;
  // An invalid request answered normally: the error shape could not be seen.
  res = JudgeProbeReply(Item(g, "invalid-request"), Reply(200, "application/json", text), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kUnsupported) << res.detail;
}

// 10^5 pings and nothing else: judged (no text), bounded, never a crash.
TEST(ProbeSurfaces, AStreamOfPingsIsJudged) {
  std::string pings;
  for (int i = 0; i < 100000; ++i) pings += "event: ping\ndata: {\"type\":\"ping\"}\n\n";
  const auto m = ProbeBattery(Surface::kMessages, "m");
  const auto res = JudgeProbeReply(Item(m, "stream"), Reply(200, "text/event-stream", pings), {});
  EXPECT_EQ(res.outcome, ProbeOutcome::kFail);
  EXPECT_NE(res.detail.find("100000 event(s)"), std::string::npos) << res.detail;
}

RC_GTEST_PROP(ProbeSurfaces, AnyReplyIsJudged, (int status, std::string body, bool stream)) {
  for (Surface s : kSurfaces) {
    for (const ProbeItem& item : ProbeBattery(s, "m")) {
      const auto r = JudgeProbeReply(
          item, Reply(status, stream ? "text/event-stream" : "application/json", body), {});
      RC_ASSERT(!r.detail.empty());
    }
  }
}

}  // namespace
}  // namespace llmconform::harness
