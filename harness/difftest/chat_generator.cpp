#include "harness/difftest/chat_generator.h"

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/difftest/gen_text.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

enum class ChunkKind { kContent, kReasoningContent, kReasoning, kToolCall, kUsage, kOdd };
// A chunk's finish_reason: null (as most providers send), the key left out,
// or "stop" before the end.
enum class FinishField { kNull, kOmitted, kEarlyStop };
// How a tool call is written: the head, then the arguments in two fragments;
// or without its index (and unsplit), without type, whole in one delta, with
// its id repeated in the fragments, or changed in them.
enum class CallShape { kFragments, kNoIndex, kNoType, kWhole, kIdRepeated, kIdChanged };
// Frames that are not a plain delta.
enum class OddFrame {
  kKeepAlive,         // an SSE comment
  kNamedEvent,        // an `event:` line before the data (DIA-NAMED-EVENT)
  kErrorObject,       // {"error": …} mid-stream
  kMalformedJson,     // a data line that is not JSON
  kNoChoices,         // a chunk without choices
  kContentNotString,  // content a number
  kContentArray,      // content as an array of blocks
  kCutOff,            // a frame cut off in the middle
  kReasoningDetails,  // OpenRouter's typed reasoning blocks
  kThinkInline,       // reasoning inline in content
  kPaddingField,      // an extra padding field
  kThinkingBlocks,    // Mistral's content array: a thinking block, then text
  kUnknownBlock,      // a content array holding a block of an unknown type
};
// How the stream ends, and how it is framed.
enum class Finish { kNone, kStop, kToolCalls, kLength, kContentFilter, kRepeated, kChanged };
enum class Framing { kPlain, kNoSpace, kCommentFirst, kDataAfterDone, kCrLineEnds };

// One chunk before it is written: its kind and what of it departs from the
// plain form (only the fields of its kind are read).
struct WireChunk {
  ChunkKind kind = ChunkKind::kContent;
  std::string text;
  FinishField finish = FinishField::kNull;
  bool role_again = false;  // content: "role" in a later delta
  CallShape call = CallShape::kFragments;
  bool groq_usage = false;  // usage: under x_groq
  OddFrame odd = OddFrame::kKeepAlive;
};

constexpr std::string_view kHead =
    R"("id":"chatcmpl-1","object":"chat.completion.chunk","model":"m")";

// Writes a stream chunk by chunk.
class ChatWriter {
 public:
  explicit ChatWriter(Framing framing) : framing_(framing) {}

  void Raw(std::string_view text) { out_ += text; }
  void Data(const std::string& json) {
    out_ += framing_ == Framing::kNoSpace ? "data:" + json + "\n\n" : "data: " + json + "\n\n";
  }
  static std::string Choice(const Json& delta, const Json& finish) {
    Json c{{"index", 0}, {"delta", delta}};
    if (!finish.is_discarded()) c["finish_reason"] = finish;
    return "{" + std::string(kHead) + R"(,"choices":[)" + c.dump() + "]}";
  }

  void Chunk(const WireChunk& c) {
    const Json fr = c.finish == FinishField::kEarlyStop ? Json("stop")
                    : c.finish == FinishField::kOmitted ? Json(Json::value_t::discarded)
                                                        : Json(nullptr);
    switch (c.kind) {
      case ChunkKind::kContent: {
        Json d{{"content", c.text}};
        if (c.role_again) d["role"] = "assistant";
        Data(Choice(d, fr));
        break;
      }
      case ChunkKind::kReasoningContent:
        Data(Choice(Json{{"reasoning_content", c.text}}, fr));
        break;
      case ChunkKind::kReasoning:
        Data(Choice(Json{{"reasoning", c.text}}, fr));
        break;
      case ChunkKind::kToolCall:
        ToolCall(c);
        break;
      case ChunkKind::kUsage:
        Data(
            "{" + std::string(kHead) +
            (c.groq_usage
                 ? R"(,"choices":[],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}})"
                 : R"(,"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}})"));
        break;
      case ChunkKind::kOdd:
        Odd(c);
        break;
    }
  }

  std::string End(Finish finish, bool done) {
    static const char* const kReasons[] = {"stop", "tool_calls", "length", "content_filter"};
    switch (finish) {
      case Finish::kNone:
        break;
      case Finish::kStop:
      case Finish::kToolCalls:
      case Finish::kLength:
      case Finish::kContentFilter:
        Data(Choice(Json::object(), kReasons[static_cast<int>(finish) - 1]));
        break;
      case Finish::kRepeated:
        Data(Choice(Json::object(), "stop"));
        Data(Choice(Json::object(), "stop"));
        break;
      case Finish::kChanged:
        Data(Choice(Json::object(), "length"));
        Data(Choice(Json::object(), "stop"));
        break;
    }
    if (done)
      out_ += framing_ == Framing::kDataAfterDone ? "data: [DONE]\n\ndata: {\"choices\":[]}\n\n"
                                                  : "data: [DONE]\n\n";
    if (framing_ == Framing::kCrLineEnds) {
      for (auto& ch : out_)
        if (ch == '\n') ch = '\r';
    }
    return std::move(out_);
  }

 private:
  // A call in fragments: the head (id, type, name), then the arguments in two.
  void ToolCall(const WireChunk& c) {
    const Json args{{"q", c.text}, {"n", 12}};
    const std::string a = args.dump();
    Json tc{{"index", call_},
            {"id", "call_" + std::to_string(call_)},
            {"type", "function"},
            {"function", {{"name", "fs_read"}, {"arguments", ""}}}};
    if (c.call == CallShape::kNoIndex) tc.erase("index");
    if (c.call == CallShape::kNoType) tc.erase("type");
    if (c.call == CallShape::kWhole) tc["function"]["arguments"] = a;
    Data(Choice(Json{{"tool_calls", Json::array({tc})}}, Json(nullptr)));
    if (c.call != CallShape::kWhole && c.call != CallShape::kNoIndex) {
      // Split between code points: each fragment is a JSON string.
      const std::size_t half = Utf8Prefix(a, a.size() / 2);
      for (const std::string& part : {a.substr(0, half), a.substr(half)}) {
        Json more{{"index", call_}, {"function", {{"arguments", part}}}};
        if (c.call == CallShape::kIdRepeated) more["id"] = "call_" + std::to_string(call_);
        if (c.call == CallShape::kIdChanged) more["id"] = "call_other";
        Data(Choice(Json{{"tool_calls", Json::array({more})}}, Json(nullptr)));
      }
    }
    ++call_;
  }

  void Odd(const WireChunk& c) {
    switch (c.odd) {
      case OddFrame::kKeepAlive:
        out_ += ": keep-alive\n\n";
        break;
      case OddFrame::kNamedEvent:
        // `message` is the unnamed event's type (WHATWG); llama.cpp names others.
        out_ += c.text.size() % 2 ? "event: message\n" : "event: completion\n";
        Data(Choice(Json{{"content", c.text}}, nullptr));
        break;
      case OddFrame::kErrorObject:
        Data(R"({"error":{"message":"upstream failed","code":502}})");
        break;
      case OddFrame::kMalformedJson:
        Data("{\"choices\":[{\"delta\":");
        break;
      case OddFrame::kNoChoices:
        Data("{" + std::string(kHead) + "}");
        break;
      case OddFrame::kContentNotString:
        Data(Choice(Json{{"content", 7}}, nullptr));
        break;
      case OddFrame::kContentArray:
        Data(Choice(Json{{"content", Json::array({{{"type", "text"}, {"text", c.text}}})}},
                    nullptr));
        break;
      case OddFrame::kCutOff:
        out_ += "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
                c.text.substr(0, OffsetOfCodePoint(c.text, 3)) + "\n\n";
        break;
      case OddFrame::kReasoningDetails:
        Data(Choice(Json{{"reasoning_details",
                          Json::array({{{"type", "reasoning.text"}, {"text", c.text}}})}},
                    nullptr));
        break;
      case OddFrame::kThinkInline:
        Data(Choice(Json{{"content", "<think>" + c.text + "</think>ok"}}, nullptr));
        break;
      case OddFrame::kThinkingBlocks:
        Data(Choice(
            Json{{"content",
                  Json::array({{{"type", "thinking"},
                                {"thinking", Json::array({{{"type", "text"}, {"text", c.text}}})}},
                               {{"type", "text"}, {"text", "ok"}}})}},
            nullptr));
        break;
      case OddFrame::kUnknownBlock:
        Data(Choice(Json{{"content", Json::array({{{"type", "image_url"},
                                                   {"image_url", {{"url", "https://x/a.png"}}}},
                                                  {{"type", "text"}, {"text", c.text}}})}},
                    nullptr));
        break;
      case OddFrame::kPaddingField: {
        Json d = Json::parse(Choice(Json{{"content", c.text}}, nullptr));
        d["obfuscation"] = "Xq3";
        Data(d.dump());
        break;
      }
    }
  }

  Framing framing_;
  std::string out_;
  int call_ = 0;
};

rc::Gen<WireChunk> Chunk() {
  return gen::apply(
      [](ChunkKind kind, std::string text, FinishField finish, bool role_again, CallShape call,
         bool groq_usage, OddFrame odd) {
        return WireChunk{kind, std::move(text), finish, role_again, call, groq_usage, odd};
      },
      gen::weightedOneOf<ChunkKind>({{6, gen::just(ChunkKind::kContent)},
                                     {1, gen::just(ChunkKind::kReasoningContent)},
                                     {1, gen::just(ChunkKind::kReasoning)},
                                     {3, gen::just(ChunkKind::kToolCall)},
                                     {1, gen::just(ChunkKind::kUsage)},
                                     {2, gen::just(ChunkKind::kOdd)}}),
      gen::resize(6, Text()),
      gen::weightedElement<FinishField>(
          {{9, FinishField::kNull}, {1, FinishField::kOmitted}, {1, FinishField::kEarlyStop}}),
      gen::weightedElement<bool>({{10, false}, {1, true}}),
      gen::weightedElement<CallShape>({{6, CallShape::kFragments},
                                       {1, CallShape::kNoIndex},
                                       {1, CallShape::kNoType},
                                       {1, CallShape::kWhole},
                                       {1, CallShape::kIdRepeated},
                                       {1, CallShape::kIdChanged}}),
      gen::element(false, true),
      gen::element(OddFrame::kKeepAlive, OddFrame::kNamedEvent, OddFrame::kErrorObject,
                   OddFrame::kMalformedJson, OddFrame::kNoChoices, OddFrame::kContentNotString,
                   OddFrame::kContentArray, OddFrame::kCutOff, OddFrame::kReasoningDetails,
                   OddFrame::kThinkInline, OddFrame::kPaddingField, OddFrame::kThinkingBlocks,
                   OddFrame::kUnknownBlock));
}

rc::Gen<std::string> ChatStream() {
  return gen::apply(
      [](std::vector<WireChunk> chunks, Finish finish, bool done, Framing framing,
         bool empty_first) {
        ChatWriter w(framing);
        if (framing == Framing::kCommentFirst) w.Raw(": OPENROUTER PROCESSING\n\n");
        if (empty_first)
          w.Data("{" + std::string(kHead) +
                 R"(,"choices":[],"prompt_filter_results":[{"prompt_index":0}]})");
        w.Data(ChatWriter::Choice(Json{{"role", "assistant"}, {"content", ""}}, nullptr));
        for (const auto& c : chunks) w.Chunk(c);
        return w.End(finish, done);
      },
      gen::resize(10, gen::container<std::vector<WireChunk>>(Chunk())),
      gen::element(Finish::kNone, Finish::kStop, Finish::kToolCalls, Finish::kLength,
                   Finish::kContentFilter, Finish::kRepeated, Finish::kChanged),
      gen::element(true, true, true, false),
      gen::element(Framing::kPlain, Framing::kPlain, Framing::kPlain, Framing::kNoSpace,
                   Framing::kCommentFirst, Framing::kDataAfterDone, Framing::kCrLineEnds),
      gen::element(false, false, false, true));
}

// A non-streamed body, in one of the shapes providers answer with.
enum class Body {
  kPlain,
  kReasoningContent,
  kContentBlocks,
  kFlatMessage,  // {"message": …}
  kObjectError,  // {"object": "error", …}
  kErrorArray,   // Gemini's [{"error": …}]
  kErrorObject,  // {"error": {…}}
  kHtml,
  kDetail,         // {"detail": …}
  kContentFilter,  // Azure's content filter results
};

std::string BodyText(Body kind, const std::string& text) {
  const Json message{{"role", "assistant"}, {"content", text}};
  auto reply = [](Json message) {
    return Json{
        {"choices", {{{"index", 0}, {"message", std::move(message)}, {"finish_reason", "stop"}}}}};
  };
  switch (kind) {
    case Body::kPlain: {
      Json b = reply(message);
      b["id"] = "c";
      b["object"] = "chat.completion";
      return b.dump();
    }
    case Body::kReasoningContent:
      return reply({{"role", "assistant"}, {"content", text}, {"reasoning_content", "because"}})
          .dump();
    case Body::kContentBlocks:
      return reply({{"role", "assistant"},
                    {"content", Json::array({{{"type", "thinking"}, {"thinking", "x"}},
                                             {{"type", "text"}, {"text", text}}})}})
          .dump();
    case Body::kFlatMessage:
      return Json{{"message", text}}.dump();
    case Body::kObjectError:
      return Json{{"object", "error"}, {"message", text}, {"code", 400}}.dump();
    case Body::kErrorArray:
      return Json::array({{{"error", {{"code", 429}, {"message", text}}}}}).dump();
    case Body::kErrorObject:
      return Json{{"error", {{"message", text}, {"code", 502}}}}.dump();
    case Body::kHtml:
      return "<html><body>502 Bad Gateway</body></html>";
    case Body::kDetail:
      return Json{{"detail", text}}.dump();
    case Body::kContentFilter:
      break;
  }
  Json b = reply(message);
  b["choices"][0]["content_filter_results"] = {{"hate", {{"filtered", false}}}};
  b["prompt_filter_results"] = Json::array();
  return b.dump();
}

}  // namespace

rc::Gen<Json> WireAccumulateInput() {
  return gen::map(ChatStream(), [](std::string s) { return Json{{"stream", std::move(s)}}; });
}

rc::Gen<Json> WireDialectInput() {
  auto body =
      gen::apply(&BodyText,
                 gen::element(Body::kPlain, Body::kReasoningContent, Body::kContentBlocks,
                              Body::kFlatMessage, Body::kObjectError, Body::kErrorArray,
                              Body::kErrorObject, Body::kHtml, Body::kDetail, Body::kContentFilter),
                 gen::resize(6, Text()));
  return gen::weightedOneOf<Json>(
      {{3, WireAccumulateInput()},
       {2, gen::apply(
               [](std::string b, std::optional<int> status) {
                 Json in{{"body", std::move(b)}};
                 if (status) in["status"] = *status;
                 return in;
               },
               body, Opt(gen::element(200, 200, 400, 429, 500, 502)))}});
}

}  // namespace llmconform::harness::difftest
