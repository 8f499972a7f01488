#include "protocols/wire/gemini.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"

namespace llmconform::wire {
namespace {

// Builds a Gemini stream: each chunk one unnamed `data:` event, CRLF-framed
// as the API writes it.
class Stream {
 public:
  Stream& Add(const Json& data) {
    text_ += "data: " + data.dump(-1, ' ', false, Json::error_handler_t::replace) + "\r\n\r\n";
    return *this;
  }
  Stream& Raw(const std::string& s) {
    text_ += s;
    return *this;
  }
  // One chunk of candidate 0 with `parts`, and `finish` when given.
  Stream& Parts(Json parts, const std::string& finish = "", bool usage = true) {
    Json c{{"content", {{"role", "model"}, {"parts", std::move(parts)}}}, {"index", 0}};
    if (!finish.empty()) c["finishReason"] = finish;
    Json chunk{{"candidates", Json::array({c})},
               {"modelVersion", "gemini-2.5-flash"},
               {"responseId", "r1"}};
    if (usage) chunk["usageMetadata"] = Usage();
    return Add(chunk);
  }
  static Json Usage() {
    return {{"promptTokenCount", 5}, {"candidatesTokenCount", 3}, {"totalTokenCount", 8}};
  }
  static Json Text(const std::string& t) { return Json::array({{{"text", t}}}); }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

CanonicalResult Accumulate(const std::string& raw) {
  return AccumulateSurfaceStream(Surface::kGemini, raw);
}

const LocatedFinding* FindingOf(const CanonicalResult& r, std::string_view rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

TEST(GeminiPath, ModelInThePathUnderEveryPrefix) {
  for (const char* p : {"/v1beta/models/gemini-2.5-flash:generateContent",
                        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                        "/v1/models/gemini-pro:generateContent?key=abc",
                        "/t/abc/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
                        "/v1beta1/projects/p/locations/us-central1/publishers/google/models/"
                        "gemini-2.0-flash:generateContent",
                        "/v1beta/tunedModels/my-model:generateContent"}) {
    EXPECT_EQ(SurfaceOfPath(p), Surface::kGemini) << p;
  }
  for (const char* p : {"/v1beta/models/gemini-2.5-flash:countTokens", "/v1beta/models",
                        "/v1beta/models/gemini-2.5-flash", "/v1/chat/completions",
                        "/v1beta/files/x:generateContent"}) {
    EXPECT_NE(SurfaceOfPath(p), Surface::kGemini) << p;
  }
  EXPECT_EQ(SurfaceName(Surface::kGemini), "gemini");
  EXPECT_EQ(GeminiModelOfPath("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
            "gemini-2.5-flash");
  EXPECT_EQ(GeminiModelOfPath("/v1/chat/completions"), "");
  EXPECT_EQ(SurfaceFromName("gemini"), Surface::kGemini);
}

// The Developer API's, Vertex AI's and Vertex express mode's paths of one
// call are one call; the method and the model tell calls apart.
TEST(GeminiPath, CallIsTheSameThroughEveryBackend) {
  for (const char* p :
       {"/v1beta/models/gemini-2.0-flash:generateContent",
        "/v1/models/gemini-2.0-flash:generateContent?key=k",
        "/v1beta1/projects/p/locations/us-central1/publishers/google/models/"
        "gemini-2.0-flash:generateContent",
        "/v1/projects/p/locations/global/publishers/google/models/gemini-2.0-flash:generateContent",
        "/v1beta1/publishers/google/models/gemini-2.0-flash:generateContent"}) {
    EXPECT_EQ(GeminiCallOfPath(p), "models/gemini-2.0-flash:generateContent") << p;
  }
  EXPECT_EQ(GeminiCallOfPath("/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"),
            "models/gemini-2.0-flash:streamGenerateContent");
  EXPECT_EQ(GeminiCallOfPath("/v1beta/tunedModels/mine:generateContent"),
            "tunedModels/mine:generateContent");
  EXPECT_EQ(GeminiCallOfPath("/v1/chat/completions"), "");
  EXPECT_EQ(GeminiCallOfPath("/v1beta/models/gemini-2.0-flash:countTokens"), "");
}

TEST(GeminiStream, TextChunksJoinIntoOneMessageWithTheLastUsage) {
  Stream s;
  s.Parts(Stream::Text("The"), "", true)
      .Parts(Stream::Text(" capital"), "", true)
      .Parts(Stream::Text(" is Paris."), "STOP", true);
  const auto r = Accumulate(s.str());
  EXPECT_TRUE(r.findings.empty()) << ToJson(r).dump();
  EXPECT_EQ(r.surface, Surface::kGemini);
  EXPECT_EQ(r.Text(), "The capital is Paris.");
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kMessage);
  EXPECT_EQ(r.status, "STOP");
  EXPECT_EQ(r.id, "r1");
  EXPECT_EQ(r.model, "gemini-2.5-flash");
  EXPECT_EQ(r.usage, Stream::Usage());
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.events, 3u);
}

TEST(GeminiStream, ThoughtsAreReasoningWithTheirSignatureAndCallsKeepArgsAsObjects) {
  Stream s;
  s.Parts(Json::array({{{"text", "Let me think"}, {"thought", true}}}))
      .Parts(Json::array({{{"text", " hard."}, {"thought", true}, {"thoughtSignature", "c2ln"}}}))
      .Parts(Json::array(
          {{{"functionCall", {{"name", "get_weather"}, {"args", {{"city", "Paris"}}}}},
            {"thoughtSignature", "c2lnMg=="}},
           {{"functionCall", {{"name", "get_time"}, {"args", Json::object()}, {"id", "call-2"}}}}}))
      .Parts(Json::array({{{"text", ""}}}), "STOP");
  const auto r = Accumulate(s.str());
  EXPECT_TRUE(r.findings.empty()) << ToJson(r).dump();
  ASSERT_EQ(r.items.size(), 3u) << ToJson(r).dump();
  EXPECT_EQ(r.items[0].kind, ItemKind::kReasoning);
  EXPECT_EQ(r.Reasoning(), "Let me think hard.");
  EXPECT_EQ(r.items[0].encrypted, "c2ln");
  const auto calls = r.FunctionCalls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->name, "get_weather");
  EXPECT_EQ(calls[0]->arguments, R"({"city":"Paris"})");
  EXPECT_EQ(calls[0]->encrypted, "c2lnMg==");
  EXPECT_EQ(calls[1]->call_id, "call-2");
  EXPECT_EQ(calls[1]->arguments, "{}");
  EXPECT_EQ(r.Text(), "");
  const Json j = ToJson(r);
  EXPECT_EQ(j["items"][1]["encrypted_content"], "c2lnMg==");
  EXPECT_EQ(j["items"][0]["encrypted_content"], "c2ln");
}

TEST(GeminiStream, UnknownPartsAndFieldsAreKeptAndNamed) {
  Stream s;
  s.Add({{"candidates",
          {{{"content",
             {{"parts",
               {{{"executableCode", {{"language", "PYTHON"}, {"code", "print(1)"}}}},
                {{"codeExecutionResult", {{"outcome", "OUTCOME_OK"}, {"output", "1\n"}}}},
                {{"text", "done"}}}}}},
            {"groundingMetadata", Json::object()},
            {"finishReason", "STOP"}}}},
         {"usageMetadata", Stream::Usage()},
         {"createTime", "2026-01-01T00:00:00Z"}});
  const auto r = Accumulate(s.str());
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kOther);
  EXPECT_EQ(r.items[0].type, "executableCode");
  EXPECT_EQ(r.items[0].raw["executableCode"]["code"], "print(1)");
  EXPECT_EQ(r.items[1].type, "codeExecutionResult");
  EXPECT_EQ(r.Text(), "done");
  EXPECT_EQ(r.other_events,
            (std::vector<std::string>{"createTime", "candidate.groundingMetadata"}));
}

TEST(GeminiStream, SecondCandidateIsOneOtherItem) {
  Stream s;
  s.Add({{"candidates",
          {{{"index", 0}, {"content", {{"parts", Stream::Text("a")}}}, {"finishReason", "STOP"}},
           {{"index", 1}, {"content", {{"parts", Stream::Text("b")}}}, {"finishReason", "STOP"}}}},
         {"usageMetadata", Stream::Usage()}});
  const auto r = Accumulate(s.str());
  EXPECT_TRUE(r.findings.empty()) << ToJson(r).dump();
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.Text(), "a");
  EXPECT_EQ(r.items[1].type, "candidate");
  EXPECT_EQ(r.items[1].raw["index"], 1);
  EXPECT_EQ(r.items[1].raw["parts"][0]["text"], "b");
}

TEST(GeminiRules, EachDepartureIsLocated) {
  {
    Stream s;
    s.Raw("data: [DONE]\r\n\r\n").Parts(Stream::Text("x"), "STOP");
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-EVENT-JSON");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->event, 1u);
  }
  {
    Stream s;
    s.Parts(Json::array({{{"functionCall", {{"args", "{\"a\":1}"}}}}}), "STOP");
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-FUNCTION-CALL");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->pointer, "/candidates/0/content/parts/0/functionCall/name");
    EXPECT_NE(f->message.find("(and 1 more)"), std::string::npos) << f->message;
  }
  {
    Stream s;
    s.Parts(Stream::Text("x"), "DONE");
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-FINISH-REASON");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->pointer, "/candidates/0/finishReason");
  }
  {
    Stream s;
    s.Parts(Stream::Text("x"), "STOP").Parts(Stream::Text("y"));
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-AFTER-FINISH");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->event, 2u);
    EXPECT_EQ(r.Text(), "xy");  // read on, as the SDKs do
  }
  {
    Stream s;
    s.Parts(Stream::Text("x"));
    const auto r = Accumulate(s.str());
    EXPECT_TRUE(FindingOf(r, "GEM-FINISHED"));
    EXPECT_FALSE(r.terminated);
  }
  {
    Stream s;
    s.Parts(Stream::Text("x")).Parts(Stream::Text("y"), "STOP", false);
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-USAGE-LAST");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->event, 2u);
    EXPECT_EQ(f->pointer, "/usageMetadata");
  }
  {
    Stream s;
    s.Add({{"candidates",
            {{{"index", 0}, {"content", {{"parts", Stream::Text("a")}}}, {"finishReason", "STOP"}},
             {{"content", {{"parts", Stream::Text("b")}}}, {"finishReason", "STOP"}}}},
           {"usageMetadata", Stream::Usage()}});
    const auto r = Accumulate(s.str());
    const auto* f = FindingOf(r, "GEM-CANDIDATE-INDEX");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->pointer, "/candidates/1/index");
  }
}

TEST(GeminiBody, ResponseErrorAndArray) {
  const Json body = {{"candidates",
                      {{{"content", {{"parts", Stream::Text("Paris")}, {"role", "model"}}},
                        {"finishReason", "STOP"}}}},
                     {"usageMetadata", Stream::Usage()},
                     {"modelVersion", "gemini-2.5-pro"},
                     {"responseId", "abc"}};
  const auto r = ReadSurfaceBody(Surface::kGemini, body);
  EXPECT_TRUE(r.findings.empty()) << ToJson(r).dump();
  EXPECT_EQ(r.Text(), "Paris");
  EXPECT_EQ(r.status, "STOP");
  EXPECT_EQ(r.model, "gemini-2.5-pro");
  EXPECT_EQ(r.events, 0u);

  const auto array = ReadGeminiBody(Json::array({body, body}));
  EXPECT_EQ(array.Text(), "ParisParis");
  EXPECT_EQ(FindingOf(array, "GEM-AFTER-FINISH")->pointer, "/1/candidates/0");

  const Json error = {{"error",
                       {{"code", 429},
                        {"message", "Resource has been exhausted"},
                        {"status", "RESOURCE_EXHAUSTED"}}}};
  const auto e = ReadGeminiBody(error);
  EXPECT_TRUE(e.findings.empty()) << ToJson(e).dump();
  ASSERT_TRUE(e.error);
  EXPECT_EQ(e.error->type, "RESOURCE_EXHAUSTED");
  EXPECT_EQ(e.error->code, 429);

  Json wrong = error;
  wrong["error"]["code"] = 400;
  const auto w = ReadGeminiBody(wrong);
  const auto* f = FindingOf(w, "GEM-ERROR-STATUS");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->pointer, "/error/status");
  EXPECT_EQ(f->message, "/error/status: status 'RESOURCE_EXHAUSTED' is HTTP 429, but code is 400");

  const auto chat = ReadGeminiBody(Json{{"choices", Json::array()}});
  const auto* g = FindingOf(chat, "GEM-BODY-RESPONSE");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->pointer, "/candidates");
  EXPECT_TRUE(FindingOf(ReadGeminiBody(Json(3)), "GEM-BODY-RESPONSE"));
}

TEST(GeminiStream, AnErrorEventEndsTheStream) {
  Stream s;
  s.Parts(Stream::Text("x"))
      .Add({{"error", {{"code", 503}, {"message", "overloaded"}, {"status", "UNAVAILABLE"}}}});
  const auto r = Accumulate(s.str());
  EXPECT_TRUE(r.findings.empty()) << ToJson(r).dump();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "overloaded");
  EXPECT_TRUE(r.terminated);
}

TEST(GeminiStream, HugeIndexesGarbageAndEndlessEventsStayBounded) {
  std::string raw;
  for (int i = 0; i < 5000; ++i) {
    Json c{{"index", 1000000 + i}, {"content", {{"parts", Stream::Text("")}}}};
    raw += "data: " + Json{{"candidates", Json::array({c})}}.dump() + "\n\n";
    raw += "data: {\"candidates\": [{\"index\": 99999999999999999999}]}\n\n";
    raw += "data: \x01\xff garbage\n\n";
    raw += "data: {\"unknown" + std::to_string(i) + "\": 1}\n\n";
  }
  const auto r = Accumulate(raw);
  EXPECT_EQ(r.events, 20000u);
  EXPECT_LE(r.items.size(), 16u);
  EXPECT_LE(r.other_events.size(), 65u);
  EXPECT_LE(r.findings.size(), kGeminiRuleIds.size());
  EXPECT_TRUE(FindingOf(r, "GEM-CANDIDATE-INDEX"));
}

rc::Gen<std::string> GeminiStreamGen() {
  return rc::gen::map(
      rc::gen::pair(
          rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 7)),
          rc::gen::container<std::vector<std::string>>(rc::gen::arbitrary<std::string>())),
      [](const std::pair<std::vector<int>, std::vector<std::string>>& in) {
        Stream s;
        std::size_t t = 0;
        auto text = [&]() { return t < in.second.size() ? in.second[t++] : std::string("x"); };
        for (int k : in.first) {
          if (k == 0) {
            s.Parts(Stream::Text(text()));
          } else if (k == 1) {
            s.Parts(
                Json::array({{{"text", text()}, {"thought", true}, {"thoughtSignature", "s"}}}));
          } else if (k == 2) {
            s.Parts(Json::array({{{"functionCall", {{"name", "f"}, {"args", {{"q", text()}}}}}}}));
          } else if (k == 3) {
            s.Raw("data: " + text() + "\n\n");  // not JSON
          } else if (k == 4) {
            s.Raw(": keep-alive\r\n\r\n");
          } else if (k == 5) {
            s.Parts(Stream::Text(text()), "STOP");
          } else {
            s.Add({{"candidates", {{{"index", 7}, {"content", {{"parts", Stream::Text("z")}}}}}}});
          }
        }
        return s.str();
      });
}

RC_GTEST_PROP(GeminiStream, AnySplitOfTheBytesAccumulatesTheSame, ()) {
  const std::string stream = *GeminiStreamGen();
  const auto whole = Accumulate(stream);
  auto cuts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  const auto split = AccumulateSurfaceStreamSplit(Surface::kGemini, stream, cuts);
  RC_ASSERT(split == whole);
  for (const auto& f : whole.findings) {
    RC_ASSERT(std::find(kGeminiRuleIds.begin(), kGeminiRuleIds.end(), f.rule) !=
              kGeminiRuleIds.end());
  }
}

// The catalogue (specs/wire/rules.json) and the code agree on the GEM-* rules.
TEST(GeminiRules, CatalogueHoldsExactlyTheRulesTheCodeReports) {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) + "/specs/wire/rules.json");
  const Json rules = Json::parse(in);
  std::set<std::string> catalogued;
  for (const Json& r : rules) {
    const std::string id = r["id"];
    if (id.starts_with("GEM-")) {
      catalogued.insert(id);
      EXPECT_NE(r["source"].get<std::string>().find("ai.google.dev"), std::string::npos) << id;
    }
  }
  EXPECT_EQ(catalogued, std::set<std::string>(kGeminiRuleIds.begin(), kGeminiRuleIds.end()));
}

}  // namespace
}  // namespace llmconform::wire
