#include "protocols/wire/responses.h"

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

// Builds a Responses stream: each event named after its type, numbered from 0.
class ResponsesEvents {
 public:
  ResponsesEvents& Add(Json data) {
    const std::string type = data.value("type", "");
    if (!data.contains("sequence_number")) data["sequence_number"] = seq_;
    ++seq_;
    text_ += "event: " + type +
             "\ndata: " + data.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n\n";
    return *this;
  }
  ResponsesEvents& Raw(const std::string& s) {
    text_ += s;
    return *this;
  }
  ResponsesEvents& Created() {
    return Add({{"type", "response.created"}, {"response", Response("in_progress", {})}});
  }
  ResponsesEvents& Message(int index, const std::string& id,
                           const std::vector<std::string>& deltas) {
    std::string text;
    for (const auto& d : deltas) text += d;
    Add({{"type", "response.output_item.added"},
         {"output_index", index},
         {"item",
          {{"type", "message"}, {"id", id}, {"role", "assistant"}, {"content", Json::array()}}}});
    Add({{"type", "response.content_part.added"},
         {"item_id", id},
         {"output_index", index},
         {"content_index", 0},
         {"part", {{"type", "output_text"}, {"text", ""}}}});
    for (const auto& d : deltas)
      Add({{"type", "response.output_text.delta"},
           {"item_id", id},
           {"output_index", index},
           {"content_index", 0},
           {"delta", d}});
    Add({{"type", "response.output_text.done"},
         {"item_id", id},
         {"output_index", index},
         {"content_index", 0},
         {"text", text}});
    Add({{"type", "response.output_item.done"},
         {"output_index", index},
         {"item", MessageItem(id, text)}});
    return *this;
  }
  ResponsesEvents& Call(int index, const std::string& id, const std::string& call_id,
                        const std::string& name, const std::vector<std::string>& deltas) {
    std::string args;
    for (const auto& d : deltas) args += d;
    Add({{"type", "response.output_item.added"},
         {"output_index", index},
         {"item", CallItem(id, call_id, name, "")}});
    for (const auto& d : deltas)
      Add({{"type", "response.function_call_arguments.delta"},
           {"item_id", id},
           {"output_index", index},
           {"delta", d}});
    Add({{"type", "response.function_call_arguments.done"},
         {"item_id", id},
         {"output_index", index},
         {"arguments", args}});
    Add({{"type", "response.output_item.done"},
         {"output_index", index},
         {"item", CallItem(id, call_id, name, args)}});
    return *this;
  }
  // `output` as a vector: `{item}` would copy the item, not make an array of it.
  ResponsesEvents& Completed(const std::vector<Json>& output) {
    Json r = Response("completed", Json(output));
    r["usage"] = {{"input_tokens", 5}, {"output_tokens", 7}, {"total_tokens", 12}};
    return Add({{"type", "response.completed"}, {"response", r}});
  }
  const std::string& str() const { return text_; }

  static Json Response(const std::string& status, const Json& output) {
    return {{"id", "resp_1"},
            {"object", "response"},
            {"status", status},
            {"model", "gpt-x"},
            {"output", output.is_null() ? Json::array() : output},
            {"usage", nullptr}};
  }
  static Json MessageItem(const std::string& id, const std::string& text) {
    return {
        {"type", "message"},
        {"id", id},
        {"status", "completed"},
        {"role", "assistant"},
        {"content", {{{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}}}}};
  }
  static Json CallItem(const std::string& id, const std::string& call_id, const std::string& name,
                       const std::string& args) {
    return {{"type", "function_call"}, {"id", id},
            {"call_id", call_id},      {"name", name},
            {"arguments", args},       {"status", "completed"}};
  }

 private:
  std::string text_;
  int seq_ = 0;
};

std::vector<std::string> ResponsesRules(const CanonicalResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.rule);
  return out;
}

CanonicalResult AccumulateResponses(const std::string& s) {
  return AccumulateSurfaceStream(Surface::kResponses, s);
}

TEST(ResponsesStream, TextAccumulatesWithoutFindings) {
  ResponsesEvents s;
  s.Created()
      .Message(0, "msg_1", {"Hel", "lo"})
      .Completed({ResponsesEvents::MessageItem("msg_1", "Hello")});
  const auto r = AccumulateResponses(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  EXPECT_EQ(r.Text(), "Hello");
  EXPECT_EQ(r.status, "completed");
  EXPECT_EQ(r.id, "resp_1");
  EXPECT_EQ(r.model, "gpt-x");
  EXPECT_EQ(r.usage["total_tokens"], 12);
  EXPECT_TRUE(r.terminated);
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kMessage);
  EXPECT_EQ(r.items[0].id, "msg_1");
}

TEST(ResponsesStream, ParallelFunctionCallsKeepCallIdNameAndArgumentsAsSent) {
  ResponsesEvents s;
  s.Created()
      .Call(0, "fc_1", "call_a", "get_weather", {"{\"city\":", "\"Paris\"}"})
      .Call(1, "fc_2", "call_b", "get_time", {"{ \"tz\" : 1 }"})
      .Completed(
          {ResponsesEvents::CallItem("fc_1", "call_a", "get_weather", "{\"city\":\"Paris\"}"),
           ResponsesEvents::CallItem("fc_2", "call_b", "get_time", "{ \"tz\" : 1 }")});
  const auto r = AccumulateResponses(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  const auto calls = r.FunctionCalls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->call_id, "call_a");
  EXPECT_EQ(calls[0]->name, "get_weather");
  EXPECT_EQ(calls[0]->arguments, "{\"city\":\"Paris\"}");
  EXPECT_EQ(calls[1]->arguments, "{ \"tz\" : 1 }");  // spacing kept: not reparsed
}

TEST(ResponsesStream, ReasoningSummaryAndEncryptedContentAndOtherKindsAreKeptInOrder) {
  ResponsesEvents s;
  const Json reasoning{{"type", "reasoning"},
                       {"id", "rs_1"},
                       {"summary", {{{"type", "summary_text"}, {"text", "Thinking."}}}},
                       {"encrypted_content", "gAAAAB=="}};
  const Json search{{"type", "web_search_call"}, {"id", "ws_1"}, {"status", "completed"}};
  s.Created();
  s.Add({{"type", "response.output_item.added"},
         {"output_index", 0},
         {"item", {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", Json::array()}}}});
  s.Add({{"type", "response.reasoning_summary_part.added"},
         {"item_id", "rs_1"},
         {"output_index", 0},
         {"summary_index", 0},
         {"part", {{"type", "summary_text"}, {"text", ""}}}});
  s.Add({{"type", "response.reasoning_summary_text.delta"},
         {"item_id", "rs_1"},
         {"output_index", 0},
         {"summary_index", 0},
         {"delta", "Thinking."}});
  s.Add({{"type", "response.reasoning_summary_text.done"},
         {"item_id", "rs_1"},
         {"output_index", 0},
         {"summary_index", 0},
         {"text", "Thinking."}});
  s.Add({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", reasoning}});
  s.Add({{"type", "response.output_item.added"}, {"output_index", 1}, {"item", search}});
  s.Add({{"type", "response.web_search_call.searching"}, {"item_id", "ws_1"}, {"output_index", 1}});
  s.Add({{"type", "response.output_item.done"}, {"output_index", 1}, {"item", search}});
  s.Message(2, "msg_1", {"ok"});
  s.Completed({reasoning, search, ResponsesEvents::MessageItem("msg_1", "ok")});
  const auto r = AccumulateResponses(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kReasoning);
  EXPECT_EQ(r.items[0].summary, std::vector<std::string>{"Thinking."});
  EXPECT_EQ(r.items[0].encrypted, "gAAAAB==");
  EXPECT_EQ(r.items[1].kind, ItemKind::kOther);
  EXPECT_EQ(r.items[1].type, "web_search_call");
  EXPECT_EQ(r.items[1].raw, search);
  EXPECT_EQ(r.Reasoning(), "Thinking.");
  EXPECT_EQ(r.other_events, std::vector<std::string>{"response.web_search_call.searching"});
  const Json j = ToJson(r);
  EXPECT_EQ(j["items"][1]["kind"], "other");
  EXPECT_EQ(j["items"][1]["type"], "web_search_call");
  EXPECT_EQ(j["items"][0]["encrypted_content"], "gAAAAB==");
}

// Each contract rule, broken once, is reported at its event and pointer.
struct Broken {
  const char* rule;
  std::size_t event;
  const char* pointer;
};

TEST(ResponsesStream, EachRuleIsLocated) {
  const auto added = [](int index, const Json& item) {
    return Json{{"type", "response.output_item.added"}, {"output_index", index}, {"item", item}};
  };
  std::vector<std::pair<std::string, Broken>> cases;
  {  // type differs from the event's name
    ResponsesEvents s;
    s.Created().Raw(
        "event: response.in_progress\ndata: {\"type\":\"response.queued\","
        "\"sequence_number\":1,\"response\":{}}\n\n");
    cases.push_back({s.str(), {"RESP-EVENT-NAME", 2, "/type"}});
  }
  {  // a sequence gap
    ResponsesEvents s;
    s.Created().Add({{"type", "response.in_progress"}, {"sequence_number", 5}, {"response", {}}});
    cases.push_back({s.str(), {"RESP-SEQUENCE", 2, "/sequence_number"}});
  }
  {  // not created first
    ResponsesEvents s;
    s.Add({{"type", "response.in_progress"}, {"response", {}}});
    cases.push_back({s.str(), {"RESP-CREATED-FIRST", 1, "/type"}});
  }
  {  // a delta for an item never added
    ResponsesEvents s;
    s.Created().Add({{"type", "response.output_text.delta"},
                     {"item_id", "m"},
                     {"output_index", 0},
                     {"content_index", 0},
                     {"delta", "x"}});
    cases.push_back({s.str(), {"RESP-ITEM-ADDED-FIRST", 2, "/output_index"}});
  }
  {  // a function call added without call_id
    ResponsesEvents s;
    s.Created().Add(added(0, {{"type", "function_call"}, {"id", "fc"}, {"name", "f"}}));
    cases.push_back({s.str(), {"RESP-FUNCTION-CALL-IDS", 2, "/item/call_id"}});
  }
  {  // deltas that do not join to the .done text
    ResponsesEvents s;
    s.Created().Add(added(0, ResponsesEvents::CallItem("fc", "c", "f", "")));
    s.Add(
        {{"type", "response.function_call_arguments.delta"}, {"output_index", 0}, {"delta", "{"}});
    s.Add({{"type", "response.function_call_arguments.done"},
           {"output_index", 0},
           {"arguments", "{}"}});
    cases.push_back({s.str(), {"RESP-DELTAS-MATCH-DONE", 4, "/arguments"}});
  }
  {  // output_index out of step
    ResponsesEvents s;
    s.Created().Add(added(3, ResponsesEvents::MessageItem("m", "")));
    cases.push_back({s.str(), {"RESP-INDEXES", 2, "/output_index"}});
  }
  {  // no terminal event
    ResponsesEvents s;
    s.Created();
    cases.push_back({s.str(), {"RESP-ONE-TERMINAL", 0, ""}});
  }
  {  // an event after the terminal one
    ResponsesEvents s;
    s.Created().Completed({}).Add({{"type", "response.in_progress"}, {"response", {}}});
    cases.push_back({s.str(), {"RESP-AFTER-TERMINAL", 3, ""}});
  }
  {  // terminal output differs from the streamed items
    ResponsesEvents s;
    s.Created().Message(0, "m", {"a"}).Completed({ResponsesEvents::MessageItem("m", "b")});
    cases.push_back({s.str(), {"RESP-TERMINAL-OUTPUT", 7, "/response/output/0"}});
  }
  {  // no model on the terminal response
    ResponsesEvents s;
    Json r = ResponsesEvents::Response("completed", Json::array());
    r.erase("model");
    s.Created().Add({{"type", "response.completed"}, {"response", r}});
    cases.push_back({s.str(), {"RESP-TERMINAL-ID-MODEL", 2, "/response/model"}});
  }
  {  // data that is not JSON
    ResponsesEvents s;
    s.Created().Raw("event: response.in_progress\ndata: {nope\n\n");
    cases.push_back({s.str(), {"RESP-EVENT-JSON", 2, ""}});
  }
  for (const auto& [text, want] : cases) {
    const auto r = AccumulateResponses(text);
    const auto rules = ResponsesRules(r);
    const auto at = std::find(rules.begin(), rules.end(), want.rule);
    ASSERT_NE(at, rules.end()) << want.rule << "\n" << text;
    // Only the rule broken on purpose, and the end missing where no end was written.
    for (const auto& rule : rules) EXPECT_TRUE(rule == want.rule || rule == "RESP-ONE-TERMINAL");
    const LocatedFinding& f = r.findings[static_cast<std::size_t>(at - rules.begin())];
    EXPECT_EQ(f.event, want.event) << want.rule;
    EXPECT_EQ(f.pointer, want.pointer) << want.rule;
    const std::string where =
        want.event ? std::string("event ") + std::to_string(want.event) : "the stream";
    EXPECT_TRUE(f.message.starts_with(where)) << f.message;
  }
}

TEST(ResponsesStream, SequenceNumberPastInt64IsAFindingNotAWrap) {
  ResponsesEvents s;
  s.Created().Raw(
      "event: response.in_progress\ndata: {\"type\":\"response.in_progress\","
      "\"sequence_number\":18446744073709551615,\"response\":{}}\n\n");
  const auto r = AccumulateResponses(s.str());
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "RESP-SEQUENCE");
  EXPECT_EQ(r.findings[0].message,
            "event 2 /sequence_number: sequence_number 18446744073709551615 is not an integer "
            "from 0 to 2^63-1");
}

TEST(ResponsesStream, RepeatedBreaksAreOneFindingWithACount) {
  std::string s;
  for (int i = 0; i < 4; ++i)
    s += "data: {\"type\":\"response.in_progress\",\"response\":{}}\n\n";  // unnamed, unnumbered
  const auto r = AccumulateResponses(s);
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].message,
            "event 1: the event has no 'event:' name; its type is 'response.in_progress' (and 3 "
            "more)");
}

TEST(ResponsesStream, ErrorEventEndsTheStreamAsAnError) {
  ResponsesEvents s;
  s.Created().Add(
      {{"type", "error"}, {"code", "server_error"}, {"message", "boom"}, {"param", nullptr}});
  const auto r = AccumulateResponses(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "boom");
  EXPECT_EQ(r.error->code, "server_error");
  EXPECT_EQ(r.status, "failed");
}

TEST(ResponsesStream, IncompleteKeepsItsReason) {
  ResponsesEvents s;
  Json r = ResponsesEvents::Response("incomplete", Json::array());
  r["incomplete_details"] = {{"reason", "max_output_tokens"}};
  s.Created().Add({{"type", "response.incomplete"}, {"response", r}});
  const auto out = AccumulateResponses(s.str());
  EXPECT_TRUE(out.findings.empty()) << out.findings[0].message;
  EXPECT_EQ(out.status, "incomplete");
  EXPECT_EQ(out.incomplete_reason, "max_output_tokens");
}

TEST(ResponsesStream, ManyEventsStayBounded) {
  // 20000 unmodelled events of distinct types: named up to a bound, counted after.
  std::string s;
  ResponsesEvents head;
  head.Created();
  s = head.str();
  for (int i = 0; i < 20000; ++i)
    s += "event: x." + std::to_string(i) + "\ndata: {\"type\":\"x." + std::to_string(i) +
         "\",\"sequence_number\":" + std::to_string(i + 1) + "}\n\n";
  const auto r = AccumulateResponses(s);
  EXPECT_EQ(r.events, 20001u);
  EXPECT_EQ(r.other_events.size(), 65u);
  EXPECT_EQ(r.other_events.back(), "… 19936 more types");
  EXPECT_EQ(ResponsesRules(r), std::vector<std::string>{"RESP-ONE-TERMINAL"});
}

TEST(ResponsesBody, ReadsItemsStatusUsageAndErrors) {
  Json body =
      ResponsesEvents::Response("completed", {ResponsesEvents::CallItem("fc", "call_1", "f", "{}"),
                                              ResponsesEvents::MessageItem("m", "hi")});
  body["usage"] = {{"total_tokens", 3}};
  auto r = ReadResponsesBody(body);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].call_id, "call_1");
  EXPECT_EQ(r.Text(), "hi");
  EXPECT_EQ(r.usage["total_tokens"], 3);

  r = ReadResponsesBody(Json{{"error", {{"message", "bad"}, {"type", "invalid_request_error"}}}});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->type, "invalid_request_error");
  EXPECT_TRUE(r.findings.empty());

  r = ReadResponsesBody(Json::array());
  ASSERT_EQ(ResponsesRules(r), std::vector<std::string>{"RESP-BODY-RESPONSE"});
  EXPECT_EQ(r.findings[0].message, "/: expected a response object, got array");

  body.erase("id");
  r = ReadResponsesBody(body);
  ASSERT_EQ(ResponsesRules(r), std::vector<std::string>{"RESP-TERMINAL-ID-MODEL"});
  EXPECT_EQ(r.findings[0].pointer, "/id");
}

// A stream of random items with random breaks of the contract.
rc::Gen<std::string> ResponsesStreamGen() {
  return rc::gen::map(
      rc::gen::pair(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 6)),
                    rc::gen::container<std::vector<std::string>>(rc::gen::string<std::string>())),
      [](const std::pair<std::vector<int>, std::vector<std::string>>& in) {
        ResponsesEvents s;
        s.Created();
        std::vector<Json> output;
        int index = 0;
        std::size_t t = 0;
        auto text = [&] {
          return in.second.empty() ? std::string("x") : in.second[t++ % in.second.size()];
        };
        for (int k : in.first) {
          const std::string id = "i" + std::to_string(index);
          if (k == 0) {
            const std::string a = text(), b = text();
            s.Message(index, id, {a, b});
            output.push_back(ResponsesEvents::MessageItem(id, a + b));
          } else if (k == 1) {
            const std::string a = text();
            s.Call(index, id, "call_" + id, "f",
                   {"{\"q\":", Json(a).dump(-1, ' ', false, Json::error_handler_t::replace) + "}"});
            output.push_back(ResponsesEvents::CallItem(
                id, "call_" + id, "f",
                "{\"q\":" + Json(a).dump(-1, ' ', false, Json::error_handler_t::replace) + "}"));
          } else if (k == 2) {
            s.Raw("data: " + text() + "\n\n");  // not JSON
            continue;
          } else if (k == 3) {
            s.Raw(": keep-alive\r\n\r\n");
            continue;
          } else if (k == 4) {
            s.Add(
                {{"type", "response.output_text.delta"}, {"output_index", 99}, {"delta", text()}});
            continue;
          } else {
            s.Add({{"type", "response.custom.thing"}, {"sequence_number", 1}});
            continue;
          }
          ++index;
        }
        if (!in.first.empty() && in.first.front() % 2 == 0) s.Completed(output);
        return s.str();
      });
}

RC_GTEST_PROP(ResponsesStream, AnySplitOfTheBytesAccumulatesTheSame, ()) {
  const std::string stream = *ResponsesStreamGen();
  const auto whole = AccumulateResponses(stream);
  auto cuts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  const auto split = AccumulateSurfaceStreamSplit(Surface::kResponses, stream, cuts);
  RC_ASSERT(split == whole);
  for (const auto& f : whole.findings) {
    RC_ASSERT(std::find(kResponsesRuleIds.begin(), kResponsesRuleIds.end(), f.rule) !=
              kResponsesRuleIds.end());
  }
}

// The catalogue (specs/wire/rules.json) and the code agree on the RESP-* rules.
TEST(ResponsesRules, CatalogueHoldsExactlyTheRulesTheCodeReports) {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) + "/specs/wire/rules.json");
  const Json rules = Json::parse(in);
  std::set<std::string> catalogued;
  for (const Json& r : rules) {
    const std::string id = r["id"];
    if (id.starts_with("RESP-")) {
      catalogued.insert(id);
      EXPECT_FALSE(r["source"].get<std::string>().empty()) << id;
    }
  }
  EXPECT_EQ(catalogued, std::set<std::string>(kResponsesRuleIds.begin(), kResponsesRuleIds.end()));
}

}  // namespace
}  // namespace llmconform::wire
