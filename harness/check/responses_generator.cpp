#include "harness/check/responses_generator.h"

#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/check/gen_text.h"

namespace llmconform::harness::check {
namespace {

namespace gen = rc::gen;

// One output item before it is written: its kind and, at `flaw`, a departure.
struct Item {
  int kind = 0;  // 0 message, 1 function call, 2 reasoning, 3 web_search_call
  std::string text;
  int flaw = 0;  // 0-5 none; 6 no .added; 7 no call_id; 8 deltas differ from .done; 9 bad index
};

// Writes events, numbering them; `flaw` on the whole stream.
class Writer {
 public:
  explicit Writer(int flaw) : flaw_(flaw) {}
  void Add(Json data) {
    const std::string type = data["type"];
    if (flaw_ != 1) data["sequence_number"] = flaw_ == 2 && seq_ > 2 ? seq_ + 1 : seq_;
    ++seq_;
    if (flaw_ != 3) out_ += "event: " + (flaw_ == 4 && seq_ == 2 ? std::string("x") : type) + "\n";
    out_ += "data: " + data.dump() + "\n\n";
  }
  std::string out_;

 private:
  int flaw_;
  int seq_ = 0;
};

Json ItemJson(const Item& it, const std::string& id, bool done) {
  const std::string text = done ? it.text : "";
  switch (it.kind) {
    case 0:
      return {{"type", "message"},
              {"id", id},
              {"role", "assistant"},
              {"content", done ? Json{{{"type", "output_text"}, {"text", text}}} : Json::array()}};
    case 1: {
      Json j{{"type", "function_call"},
             {"id", id},
             {"call_id", "call_" + id},
             {"name", "lookup"},
             {"arguments", done ? Json{{"q", it.text}}.dump() : ""}};
      if (it.flaw == 7) j.erase("call_id");
      return j;
    }
    case 2:
      return {{"type", "reasoning"},
              {"id", id},
              {"summary", done ? Json{{{"type", "summary_text"}, {"text", text}}} : Json::array()},
              {"encrypted_content", "gAAA=="}};
    default:
      return {
          {"type", "web_search_call"}, {"id", id}, {"status", done ? "completed" : "in_progress"}};
  }
}

void WriteItem(Writer& w, const Item& it, int index) {
  const std::string id = "it_" + std::to_string(index);
  const int out_index = it.flaw == 9 ? index + 1 : index;
  const Json head{{"item_id", id}, {"output_index", out_index}};
  auto event = [&](const char* type, Json more) {
    Json j = head;
    j["type"] = type;
    j.update(more);
    w.Add(std::move(j));
  };
  if (it.flaw != 6) event("response.output_item.added", {{"item", ItemJson(it, id, false)}});
  const std::size_t half = Utf8Prefix(it.text, it.text.size() / 2);  // not inside a code point
  const std::string a = it.text.substr(0, half), b = it.text.substr(half);
  const std::string done_text = it.flaw == 8 ? it.text + "!" : it.text;
  if (it.kind == 0) {
    event("response.content_part.added",
          {{"content_index", 0}, {"part", {{"type", "output_text"}, {"text", ""}}}});
    for (const auto& d : {a, b})
      event("response.output_text.delta", {{"content_index", 0}, {"delta", d}});
    event("response.output_text.done", {{"content_index", 0}, {"text", done_text}});
    event("response.content_part.done", {{"content_index", 0}});
  } else if (it.kind == 1) {
    const std::string args = Json{{"q", it.text}}.dump();
    for (const auto& d : {args.substr(0, 3), args.substr(3)})
      event("response.function_call_arguments.delta", {{"delta", d}});
    event("response.function_call_arguments.done",
          {{"arguments", it.flaw == 8 ? args + " " : args}});
  } else if (it.kind == 2) {
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

Json Response(const std::string& status, const Json& output, int flaw) {
  Json r{{"id", "resp_1"},
         {"object", "response"},
         {"status", status},
         {"model", "gpt-x"},
         {"output", output},
         {"usage", {{"input_tokens", 3}, {"output_tokens", 5}, {"total_tokens", 8}}}};
  if (flaw == 5) r.erase("model");
  if (flaw == 11) r["status"] = "in_progress";
  if (flaw == 6) r["output"] = Json::array();
  if (status == "incomplete") r["incomplete_details"] = {{"reason", "max_output_tokens"}};
  if (status == "failed") r["error"] = {{"code", "server_error"}, {"message", "failed"}};
  return r;
}

// flaw: 0 none, 1 no sequence_number, 2 a gap, 3 unnamed events, 4 a name that
// differs, 5 no model at the end, 6 an end whose output differs, 7 no end,
// 8 an event after the end, 9 not created first, 10 data not JSON, 11 an end
// whose status is not its event's.
std::string WriteStream(const std::vector<Item>& items, int end, int flaw) {
  Writer w(flaw);
  Json output = Json::array();
  if (flaw != 9)
    w.Add({{"type", "response.created"}, {"response", Response("in_progress", Json::array(), 0)}});
  w.Add(
      {{"type", "response.in_progress"}, {"response", Response("in_progress", Json::array(), 0)}});
  for (std::size_t i = 0; i < items.size(); ++i) {
    WriteItem(w, items[i], static_cast<int>(i));
    output.push_back(ItemJson(items[i], "it_" + std::to_string(i), true));
    if (flaw == 10 && i == 0) w.out_ += "data: {\"type\":\n\n";
  }
  static const char* const kEnds[] = {"completed", "incomplete", "failed"};
  if (flaw == 7) return w.out_;
  if (end == 3) {
    w.Add({{"type", "error"},
           {"code", "server_error"},
           {"message", "The server had an error"},
           {"param", nullptr}});
  } else {
    w.Add({{"type", std::string("response.") + kEnds[end]},
           {"response", Response(kEnds[end], output, flaw)}});
  }
  if (flaw == 8) w.Add({{"type", "response.in_progress"}, {"response", Json::object()}});
  return w.out_;
}

}  // namespace

rc::Gen<Json> ResponsesAccumulateInput() {
  auto item = gen::apply(
      [](int kind, std::string text, int flaw) {
        return Item{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<int>(
          {{4, gen::just(0)}, {3, gen::just(1)}, {2, gen::just(2)}, {1, gen::just(3)}}),
      gen::resize(8, Text()),
      // gen::element, not gen::inRange: inside gen::resize the latter reaches only its low end.
      gen::element(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  auto stream = gen::apply(
      [](std::vector<Item> items, int end, int flaw) {
        return Json{{"stream", WriteStream(items, end, flaw)}};
      },
      gen::resize(5, gen::container<std::vector<Item>>(item)),
      gen::weightedOneOf<int>(
          {{6, gen::just(0)}, {1, gen::just(1)}, {1, gen::just(2)}, {1, gen::just(3)}}),
      gen::weightedOneOf<int>(
          {{10, gen::just(0)}, {10, gen::element(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)}}));
  auto body = gen::apply(
      [](std::vector<Item> items, int shape) {
        Json output = Json::array();
        for (std::size_t i = 0; i < items.size(); ++i)
          output.push_back(ItemJson(items[i], "it_" + std::to_string(i), true));
        switch (shape) {
          case 0:
            return Json{{"body", Response("completed", output, 0)}};
          case 1:
            return Json{{"body", Response("completed", output, 5)}};
          case 2:
            return Json{{"body",
                         {{"error",
                           {{"message", "Invalid model"},
                            {"type", "invalid_request_error"},
                            {"param", "model"},
                            {"code", nullptr}}}}}};
          default:
            return Json{{"body", Json::array()}};
        }
      },
      gen::resize(3, gen::container<std::vector<Item>>(item)), gen::inRange(0, 4));
  return gen::weightedOneOf<Json>({{5, stream}, {1, body}});
}

}  // namespace llmconform::harness::check
