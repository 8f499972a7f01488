#include "harness/difftest/messages_generator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/difftest/gen_text.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

enum class BlockKind { kText, kToolUse, kThinking, kServerTool };  // kServerTool: and its result
enum class BlockFlaw {
  kNone,
  kNoStart,         // no content_block_start
  kOtherDelta,      // a delta of another block's type
  kInputNotObject,  // tool input no JSON object (a text block: a delta without its text)
  kIndexOutOfStep,
  kNeverClosed,
  // Dialect departures the MSG-* rules do not forbid (specs/wire/dialects.json):
  kInputAtStart,           // tool_use: the whole input in its start, no delta
  kInputWholeDelta,        // tool_use: the whole input in one input_json_delta
  kNoSignature,            // thinking: an empty signature and no signature_delta
  kStartWithoutSignature,  // thinking: no `signature` member in its start
};

// One content block before it is written: its kind and a departure.
struct Block {
  BlockKind kind = BlockKind::kText;
  std::string text;
  BlockFlaw flaw = BlockFlaw::kNone;
};

// A departure of the whole stream.
enum class MessagesStreamFlaw {
  kNone,
  kUnnamedEvents,
  kNameDiffers,  // an event name that differs from its type
  kNoMessageStart,
  kNoUsage,  // no usage on message_start
  kUnknownStopReason,
  kNoEnd,
  kEventAfterEnd,
  kDataNotJson,
  kStartUsageZero,  // message_start's usage all zeros (a dialect's, no rule's)
};
// How the stream ends.
enum class MessagesEnd { kEndTurn, kMaxTokens, kError };
// A non-streamed body.
enum class MessagesBodyShape {
  kMessage,
  kNoUsage,
  kError,
  kArray,
  kOpenAiError,       // an error in OpenAI's envelope (a dialect's)
  kUnsignedThinking,  // thinking blocks with an empty signature (a dialect's)
};

// Writes events, with `flaw` on the whole stream.
class MessagesWriter {
 public:
  explicit MessagesWriter(MessagesStreamFlaw flaw) : flaw_(flaw) {}
  void Add(const Json& data) {
    const std::string type = data["type"];
    ++n_;
    if (flaw_ != MessagesStreamFlaw::kUnnamedEvents)
      out_ += "event: " +
              (flaw_ == MessagesStreamFlaw::kNameDiffers && n_ == 2 ? std::string("x") : type) +
              "\n";
    out_ += "data: " + data.dump() + "\n\n";
  }
  std::string out_;

 private:
  MessagesStreamFlaw flaw_;
  int n_ = 0;
};

Json ToolInput(const Block& b) {
  return b.flaw == BlockFlaw::kInputNotObject ? Json::array({b.text}) : Json{{"q", b.text}};
}

Json StartBlock(const Block& b, int index) {
  const std::string id = "toolu_" + std::to_string(index);
  switch (b.kind) {
    case BlockKind::kText:
      return {{"type", "text"}, {"text", ""}};
    case BlockKind::kToolUse:
      return {{"type", "tool_use"},
              {"id", id},
              {"name", "lookup"},
              {"input", b.flaw == BlockFlaw::kInputAtStart ? ToolInput(b) : Json::object()}};
    case BlockKind::kThinking:
      if (b.flaw == BlockFlaw::kStartWithoutSignature)
        return {{"type", "thinking"}, {"thinking", ""}};
      return {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
    case BlockKind::kServerTool:
      break;
  }
  return {{"type", "server_tool_use"},
          {"id", "srv" + id},
          {"name", "web_search"},
          {"input", Json::object()}};
}

void WriteBlock(MessagesWriter& w, const Block& b, int index) {
  const int at = b.flaw == BlockFlaw::kIndexOutOfStep ? index + 1 : index;
  auto delta = [&](const Json& d) {
    w.Add({{"type", "content_block_delta"}, {"index", at}, {"delta", d}});
  };
  if (b.flaw != BlockFlaw::kNoStart)
    w.Add(
        {{"type", "content_block_start"}, {"index", at}, {"content_block", StartBlock(b, index)}});
  const std::size_t half = Utf8Prefix(b.text, b.text.size() / 2);  // not inside a code point
  const std::string first = b.text.substr(0, half), second = b.text.substr(half);
  if (b.flaw == BlockFlaw::kOtherDelta)
    delta({{"type", b.kind == BlockKind::kText ? "thinking_delta" : "text_delta"}, {"text", "x"}});
  if (b.kind == BlockKind::kText) {
    for (const auto& d : {first, second}) delta({{"type", "text_delta"}, {"text", d}});
    if (b.flaw == BlockFlaw::kInputNotObject) delta({{"type", "text_delta"}});
  } else if (b.kind == BlockKind::kThinking) {
    for (const auto& d : {first, second}) delta({{"type", "thinking_delta"}, {"thinking", d}});
    if (b.flaw != BlockFlaw::kNoSignature)
      delta({{"type", "signature_delta"}, {"signature", "EqQBCgIYAh"}});
  } else if (b.kind == BlockKind::kServerTool || b.flaw != BlockFlaw::kInputAtStart) {
    const std::string input = ToolInput(b).dump();
    const std::size_t cut =
        b.flaw == BlockFlaw::kInputWholeDelta ? input.size() : Utf8Prefix(input, 3);
    for (const auto& d : {input.substr(0, cut), input.substr(cut)})
      if (!d.empty() || b.flaw != BlockFlaw::kInputWholeDelta)
        delta({{"type", "input_json_delta"}, {"partial_json", d}});
  }
  if (b.flaw != BlockFlaw::kNeverClosed) w.Add({{"type", "content_block_stop"}, {"index", at}});
  if (b.kind == BlockKind::kServerTool) {
    const int next = at + 1;
    w.Add({{"type", "content_block_start"},
           {"index", next},
           {"content_block",
            {{"type", "web_search_tool_result"},
             {"tool_use_id", "srvtoolu_" + std::to_string(index)},
             {"content", Json::array()}}}});
    w.Add({{"type", "content_block_stop"}, {"index", next}});
  }
}

std::string WriteStream(const std::vector<Block>& blocks, MessagesEnd end,
                        MessagesStreamFlaw flaw) {
  MessagesWriter w(flaw);
  Json message{{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", "claude-x"},
               {"content", Json::array()},
               {"stop_reason", nullptr},
               {"usage", {{"input_tokens", 3}, {"output_tokens", 1}}}};
  if (flaw == MessagesStreamFlaw::kNoUsage) message.erase("usage");
  if (flaw == MessagesStreamFlaw::kStartUsageZero)
    message["usage"] = {{"input_tokens", 0}, {"output_tokens", 0}};
  if (flaw != MessagesStreamFlaw::kNoMessageStart)
    w.Add({{"type", "message_start"}, {"message", message}});
  w.Add({{"type", "ping"}});
  int index = 0;
  for (const Block& b : blocks) {
    WriteBlock(w, b, index);
    index += b.kind == BlockKind::kServerTool ? 2 : 1;
    if (flaw == MessagesStreamFlaw::kDataNotJson && index <= 2) w.out_ += "data: {\"type\":\n\n";
  }
  if (flaw == MessagesStreamFlaw::kNoEnd) return w.out_;
  if (end == MessagesEnd::kError) {
    w.Add(
        {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  } else {
    const bool tools = std::any_of(blocks.begin(), blocks.end(),
                                   [](const Block& b) { return b.kind == BlockKind::kToolUse; });
    const std::string reason = flaw == MessagesStreamFlaw::kUnknownStopReason ? "done"
                               : end == MessagesEnd::kMaxTokens               ? "max_tokens"
                               : tools                                        ? "tool_use"
                                                                              : "end_turn";
    w.Add({{"type", "message_delta"},
           {"delta", {{"stop_reason", reason}, {"stop_sequence", nullptr}}},
           {"usage", {{"output_tokens", 5}}}});
    w.Add({{"type", "message_stop"}});
  }
  if (flaw == MessagesStreamFlaw::kEventAfterEnd) w.Add({{"type", "ping"}});
  return w.out_;
}

Json BodyBlock(const Block& b, int index, bool unsigned_thinking) {
  Json j = StartBlock(b, index);
  if (b.kind == BlockKind::kText) j["text"] = b.text;
  if (b.kind == BlockKind::kToolUse || b.kind == BlockKind::kServerTool)
    j["input"] = {{"q", b.text}};
  if (b.kind == BlockKind::kThinking) j["thinking"] = b.text, j["signature"] = "EqQBCgIYAh";
  if (b.kind == BlockKind::kThinking && (b.flaw == BlockFlaw::kNoSignature || unsigned_thinking))
    j["signature"] = "";
  return j;
}

}  // namespace

rc::Gen<Json> MessagesAccumulateInput() {
  auto block = gen::apply(
      [](BlockKind kind, std::string text, BlockFlaw flaw) {
        return Block{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<BlockKind>({{4, gen::just(BlockKind::kText)},
                                     {3, gen::just(BlockKind::kToolUse)},
                                     {2, gen::just(BlockKind::kThinking)},
                                     {1, gen::just(BlockKind::kServerTool)}}),
      gen::resize(8, Text()),
      gen::weightedElement<BlockFlaw>({{6, BlockFlaw::kNone},
                                       {1, BlockFlaw::kNoStart},
                                       {1, BlockFlaw::kOtherDelta},
                                       {1, BlockFlaw::kInputNotObject},
                                       {1, BlockFlaw::kIndexOutOfStep},
                                       {1, BlockFlaw::kNeverClosed},
                                       {1, BlockFlaw::kInputAtStart},
                                       {1, BlockFlaw::kInputWholeDelta},
                                       {1, BlockFlaw::kNoSignature},
                                       {1, BlockFlaw::kStartWithoutSignature}}));
  auto stream = gen::apply(
      [](std::vector<Block> blocks, MessagesEnd end, MessagesStreamFlaw flaw) {
        return Json{{"stream", WriteStream(blocks, end, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Block>>(block)),
      gen::weightedElement<MessagesEnd>(
          {{6, MessagesEnd::kEndTurn}, {1, MessagesEnd::kMaxTokens}, {1, MessagesEnd::kError}}),
      gen::weightedOneOf<MessagesStreamFlaw>(
          {{10, gen::just(MessagesStreamFlaw::kNone)},
           {10, gen::element(MessagesStreamFlaw::kUnnamedEvents, MessagesStreamFlaw::kNameDiffers,
                             MessagesStreamFlaw::kNoMessageStart, MessagesStreamFlaw::kNoUsage,
                             MessagesStreamFlaw::kUnknownStopReason, MessagesStreamFlaw::kNoEnd,
                             MessagesStreamFlaw::kEventAfterEnd, MessagesStreamFlaw::kDataNotJson,
                             MessagesStreamFlaw::kStartUsageZero)}}));
  auto body = gen::apply(
      [](std::vector<Block> blocks, MessagesBodyShape shape) {
        Json content = Json::array();
        for (std::size_t i = 0; i < blocks.size(); ++i)
          content.push_back(BodyBlock(blocks[i], static_cast<int>(i),
                                      shape == MessagesBodyShape::kUnsignedThinking));
        Json message{{"id", "msg_2"},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", "claude-x"},
                     {"content", content},
                     {"stop_reason", "end_turn"},
                     {"stop_sequence", nullptr},
                     {"usage", {{"input_tokens", 3}, {"output_tokens", 5}}}};
        switch (shape) {
          case MessagesBodyShape::kMessage:
          case MessagesBodyShape::kUnsignedThinking:
            return Json{{"body", message}};
          case MessagesBodyShape::kOpenAiError:  // LiteLLM's, before its PR #39037
            return Json{{"body",
                         {{"error",
                           {{"message", "litellm.RateLimitError: rate limited"},
                            {"type", "None"},
                            {"param", "None"},
                            {"code", "429"}}}}}};
          case MessagesBodyShape::kNoUsage:
            message.erase("usage");
            return Json{{"body", message}};
          case MessagesBodyShape::kError:
            return Json{{"body",
                         {{"type", "error"},
                          {"error",
                           {{"type", "invalid_request_error"},
                            {"message", "max_tokens: Field required"}}}}}};
          case MessagesBodyShape::kArray:
            break;
        }
        return Json{{"body", Json::array()}};
      },
      gen::resize(3, gen::container<std::vector<Block>>(block)),
      gen::element(MessagesBodyShape::kMessage, MessagesBodyShape::kNoUsage,
                   MessagesBodyShape::kError, MessagesBodyShape::kArray,
                   MessagesBodyShape::kOpenAiError, MessagesBodyShape::kUnsignedThinking));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::difftest
