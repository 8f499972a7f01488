#include "harness/difftest/gemini_generator.h"

#include <string>
#include <vector>

#include "base/json.h"
#include "harness/difftest/gen_text.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

enum class PartKind { kText, kThought, kFunctionCalls, kExecutableCode };
enum class PartFlaw { kNone, kCallWithoutName, kArgsAsString, kTextNotString };

// One chunk's parts before it is written: their kind and a departure.
struct Piece {
  PartKind kind = PartKind::kText;  // a thought comes with a signature
  std::string text;
  int calls = 1;  // kFunctionCalls: how many calls in the chunk
  PartFlaw flaw = PartFlaw::kNone;
};

// A departure of the whole stream.
enum class GeminiStreamFlaw {
  kNone,
  kDoneAtEnd,      // [DONE] at the end
  kDataNotJson,    // a data line that is not JSON
  kUnknownFinish,  // an undocumented finishReason
  kChunkAfterFinish,
  kNoUsageAtEnd,  // no usage on the last chunk
  kTwoCandidatesOneIndex,
  kNoFinish,
  kErrorEvent,
  kErrorStatusMismatch,  // an error event whose status does not fit its code
  // Dialect departures the GEM-* rules do not forbid (specs/wire/dialects.json):
  kVertex,     // createTime and usageMetadata.trafficType, usage on the last chunk only
  kJsonArray,  // the chunks framed as one JSON array, not SSE
};

// A non-streamed body.
enum class GeminiBodyShape {
  kResponse,
  kMaxTokensNoUsage,
  kQuotaError,
  kChunkArray,
  kChatCompletions,
  kVertexResponse,  // with Vertex AI's createTime and trafficType
  kErrorArray,      // an error object inside a JSON array (a JSON-array stream's error)
};

Json PartsOf(const Piece& p) {
  Json parts = Json::array();
  switch (p.kind) {
    case PartKind::kText:
      parts.push_back({{"text", p.text}});
      break;
    case PartKind::kThought:
      parts.push_back({{"text", p.text}, {"thought", true}, {"thoughtSignature", "c2lnbmF0dXJl"}});
      break;
    case PartKind::kFunctionCalls:
      for (int i = 0; i < p.calls; ++i) {
        Json call{{"name", "lookup"}, {"args", {{"q", p.text}, {"n", i}}}};
        if (p.flaw == PartFlaw::kCallWithoutName) call.erase("name");
        if (p.flaw == PartFlaw::kArgsAsString) call["args"] = call["args"].dump();
        parts.push_back({{"functionCall", std::move(call)}});
      }
      break;
    case PartKind::kExecutableCode:
      parts.push_back({{"executableCode", {{"language", "PYTHON"}, {"code", p.text}}}});
      break;
  }
  if (p.flaw == PartFlaw::kTextNotString) parts.push_back({{"text", 7}});
  return parts;
}

Json Usage() {
  return {{"promptTokenCount", 12}, {"candidatesTokenCount", 7}, {"totalTokenCount", 19}};
}

Json QuotaError() {
  return {{"error",
           {{"code", 429},
            {"message", "Resource has been exhausted (e.g. check quota)."},
            {"status", "RESOURCE_EXHAUSTED"}}}};
}

// Vertex AI's own fields on a response: createTime, and trafficType in its usage.
Json WithVertexFields(Json response) {
  response["createTime"] = "2025-06-01T10:00:00.123456Z";
  if (response.contains("usageMetadata")) response["usageMetadata"]["trafficType"] = "ON_DEMAND";
  return response;
}

Json Chunk(Json parts, const std::string& finish, bool usage, int index) {
  Json c{{"content", {{"role", "model"}, {"parts", std::move(parts)}}}};
  if (index != 0) c["index"] = index;
  if (!finish.empty()) c["finishReason"] = finish;
  Json chunk{{"candidates", Json::array({std::move(c)})},
             {"modelVersion", "gemini-2.5-flash"},
             {"responseId", "resp-1"}};
  if (usage) chunk["usageMetadata"] = Usage();
  return chunk;
}

std::string WriteStream(const std::vector<Piece>& pieces, GeminiStreamFlaw flaw) {
  std::string out;
  Json array = Json::array();  // kJsonArray: the chunks, written at the end
  auto add = [&](const Json& data) {
    if (flaw == GeminiStreamFlaw::kJsonArray) return array.push_back(data);
    out += "data: " + (flaw == GeminiStreamFlaw::kVertex ? WithVertexFields(data) : data).dump() +
           "\r\n\r\n";
  };
  const bool running_usage = flaw != GeminiStreamFlaw::kVertex;
  if (flaw == GeminiStreamFlaw::kDataNotJson) out += "data: {\"candidates\": [\r\n\r\n";
  for (const Piece& p : pieces) add(Chunk(PartsOf(p), "", running_usage, 0));
  if (flaw == GeminiStreamFlaw::kTwoCandidatesOneIndex) {
    Json twin = Chunk(Json::array({{{"text", "twin"}}}), "", true, 0);
    twin["candidates"].push_back(twin["candidates"][0]);
    add(twin);
  }
  if (flaw == GeminiStreamFlaw::kErrorEvent || flaw == GeminiStreamFlaw::kErrorStatusMismatch) {
    add({{"error",
          {{"code", flaw == GeminiStreamFlaw::kErrorEvent ? 503 : 400},
           {"message", "The model is overloaded. Please try again later."},
           {"status", "UNAVAILABLE"}}}});
    return out;
  }
  if (flaw != GeminiStreamFlaw::kNoFinish)
    add(Chunk(Json::array({{{"text", ""}}}),
              flaw == GeminiStreamFlaw::kUnknownFinish ? "FINISHED" : "STOP",
              flaw != GeminiStreamFlaw::kNoUsageAtEnd, 0));
  if (flaw == GeminiStreamFlaw::kChunkAfterFinish)
    add(Chunk(Json::array({{{"text", "more"}}}), "", true, 0));
  if (flaw == GeminiStreamFlaw::kDoneAtEnd) out += "data: [DONE]\r\n\r\n";
  if (flaw == GeminiStreamFlaw::kJsonArray) {  // Google's framing: "[{…}\n,\r\n{…}]"
    out = "[";
    for (std::size_t i = 0; i < array.size(); ++i) out += (i ? "\n,\r\n" : "") + array[i].dump();
    out += "]";
  }
  return out;
}

}  // namespace

rc::Gen<Json> GeminiAccumulateInput() {
  auto piece = gen::apply(
      [](PartKind kind, std::string text, int calls, PartFlaw flaw) {
        return Piece{kind, std::move(text), calls, flaw};
      },
      gen::weightedOneOf<PartKind>({{4, gen::just(PartKind::kText)},
                                    {2, gen::just(PartKind::kThought)},
                                    {3, gen::just(PartKind::kFunctionCalls)},
                                    {1, gen::just(PartKind::kExecutableCode)}}),
      gen::resize(8, Text()), gen::element(1, 2, 3),
      gen::weightedElement<PartFlaw>({{6, PartFlaw::kNone},
                                      {1, PartFlaw::kCallWithoutName},
                                      {1, PartFlaw::kArgsAsString},
                                      {1, PartFlaw::kTextNotString}}));
  auto stream = gen::apply(
      [](std::vector<Piece> pieces, GeminiStreamFlaw flaw) {
        return Json{{"stream", WriteStream(pieces, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Piece>>(piece)),
      gen::weightedOneOf<GeminiStreamFlaw>(
          {{10, gen::just(GeminiStreamFlaw::kNone)},
           {10,
            gen::element(GeminiStreamFlaw::kDoneAtEnd, GeminiStreamFlaw::kDataNotJson,
                         GeminiStreamFlaw::kUnknownFinish, GeminiStreamFlaw::kChunkAfterFinish,
                         GeminiStreamFlaw::kNoUsageAtEnd, GeminiStreamFlaw::kTwoCandidatesOneIndex,
                         GeminiStreamFlaw::kNoFinish, GeminiStreamFlaw::kErrorEvent,
                         GeminiStreamFlaw::kErrorStatusMismatch)},
           {4, gen::element(GeminiStreamFlaw::kVertex, GeminiStreamFlaw::kJsonArray)}}));
  auto body = gen::apply(
      [](std::vector<Piece> pieces, GeminiBodyShape shape) {
        Json parts = Json::array();
        for (const Piece& p : pieces)
          for (Json& part : PartsOf(p)) parts.push_back(std::move(part));
        switch (shape) {
          case GeminiBodyShape::kResponse:
            return Json{{"body", Chunk(parts, "STOP", true, 0)}};
          case GeminiBodyShape::kMaxTokensNoUsage:
            return Json{{"body", Chunk(parts, "MAX_TOKENS", false, 0)}};
          case GeminiBodyShape::kQuotaError:
            return Json{{"body", QuotaError()}};
          case GeminiBodyShape::kVertexResponse:
            return Json{{"body", WithVertexFields(Chunk(parts, "STOP", true, 0))}};
          case GeminiBodyShape::kErrorArray:
            return Json{{"body", Json::array({QuotaError()})}};
          case GeminiBodyShape::kChunkArray:
            return Json{{"body", Json::array({Chunk(parts, "", true, 0),
                                              Chunk(Json::array(), "STOP", true, 0)})}};
          case GeminiBodyShape::kChatCompletions:
            break;
        }
        return Json{{"body", {{"choices", Json::array()}}}};
      },
      gen::resize(3, gen::container<std::vector<Piece>>(piece)),
      gen::element(GeminiBodyShape::kResponse, GeminiBodyShape::kMaxTokensNoUsage,
                   GeminiBodyShape::kQuotaError, GeminiBodyShape::kChunkArray,
                   GeminiBodyShape::kChatCompletions, GeminiBodyShape::kVertexResponse,
                   GeminiBodyShape::kErrorArray));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::difftest
