#include "harness/check/gemini_generator.h"

#include <string>
#include <vector>

#include "base/json.h"
#include "harness/check/gen_text.h"

namespace llmconform::harness::check {
namespace {

namespace gen = rc::gen;

// One chunk's parts before it is written: their kind and, at `flaw`, a departure.
struct Piece {
  int kind = 0;  // 0 text, 1 thought with a signature, 2 function calls, 3 executableCode
  std::string text;
  int calls = 1;  // kind 2: how many calls in the chunk
  int flaw = 0;   // 0-5 none; 6 a call without a name; 7 args a string; 8 text not a string
};

Json PartsOf(const Piece& p) {
  Json parts = Json::array();
  switch (p.kind) {
    case 0:
      parts.push_back({{"text", p.text}});
      break;
    case 1:
      parts.push_back({{"text", p.text}, {"thought", true}, {"thoughtSignature", "c2lnbmF0dXJl"}});
      break;
    case 2:
      for (int i = 0; i < p.calls; ++i) {
        Json call{{"name", "lookup"}, {"args", {{"q", p.text}, {"n", i}}}};
        if (p.flaw == 6) call.erase("name");
        if (p.flaw == 7) call["args"] = call["args"].dump();
        parts.push_back({{"functionCall", std::move(call)}});
      }
      break;
    default:
      parts.push_back({{"executableCode", {{"language", "PYTHON"}, {"code", p.text}}}});
      break;
  }
  if (p.flaw == 8) parts.push_back({{"text", 7}});
  return parts;
}

Json Usage() {
  return {{"promptTokenCount", 12}, {"candidatesTokenCount", 7}, {"totalTokenCount", 19}};
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

// `flaw` on the whole stream: 1 [DONE] at the end; 2 a data line that is not
// JSON; 3 an undocumented finishReason; 4 a chunk after the finish; 5 no usage
// on the last chunk; 6 two candidates with index 0; 7 no finish; 8 an error
// event; 9 an error event whose status does not fit its code.
std::string WriteStream(const std::vector<Piece>& pieces, int flaw) {
  std::string out;
  auto add = [&out](const Json& data) { out += "data: " + data.dump() + "\r\n\r\n"; };
  if (flaw == 2) out += "data: {\"candidates\": [\r\n\r\n";
  for (const Piece& p : pieces) add(Chunk(PartsOf(p), "", true, 0));
  if (flaw == 6) {
    Json twin = Chunk(Json::array({{{"text", "twin"}}}), "", true, 0);
    twin["candidates"].push_back(twin["candidates"][0]);
    add(twin);
  }
  if (flaw == 8 || flaw == 9) {
    add({{"error",
          {{"code", flaw == 8 ? 503 : 400},
           {"message", "The model is overloaded. Please try again later."},
           {"status", "UNAVAILABLE"}}}});
    return out;
  }
  if (flaw != 7)
    add(Chunk(Json::array({{{"text", ""}}}), flaw == 3 ? "FINISHED" : "STOP", flaw != 5, 0));
  if (flaw == 4) add(Chunk(Json::array({{{"text", "more"}}}), "", true, 0));
  if (flaw == 1) out += "data: [DONE]\r\n\r\n";
  return out;
}

}  // namespace

rc::Gen<Json> GeminiAccumulateInput() {
  auto piece = gen::apply(
      [](int kind, std::string text, int calls, int flaw) {
        return Piece{kind, std::move(text), calls, flaw};
      },
      gen::weightedOneOf<int>(
          {{4, gen::just(0)}, {2, gen::just(1)}, {3, gen::just(2)}, {1, gen::just(3)}}),
      gen::resize(8, Text()), gen::element(1, 2, 3),
      // gen::element, not gen::inRange: inside gen::resize the latter reaches only its low end.
      gen::element(0, 1, 2, 3, 4, 5, 6, 7, 8));
  auto stream = gen::apply(
      [](std::vector<Piece> pieces, int flaw) {
        return Json{{"stream", WriteStream(pieces, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Piece>>(piece)),
      gen::weightedOneOf<int>({{10, gen::just(0)}, {10, gen::element(1, 2, 3, 4, 5, 6, 7, 8, 9)}}));
  auto body = gen::apply(
      [](std::vector<Piece> pieces, int shape) {
        Json parts = Json::array();
        for (const Piece& p : pieces)
          for (Json& part : PartsOf(p)) parts.push_back(std::move(part));
        switch (shape) {
          case 0:
            return Json{{"body", Chunk(parts, "STOP", true, 0)}};
          case 1:
            return Json{{"body", Chunk(parts, "MAX_TOKENS", false, 0)}};
          case 2:
            return Json{{"body",
                         {{"error",
                           {{"code", 429},
                            {"message", "Resource has been exhausted (e.g. check quota)."},
                            {"status", "RESOURCE_EXHAUSTED"}}}}}};
          case 3:
            return Json{{"body", Json::array({Chunk(parts, "", true, 0),
                                              Chunk(Json::array(), "STOP", true, 0)})}};
          default:
            return Json{{"body", {{"choices", Json::array()}}}};
        }
      },
      gen::resize(3, gen::container<std::vector<Piece>>(piece)), gen::element(0, 1, 2, 3, 4));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::check
