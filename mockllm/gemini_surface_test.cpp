// mockllm and the Gemini surface (docs/mockllm.md, docs/surfaces.md): the
// model-in-path routes replay, pinned and not, whatever the query; `--match
// sdk` knows the Gemini SDKs' defaults and answers Vertex AI's path of a call
// with the Developer API's recording of it; import keeps Gemini exchanges,
// names the surface and redacts the key given as `x-goog-api-key` or
// `?key=`; lint reads Gemini streams and error bodies against the GEM-* rules.
#include <gtest/gtest.h>
#include <httplib.h>

#include "base/json.h"
#include "mockllm/import.h"
#include "mockllm/lint.h"
#include "mockllm/sdk_match.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kGeminiSurfaceTrace =
    R"({"format":"llmconform-trace/1","id":"gem","surface":"gemini"}
{"request":{"method":"POST","path":"/v1beta/models/gemini-2.5-flash:streamGenerateContent","query":"alt=sse","body":{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"t_ms":0,"raw":"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"},{"t_ms":1,"raw":"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"totalTokenCount\": 3}}\r\n\r\n"}]}}
{"request":{"method":"POST","path":"/v1beta/models/gemini-2.5-flash:generateContent","body":{"contents":[{"parts":[{"text":"again"}],"role":"user"}],"generationConfig":{"temperature":0}}},"response":{"status":429,"body":{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}}}
)";

Trace GeminiTrace() {
  auto t = ParseTrace(kGeminiSurfaceTrace, "gem.jsonl");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

TEST(GeminiServe, ModelInPathRoutesReplayPinnedAndNotWhateverTheQuery) {
  auto s = Server::Start({GeminiTrace()}, {.pinned_match = MatchMode::kSdk});  // --match sdk
  ASSERT_TRUE(s) << s.error().message;
  httplib::Client c("127.0.0.1", (*s)->port());
  const std::string hi = R"({"contents":[{"parts":[{"text":"hi"}],"role":"user"}]})";
  auto r = c.Post("/t/gem/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                  httplib::Headers{{"X-Mockllm-Session", "a"}}, hi, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("\"text\": \"Hel\""), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("\"finishReason\": \"STOP\""), std::string::npos);
  // The @google/genai SDK adds nothing the sdk matching does not remove.
  auto e = c.Post("/t/gem/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaNotAKey",
                  httplib::Headers{{"X-Mockllm-Session", "a"}},
                  R"({"contents":[{"parts":[{"text":"again"}],"role":"user"}],)"
                  R"("generationConfig":{"temperature":0,"candidateCount":1},"safetySettings":[]})",
                  "application/json");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 429);
  EXPECT_EQ(Json::parse(e->body)["error"]["status"], "RESOURCE_EXHAUSTED");
  auto u = c.Post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", hi,
                  "application/json");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->status, 200) << u->body;
  (*s)->Stop();
}

// Vertex AI's paths of a call (`@google/genai` with vertexai: project and
// location, or express mode's API key) replay the Developer API's recording
// of the same model and method under sdk matching, pinned and not; strict
// matching compares the path exactly. The journal keeps the path asked and
// redacts the bearer token; the `vertex` dialect answers in Vertex's shape.
TEST(GeminiServe, VertexPathsReplayTheDeveloperApiRecordingUnderSdkMatching) {
  const std::string hi = R"({"contents":[{"parts":[{"text":"hi"}],"role":"user"}]})";
  const std::string vertex =
      "/v1beta1/projects/p/locations/us-central1/publishers/google/models/"
      "gemini-2.5-flash:streamGenerateContent?alt=sse";
  const httplib::Headers bearer{{"Authorization", "Bearer ya29.not-a-token"},
                                {"X-Mockllm-Session", "v"}};
  auto s = Server::Start({GeminiTrace()}, {});  // pinned strict, unpinned sdk
  ASSERT_TRUE(s) << s.error().message;
  httplib::Client c("127.0.0.1", (*s)->port());
  for (const std::string& path :
       {vertex,
        std::string("/v1/projects/p/locations/global/publishers/google/models/"
                    "gemini-2.5-flash:streamGenerateContent?alt=sse"),
        std::string("/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent")}) {
    auto r = c.Post(path, bearer, hi, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << path << ": " << r->body;
    EXPECT_NE(r->body.find(R"("text": "Hel")"), std::string::npos) << r->body;
  }
  // Another model, or another method, is another call.
  auto other = c.Post(
      "/v1beta1/projects/p/locations/us-central1/publishers/google/models/"
      "gemini-2.0-flash:streamGenerateContent",
      bearer, hi, "application/json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
  // Pinned and strict: the recorded path is not the one asked.
  auto strict = c.Post("/t/gem" + vertex, bearer, hi, "application/json");
  ASSERT_TRUE(strict);
  EXPECT_EQ(strict->status, 400);
  EXPECT_NE(strict->body.find("mockllm_request_mismatch"), std::string::npos) << strict->body;
  auto vertex_shaped = c.Post(vertex, {{"X-Mockllm-Dialect", "vertex"}}, hi, "application/json");
  ASSERT_TRUE(vertex_shaped);
  EXPECT_EQ(vertex_shaped->status, 200);
  EXPECT_NE(vertex_shaped->body.find(R"("createTime")"), std::string::npos) << vertex_shaped->body;

  auto journal = c.Get("/__admin/journal");
  ASSERT_TRUE(journal);
  const Json first = Json::parse(journal->body)[0];
  EXPECT_EQ(first["path"], vertex.substr(0, vertex.find('?')));
  EXPECT_EQ(first["trace"], "gem");
  EXPECT_EQ(first["request"]["headers"]["authorization"], "[redacted]");
  EXPECT_EQ(journal->body.find("ya29"), std::string::npos);
  (*s)->Stop();

  auto sdk = Server::Start({GeminiTrace()}, {.pinned_match = MatchMode::kSdk});  // --match sdk
  ASSERT_TRUE(sdk) << sdk.error().message;
  httplib::Client p("127.0.0.1", (*sdk)->port());
  auto pinned = p.Post("/t/gem" + vertex, bearer, hi, "application/json");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->status, 200) << pinned->body;
  (*sdk)->Stop();
}

TEST(GeminiServe, SdkDefaultsAreThoseOfTheGeminiPath) {
  const auto body = Json::parse(
      R"({"contents":[],"generationConfig":{"candidateCount":1,"responseMimeType":"text/plain",
          "topK":null},"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"tools":[],
          "safetySettings":[],"labels":{},"systemInstruction":null})");
  EXPECT_EQ(SdkNormalize(body, "/v1beta/models/m:generateContent"),
            Json::parse(R"({"contents":[]})"));
  const auto kept = Json::parse(
      R"({"generationConfig":{"candidateCount":2},"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}})");
  EXPECT_EQ(SdkNormalize(kept, "/t/x/v1beta/models/m:streamGenerateContent"), kept);
  // Chat's defaults are not Gemini's.
  const auto chat = Json::parse(R"({"n":1,"stream":false})");
  EXPECT_EQ(SdkNormalize(chat, "/v1beta/models/m:generateContent"), chat);
}

TEST(GeminiServe, SdkMatchReadsParametersUnderEitherNameAndNoneAsEmpty) {
  const std::string path = "/v1beta/models/m:generateContent";
  const auto schema = Json::parse(R"({"type":"object","properties":{"city":{"type":"string"}}})");
  const auto tools = [](Json declaration) {
    return Json{{"tools", {{{"functionDeclarations", {std::move(declaration)}}}}}};
  };
  EXPECT_EQ(SdkNormalize(tools({{"name", "f"}, {"parametersJsonSchema", schema}}), path),
            SdkNormalize(tools({{"name", "f"}, {"parameters", schema}}), path));
  // A function without arguments: an empty object schema under either name, or none.
  for (const char* empty : {R"({"type":"object","properties":{}})", R"({"type":"object"})"})
    for (const char* key : {"parameters", "parametersJsonSchema"})
      EXPECT_EQ(SdkNormalize(tools({{"name", "f"}, {key, Json::parse(empty)}}), path),
                tools({{"name", "f"}}))
          << key << " " << empty;
  // Another schema is compared as it is, and differing schemas still differ.
  EXPECT_NE(SdkNormalize(tools({{"name", "f"}, {"parametersJsonSchema", schema}}), path),
            SdkNormalize(tools({{"name", "f"},
                                {"parameters", Json{{"type", "object"}, {"required", {"city"}}}}}),
                         path));
}

constexpr std::string_view kGeminiSurfaceCassette = R"(interactions:
- request:
    body: '{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}'
    headers:
      x-goog-api-key:
      - AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW
      content-type:
      - application/json
    method: POST
    uri: https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=s3cr3t-value-123
  response:
    body:
      string: "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"finishReason\": \"STOP\"}]}\r\n\r\n"
    headers:
      content-type:
      - text/event-stream
    status:
      code: 200
      message: OK
- request:
    body: '{"contents":[]}'
    headers: {}
    method: POST
    uri: https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent
  response:
    body:
      string: '{"error": {"code": 400, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}'
    headers:
      content-type:
      - application/json
    status:
      code: 429
      message: Too Many Requests
- request:
    body: ''
    headers: {}
    method: GET
    uri: https://generativelanguage.googleapis.com/v1beta/fileSearchStores
  response:
    body:
      string: '{}'
    headers: {}
    status:
      code: 200
      message: OK
version: 1
)";

TEST(GeminiImport, KeepsGeminiExchangesNamesTheSurfaceAndRedactsTheKey) {
  auto r = ParseCassette(kGeminiSurfaceCassette, "gem.yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->skipped, 1u);  // the file store call is no surface
  ASSERT_EQ(r->trace.exchanges.size(), 2u);
  EXPECT_EQ(r->trace.header["surface"], "gemini");
  const auto& x = r->trace.exchanges[0];
  EXPECT_EQ(x.request.path, "/v1beta/models/gemini-2.0-flash:streamGenerateContent");
  EXPECT_EQ(x.request.extra["query"], "alt=sse&key=[redacted]");
  EXPECT_EQ(x.request.headers["x-goog-api-key"], "[redacted]");
  EXPECT_TRUE(x.response.streamed);
  const std::string text = WriteTrace(r->trace);
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos);
  EXPECT_EQ(text.find("AIzaSy"), std::string::npos);
  // Lint: the error body's status does not fit its code, and the stream's
  // last event has no usageMetadata; warnings, not problems.
  const auto report = LintTraceReport(text, "gem.jsonl");
  EXPECT_TRUE(report.problems.empty()) << report.problems[0];
  std::string warnings;
  for (const auto& w : report.warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("/response/chunks/0: warning: GEM-USAGE-LAST: event 1 /usageMetadata"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("/response/raw: warning: GEM-ERROR-STATUS: /error/status: status "
                          "'RESOURCE_EXHAUSTED' is HTTP 429, but code is 400"),
            std::string::npos)
      << warnings;
}

}  // namespace
}  // namespace llmconform::mockllm
