#include "harness/check/messages_generator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/check/gen_text.h"

namespace llmconform::harness::check {
namespace {

namespace gen = rc::gen;

// One content block before it is written: its kind and, at `flaw`, a departure.
struct Block {
  int kind = 0;  // 0 text, 1 tool_use, 2 thinking, 3 server tool call and its result
  std::string text;
  // 0-5 none; 6 no content_block_start; 7 a delta of another block's type;
  // 8 tool input no JSON object (a text block: a delta without its text);
  // 9 an index out of step; 10 never closed.
  int flaw = 0;
};

// Writes events; `flaw` on the whole stream (see WriteStream).
class Writer {
 public:
  explicit Writer(int flaw) : flaw_(flaw) {}
  void Add(const Json& data) {
    const std::string type = data["type"];
    ++n_;
    if (flaw_ != 1) out_ += "event: " + (flaw_ == 2 && n_ == 2 ? std::string("x") : type) + "\n";
    out_ += "data: " + data.dump() + "\n\n";
  }
  std::string out_;

 private:
  int flaw_;
  int n_ = 0;
};

Json StartBlock(const Block& b, int index) {
  const std::string id = "toolu_" + std::to_string(index);
  switch (b.kind) {
    case 0:
      return {{"type", "text"}, {"text", ""}};
    case 1:
      return {{"type", "tool_use"}, {"id", id}, {"name", "lookup"}, {"input", Json::object()}};
    case 2:
      return {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
    default:
      return {{"type", "server_tool_use"},
              {"id", "srv" + id},
              {"name", "web_search"},
              {"input", Json::object()}};
  }
}

void WriteBlock(Writer& w, const Block& b, int index) {
  const int at = b.flaw == 9 ? index + 1 : index;
  auto delta = [&](const Json& d) {
    w.Add({{"type", "content_block_delta"}, {"index", at}, {"delta", d}});
  };
  if (b.flaw != 6)
    w.Add(
        {{"type", "content_block_start"}, {"index", at}, {"content_block", StartBlock(b, index)}});
  const std::size_t half = Utf8Prefix(b.text, b.text.size() / 2);  // not inside a code point
  const std::string first = b.text.substr(0, half), second = b.text.substr(half);
  if (b.flaw == 7) delta({{"type", b.kind == 0 ? "thinking_delta" : "text_delta"}, {"text", "x"}});
  if (b.kind == 0) {
    for (const auto& d : {first, second}) delta({{"type", "text_delta"}, {"text", d}});
    if (b.flaw == 8) delta({{"type", "text_delta"}});
  } else if (b.kind == 2) {
    for (const auto& d : {first, second}) delta({{"type", "thinking_delta"}, {"thinking", d}});
    delta({{"type", "signature_delta"}, {"signature", "EqQBCgIYAh"}});
  } else {
    const std::string input =
        b.flaw == 8 ? Json::array({b.text}).dump() : Json{{"q", b.text}}.dump();
    const std::size_t cut = Utf8Prefix(input, 3);  // not inside a code point
    for (const auto& d : {input.substr(0, cut), input.substr(cut)})
      delta({{"type", "input_json_delta"}, {"partial_json", d}});
  }
  if (b.flaw != 10) w.Add({{"type", "content_block_stop"}, {"index", at}});
  if (b.kind == 3) {
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

// flaw: 0 none, 1 unnamed events, 2 a name that differs, 3 no message_start,
// 4 no usage on message_start, 5 an undocumented stop_reason, 6 no end, 7 an
// event after the end, 8 data not JSON. end: 0 end_turn, 1 max_tokens, 2 an
// error event.
std::string WriteStream(const std::vector<Block>& blocks, int end, int flaw) {
  Writer w(flaw);
  Json message{{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", "claude-x"},
               {"content", Json::array()},
               {"stop_reason", nullptr},
               {"usage", {{"input_tokens", 3}, {"output_tokens", 1}}}};
  if (flaw == 4) message.erase("usage");
  if (flaw != 3) w.Add({{"type", "message_start"}, {"message", message}});
  w.Add({{"type", "ping"}});
  int index = 0;
  for (const Block& b : blocks) {
    WriteBlock(w, b, index);
    index += b.kind == 3 ? 2 : 1;
    if (flaw == 8 && index <= 2) w.out_ += "data: {\"type\":\n\n";
  }
  if (flaw == 6) return w.out_;
  if (end == 2) {
    w.Add(
        {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  } else {
    const bool tools =
        std::any_of(blocks.begin(), blocks.end(), [](const Block& b) { return b.kind == 1; });
    const std::string reason = flaw == 5  ? "done"
                               : end == 1 ? "max_tokens"
                               : tools    ? "tool_use"
                                          : "end_turn";
    w.Add({{"type", "message_delta"},
           {"delta", {{"stop_reason", reason}, {"stop_sequence", nullptr}}},
           {"usage", {{"output_tokens", 5}}}});
    w.Add({{"type", "message_stop"}});
  }
  if (flaw == 7) w.Add({{"type", "ping"}});
  return w.out_;
}

Json BodyBlock(const Block& b, int index) {
  Json j = StartBlock(b, index);
  if (b.kind == 0) j["text"] = b.text;
  if (b.kind == 1 || b.kind == 3) j["input"] = {{"q", b.text}};
  if (b.kind == 2) j["thinking"] = b.text, j["signature"] = "EqQBCgIYAh";
  return j;
}

}  // namespace

rc::Gen<Json> MessagesAccumulateInput() {
  auto block = gen::apply(
      [](int kind, std::string text, int flaw) {
        return Block{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<int>(
          {{4, gen::just(0)}, {3, gen::just(1)}, {2, gen::just(2)}, {1, gen::just(3)}}),
      gen::resize(8, Text()),
      // gen::element, not gen::inRange: inside gen::resize the latter reaches only its low end.
      gen::element(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  auto stream = gen::apply(
      [](std::vector<Block> blocks, int end, int flaw) {
        return Json{{"stream", WriteStream(blocks, end, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Block>>(block)),
      gen::weightedOneOf<int>({{6, gen::just(0)}, {1, gen::just(1)}, {1, gen::just(2)}}),
      gen::weightedOneOf<int>({{10, gen::just(0)}, {10, gen::element(1, 2, 3, 4, 5, 6, 7, 8)}}));
  auto body = gen::apply(
      [](std::vector<Block> blocks, int shape) {
        Json content = Json::array();
        for (std::size_t i = 0; i < blocks.size(); ++i)
          content.push_back(BodyBlock(blocks[i], static_cast<int>(i)));
        Json message{{"id", "msg_2"},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", "claude-x"},
                     {"content", content},
                     {"stop_reason", "end_turn"},
                     {"stop_sequence", nullptr},
                     {"usage", {{"input_tokens", 3}, {"output_tokens", 5}}}};
        switch (shape) {
          case 0:
            return Json{{"body", message}};
          case 1:
            message.erase("usage");
            return Json{{"body", message}};
          case 2:
            return Json{{"body",
                         {{"type", "error"},
                          {"error",
                           {{"type", "invalid_request_error"},
                            {"message", "max_tokens: Field required"}}}}}};
          default:
            return Json{{"body", Json::array()}};
        }
      },
      gen::resize(3, gen::container<std::vector<Block>>(block)), gen::element(0, 1, 2, 3));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::check
