#include "harness/difftest/responses_generator.h"

#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/difftest/gen_text.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

enum class ItemKind { kMessage, kFunctionCall, kReasoning, kWebSearchCall };
enum class ItemFlaw {
  kNone,
  kNoAdded,        // no response.output_item.added
  kNoCallId,       // a function call without call_id
  kDeltasDiffer,   // deltas that do not join to their .done
  kIndexOutOfStep  // an output_index out of step
};

// One output item before it is written: its kind and a departure.
struct Item {
  ItemKind kind = ItemKind::kMessage;
  std::string text;
  ItemFlaw flaw = ItemFlaw::kNone;
};

// A departure of the whole stream.
enum class StreamFlaw {
  kNone,
  kNoSequenceNumber,
  kSequenceGap,
  kUnnamedEvents,
  kNameDiffers,    // an event name that differs from its type
  kNoModel,        // no model at the end
  kOutputDiffers,  // an end whose output differs
  kNoEnd,
  kEventAfterEnd,
  kNotCreatedFirst,
  kDataNotJson,
  kStatusDiffers,  // an end whose status is not its event's
  kNoUsage,        // an end whose response has no usage
  kDoneSentinel,   // Chat Completions' `data: [DONE]` after the end
};
// How the stream ends.
enum class End { kCompleted, kIncomplete, kFailed, kErrorEvent };
// A non-streamed body.
enum class BodyShape { kResponse, kNoModel, kNoUsage, kError, kArray };

// Writes events, numbering them; `flaw` on the whole stream.
class ResponsesWriter {
 public:
  explicit ResponsesWriter(StreamFlaw flaw) : flaw_(flaw) {}
  void Add(Json data) {
    const std::string type = data["type"];
    if (flaw_ != StreamFlaw::kNoSequenceNumber)
      data["sequence_number"] = flaw_ == StreamFlaw::kSequenceGap && seq_ > 2 ? seq_ + 1 : seq_;
    ++seq_;
    if (flaw_ != StreamFlaw::kUnnamedEvents)
      out_ +=
          "event: " + (flaw_ == StreamFlaw::kNameDiffers && seq_ == 2 ? std::string("x") : type) +
          "\n";
    out_ += "data: " + data.dump() + "\n\n";
  }
  std::string out_;

 private:
  StreamFlaw flaw_;
  int seq_ = 0;
};

Json ItemJson(const Item& it, const std::string& id, bool done) {
  const std::string text = done ? it.text : "";
  switch (it.kind) {
    case ItemKind::kMessage:
      return {{"type", "message"},
              {"id", id},
              {"role", "assistant"},
              {"content", done ? Json{{{"type", "output_text"}, {"text", text}}} : Json::array()}};
    case ItemKind::kFunctionCall: {
      Json j{{"type", "function_call"},
             {"id", id},
             {"call_id", "call_" + id},
             {"name", "lookup"},
             {"arguments", done ? Json{{"q", it.text}}.dump() : ""}};
      if (it.flaw == ItemFlaw::kNoCallId) j.erase("call_id");
      return j;
    }
    case ItemKind::kReasoning:
      return {{"type", "reasoning"},
              {"id", id},
              {"summary", done ? Json{{{"type", "summary_text"}, {"text", text}}} : Json::array()},
              {"encrypted_content", "gAAA=="}};
    case ItemKind::kWebSearchCall:
      break;
  }
  return {{"type", "web_search_call"}, {"id", id}, {"status", done ? "completed" : "in_progress"}};
}

void WriteItem(ResponsesWriter& w, const Item& it, int index) {
  const std::string id = "it_" + std::to_string(index);
  const int out_index = it.flaw == ItemFlaw::kIndexOutOfStep ? index + 1 : index;
  const Json head{{"item_id", id}, {"output_index", out_index}};
  auto event = [&](const char* type, Json more) {
    Json j = head;
    j["type"] = type;
    j.update(more);
    w.Add(std::move(j));
  };
  if (it.flaw != ItemFlaw::kNoAdded)
    event("response.output_item.added", {{"item", ItemJson(it, id, false)}});
  const std::size_t half = Utf8Prefix(it.text, it.text.size() / 2);  // not inside a code point
  const std::string a = it.text.substr(0, half), b = it.text.substr(half);
  const std::string done_text = it.flaw == ItemFlaw::kDeltasDiffer ? it.text + "!" : it.text;
  if (it.kind == ItemKind::kMessage) {
    event("response.content_part.added",
          {{"content_index", 0}, {"part", {{"type", "output_text"}, {"text", ""}}}});
    for (const auto& d : {a, b})
      event("response.output_text.delta", {{"content_index", 0}, {"delta", d}});
    event("response.output_text.done", {{"content_index", 0}, {"text", done_text}});
    event("response.content_part.done", {{"content_index", 0}});
  } else if (it.kind == ItemKind::kFunctionCall) {
    const std::string args = Json{{"q", it.text}}.dump();
    for (const auto& d : {args.substr(0, 3), args.substr(3)})
      event("response.function_call_arguments.delta", {{"delta", d}});
    event("response.function_call_arguments.done",
          {{"arguments", it.flaw == ItemFlaw::kDeltasDiffer ? args + " " : args}});
  } else if (it.kind == ItemKind::kReasoning) {
    event("response.reasoning_summary_part.added",
          {{"summary_index", 0}, {"part", {{"type", "summary_text"}, {"text", ""}}}});
    for (const auto& d : {a, b})
      event("response.reasoning_summary_text.delta", {{"summary_index", 0}, {"delta", d}});
    event("response.reasoning_summary_text.done", {{"summary_index", 0}, {"text", done_text}});
  } else {
    event("response.web_search_call.searching", Json::object());
  }
  event("response.output_item.done", {{"item", ItemJson(it, id, true)}});
}

Json Response(const std::string& status, const Json& output, StreamFlaw flaw) {
  Json r{{"id", "resp_1"},
         {"object", "response"},
         {"status", status},
         {"model", "gpt-x"},
         {"output", output},
         {"usage", {{"input_tokens", 3}, {"output_tokens", 5}, {"total_tokens", 8}}}};
  if (flaw == StreamFlaw::kNoModel) r.erase("model");
  if (flaw == StreamFlaw::kNoUsage) r.erase("usage");
  if (flaw == StreamFlaw::kStatusDiffers) r["status"] = "in_progress";
  if (flaw == StreamFlaw::kOutputDiffers) r["output"] = Json::array();
  if (status == "incomplete") r["incomplete_details"] = {{"reason", "max_output_tokens"}};
  if (status == "failed") r["error"] = {{"code", "server_error"}, {"message", "failed"}};
  return r;
}

std::string WriteStream(const std::vector<Item>& items, End end, StreamFlaw flaw) {
  ResponsesWriter w(flaw);
  Json output = Json::array();
  const Json opening = Response("in_progress", Json::array(), StreamFlaw::kNone);
  if (flaw != StreamFlaw::kNotCreatedFirst)
    w.Add({{"type", "response.created"}, {"response", opening}});
  w.Add({{"type", "response.in_progress"}, {"response", opening}});
  for (std::size_t i = 0; i < items.size(); ++i) {
    WriteItem(w, items[i], static_cast<int>(i));
    output.push_back(ItemJson(items[i], "it_" + std::to_string(i), true));
    if (flaw == StreamFlaw::kDataNotJson && i == 0) w.out_ += "data: {\"type\":\n\n";
  }
  static const char* const kEnds[] = {"completed", "incomplete", "failed"};
  if (flaw == StreamFlaw::kNoEnd) return w.out_;
  if (end == End::kErrorEvent) {
    w.Add({{"type", "error"},
           {"code", "server_error"},
           {"message", "The server had an error"},
           {"param", nullptr}});
  } else {
    const char* name = kEnds[static_cast<int>(end)];
    w.Add({{"type", std::string("response.") + name}, {"response", Response(name, output, flaw)}});
  }
  if (flaw == StreamFlaw::kEventAfterEnd)
    w.Add({{"type", "response.in_progress"}, {"response", Json::object()}});
  if (flaw == StreamFlaw::kDoneSentinel) w.out_ += "data: [DONE]\n\n";
  return w.out_;
}

}  // namespace

rc::Gen<Json> ResponsesAccumulateInput() {
  auto item = gen::apply(
      [](ItemKind kind, std::string text, ItemFlaw flaw) {
        return Item{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<ItemKind>({{4, gen::just(ItemKind::kMessage)},
                                    {3, gen::just(ItemKind::kFunctionCall)},
                                    {2, gen::just(ItemKind::kReasoning)},
                                    {1, gen::just(ItemKind::kWebSearchCall)}}),
      gen::resize(8, Text()),
      gen::weightedElement<ItemFlaw>({{6, ItemFlaw::kNone},
                                      {1, ItemFlaw::kNoAdded},
                                      {1, ItemFlaw::kNoCallId},
                                      {1, ItemFlaw::kDeltasDiffer},
                                      {1, ItemFlaw::kIndexOutOfStep}}));
  auto stream = gen::apply(
      [](std::vector<Item> items, End end, StreamFlaw flaw) {
        return Json{{"stream", WriteStream(items, end, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Item>>(item)),
      gen::weightedElement<End>(
          {{6, End::kCompleted}, {1, End::kIncomplete}, {1, End::kFailed}, {1, End::kErrorEvent}}),
      gen::weightedOneOf<StreamFlaw>(
          {{10, gen::just(StreamFlaw::kNone)},
           {10, gen::element(StreamFlaw::kNoSequenceNumber, StreamFlaw::kSequenceGap,
                             StreamFlaw::kUnnamedEvents, StreamFlaw::kNameDiffers,
                             StreamFlaw::kNoModel, StreamFlaw::kOutputDiffers, StreamFlaw::kNoEnd,
                             StreamFlaw::kEventAfterEnd, StreamFlaw::kNotCreatedFirst,
                             StreamFlaw::kDataNotJson, StreamFlaw::kStatusDiffers,
                             StreamFlaw::kNoUsage, StreamFlaw::kDoneSentinel)}}));
  auto body = gen::apply(
      [](std::vector<Item> items, BodyShape shape) {
        Json output = Json::array();
        for (std::size_t i = 0; i < items.size(); ++i)
          output.push_back(ItemJson(items[i], "it_" + std::to_string(i), true));
        switch (shape) {
          case BodyShape::kResponse:
            return Json{{"body", Response("completed", output, StreamFlaw::kNone)}};
          case BodyShape::kNoModel:
            return Json{{"body", Response("completed", output, StreamFlaw::kNoModel)}};
          case BodyShape::kNoUsage:
            return Json{{"body", Response("completed", output, StreamFlaw::kNoUsage)}};
          case BodyShape::kError:
            return Json{{"body",
                         {{"error",
                           {{"message", "Invalid model"},
                            {"type", "invalid_request_error"},
                            {"param", "model"},
                            {"code", nullptr}}}}}};
          case BodyShape::kArray:
            break;
        }
        return Json{{"body", Json::array()}};
      },
      gen::resize(3, gen::container<std::vector<Item>>(item)),
      gen::element(BodyShape::kResponse, BodyShape::kNoModel, BodyShape::kNoUsage,
                   BodyShape::kError, BodyShape::kArray));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::difftest
