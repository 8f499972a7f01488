#include "protocols/wire/messages.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <rapidcheck/gtest.h>
#include <sanitizer/allocator_interface.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"
#include "protocols/wire/oracle_ops.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LLMCONFORM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(LLMCONFORM_ASAN)
#include <sanitizer/allocator_interface.h>
#define LLMCONFORM_ASAN_HEAP 1
#endif

namespace llmconform::wire {
namespace {

// Builds a Messages stream: each event named after its data's type.
class MessagesEvents {
 public:
  MessagesEvents& Add(const Json& data) {
    return Raw("event: " + data.value("type", "") +
               "\ndata: " + data.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n\n");
  }
  MessagesEvents& Raw(const std::string& s) {
    text_ += s;
    return *this;
  }
  MessagesEvents& Start(int input_tokens = 10) {
    return Add({{"type", "message_start"},
                {"message",
                 {{"id", "msg_1"},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", "claude-x"},
                  {"content", Json::array()},
                  {"stop_reason", nullptr},
                  {"usage", {{"input_tokens", input_tokens}, {"output_tokens", 1}}}}}});
  }
  MessagesEvents& Ping() { return Add({{"type", "ping"}}); }
  MessagesEvents& Open(int index, const Json& block) {
    return Add({{"type", "content_block_start"}, {"index", index}, {"content_block", block}});
  }
  MessagesEvents& Delta(int index, const Json& delta) {
    return Add({{"type", "content_block_delta"}, {"index", index}, {"delta", delta}});
  }
  MessagesEvents& Close(int index) {
    return Add({{"type", "content_block_stop"}, {"index", index}});
  }
  MessagesEvents& Text(int index, const std::vector<std::string>& deltas) {
    Open(index, {{"type", "text"}, {"text", ""}});
    for (const auto& d : deltas) Delta(index, {{"type", "text_delta"}, {"text", d}});
    return Close(index);
  }
  MessagesEvents& Tool(int index, const std::string& id, const std::string& name,
                       const std::vector<std::string>& parts,
                       const std::string& type = "tool_use") {
    Open(index, {{"type", type}, {"id", id}, {"name", name}, {"input", Json::object()}});
    for (const auto& p : parts) Delta(index, {{"type", "input_json_delta"}, {"partial_json", p}});
    return Close(index);
  }
  MessagesEvents& End(const Json& stop_reason = "end_turn", int output_tokens = 7) {
    Add({{"type", "message_delta"},
         {"delta", {{"stop_reason", stop_reason}, {"stop_sequence", nullptr}}},
         {"usage", {{"output_tokens", output_tokens}}}});
    return Add({{"type", "message_stop"}});
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

std::vector<std::string> MessagesRules(const CanonicalResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.rule);
  return out;
}

CanonicalResult AccumulateMessages(const std::string& s) {
  return AccumulateSurfaceStream(Surface::kMessages, s);
}

TEST(MessagesSurface, PathsAndName) {
  EXPECT_EQ(SurfaceOfPath("/v1/messages"), Surface::kMessages);
  EXPECT_EQ(SurfaceOfPath("/t/abc/v1/messages?beta=true"), Surface::kMessages);
  EXPECT_EQ(SurfaceOfPath("/v1/messages/count_tokens"), Surface::kMessages);
  EXPECT_EQ(SurfaceOfPath("/v1/threads/thread_1/messages"), std::nullopt);
  EXPECT_EQ(SurfaceOfPath("/v1/chat/completions"), Surface::kChat);
  EXPECT_EQ(SurfaceName(Surface::kMessages), "messages");
  EXPECT_EQ(SurfaceFromName("messages"), Surface::kMessages);
}

TEST(MessagesStream, TextWithPingsAccumulatesWithoutFindings) {
  MessagesEvents s;
  s.Ping().Start(12).Ping().Text(0, {"Hel", "lo"}).Ping().End("end_turn", 9);
  const auto r = AccumulateMessages(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  EXPECT_EQ(r.Text(), "Hello");
  EXPECT_EQ(r.status, "end_turn");
  EXPECT_EQ(r.id, "msg_1");
  EXPECT_EQ(r.model, "claude-x");
  EXPECT_EQ(r.usage, (Json{{"input_tokens", 12}, {"output_tokens", 9}}));
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.other_events.empty());
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kMessage);
  EXPECT_EQ(r.items[0].type, "text");
}

TEST(MessagesStream, SeveralToolCallsKeepIdNameAndInputAsSent) {
  MessagesEvents s;
  s.Start()
      .Text(0, {"Let me look."})
      .Tool(1, "toolu_a", "get_weather", {"", "{\"city\":", " \"Paris\"}"})
      .Tool(2, "toolu_b", "get_time", {})
      .End("tool_use");
  const auto r = AccumulateMessages(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  const auto calls = r.FunctionCalls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->call_id, "toolu_a");
  EXPECT_EQ(calls[0]->id, "toolu_a");
  EXPECT_EQ(calls[0]->name, "get_weather");
  EXPECT_EQ(calls[0]->arguments, "{\"city\": \"Paris\"}");
  EXPECT_EQ(calls[1]->arguments, "{}");  // no delta: the start's input
  EXPECT_EQ(r.status, "tool_use");
  EXPECT_EQ(ToJson(r)["items"][1]["kind"], "function_call");
}

TEST(MessagesStream, ThinkingKeepsItsSignatureAndRedactedThinkingItsData) {
  MessagesEvents s;
  s.Start().Open(0, {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
  s.Delta(0, {{"type", "thinking_delta"}, {"thinking", "Let me "}});
  s.Delta(0, {{"type", "thinking_delta"}, {"thinking", "think."}});
  s.Delta(0, {{"type", "signature_delta"}, {"signature", "EqQBCgIYAhIM"}});
  s.Close(0).Open(1, {{"type", "redacted_thinking"}, {"data", "EmwKAhgB"}}).Close(1);
  s.Text(2, {"42"}).End();
  const auto r = AccumulateMessages(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kReasoning);
  EXPECT_EQ(r.items[0].text, "Let me think.");
  EXPECT_EQ(r.items[0].signature, "EqQBCgIYAhIM");
  EXPECT_EQ(r.items[1].type, "redacted_thinking");
  EXPECT_EQ(r.items[1].encrypted, "EmwKAhgB");
  EXPECT_EQ(r.Reasoning(), "Let me think.");
  EXPECT_EQ(r.Text(), "42");
  EXPECT_EQ(ToJson(r)["items"][0]["signature"], "EqQBCgIYAhIM");
}

TEST(MessagesStream, ServerToolBlocksAreKeptAndNamed) {
  MessagesEvents s;
  s.Start().Tool(0, "srvtoolu_1", "web_search", {"{\"query\": ", "\"llm\"}"}, "server_tool_use");
  s.Open(1, {{"type", "web_search_tool_result"},
             {"tool_use_id", "srvtoolu_1"},
             {"content", Json::array()}})
      .Close(1);
  s.Add({{"type", "content_block_delta"},
         {"index", 1},
         {"delta", {{"type", "compaction_delta"}, {"x", 1}}}});
  s.Add({{"type", "future_event"}}).End();
  const auto r = AccumulateMessages(s.str());
  EXPECT_EQ(MessagesRules(r), std::vector<std::string>{"MSG-BLOCK-ORDER"});  // delta after its stop
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kOther);
  EXPECT_EQ(r.items[0].type, "server_tool_use");
  EXPECT_EQ(r.items[0].raw["input"], (Json{{"query", "llm"}}));
  EXPECT_EQ(r.items[1].type, "web_search_tool_result");
  EXPECT_EQ(r.other_events,
            (std::vector<std::string>{"content_block_delta:compaction_delta", "future_event"}));
}

TEST(MessagesStream, ErrorEventEndsTheStream) {
  MessagesEvents s;
  s.Start().Open(0, {{"type", "text"}, {"text", ""}});
  s.Delta(0, {{"type", "text_delta"}, {"text", "Hi"}});
  s.Add({{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  const auto r = AccumulateMessages(s.str());
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->type, "overloaded_error");
  EXPECT_EQ(r.error->message, "Overloaded");
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.Text(), "Hi");
}

struct Break {
  std::string name;
  std::string stream;
  std::string rule;
  std::size_t event;
  std::string pointer;
};

// Each rule broken once, found at its place.
TEST(MessagesStream, EachBrokenRuleIsLocated) {
  const auto text = [](const Json& delta) {
    MessagesEvents s;
    s.Start().Open(0, {{"type", "text"}, {"text", ""}}).Delta(0, delta).Close(0).End();
    return s.str();
  };
  std::vector<Break> breaks;
  breaks.push_back({"not json",
                    MessagesEvents().Start().Raw("data: {oops\n\n").Text(0, {"a"}).End().str(),
                    "MSG-EVENT-JSON", 2, ""});
  breaks.push_back(
      {"name differs",
       MessagesEvents().Start().Raw("event: ping\ndata: {\"type\":\"pong\"}\n\n").End().str(),
       "MSG-EVENT-NAME", 2, "/type"});
  breaks.push_back({"start not first", MessagesEvents().Text(0, {"a"}).End().str(),
                    "MSG-START-FIRST", 1, "/type"});
  breaks.push_back(
      {"delta before open",
       MessagesEvents().Start().Delta(0, {{"type", "text_delta"}, {"text", "a"}}).End().str(),
       "MSG-BLOCK-ORDER", 2, "/index"});
  breaks.push_back({"index skipped", MessagesEvents().Start().Text(1, {"a"}).End().str(),
                    "MSG-BLOCK-ORDER", 2, "/index"});
  breaks.push_back({"closed twice", MessagesEvents().Start().Text(0, {"a"}).Close(0).End().str(),
                    "MSG-BLOCK-ORDER", 5, "/index"});
  breaks.push_back({"never closed",
                    MessagesEvents().Start().Open(0, {{"type", "text"}, {"text", ""}}).End().str(),
                    "MSG-BLOCK-ORDER", 4, ""});
  breaks.push_back({"delta type", text({{"type", "input_json_delta"}, {"partial_json", "{}"}}),
                    "MSG-DELTA-TYPE", 3, "/delta/type"});
  breaks.push_back({"delta field", text({{"type", "text_delta"}, {"text", 5}}), "MSG-EVENT-JSON", 3,
                    "/delta/text"});
  breaks.push_back({"tool input",
                    MessagesEvents().Start().Tool(0, "t", "f", {"[1,", "2]"}).End().str(),
                    "MSG-TOOL-INPUT-JSON", 5, ""});
  breaks.push_back(
      {"no usage",
       MessagesEvents()
           .Add({{"type", "message_start"}, {"message", {{"id", "m"}, {"content", Json::array()}}}})
           .End()
           .str(),
       "MSG-USAGE", 1, "/message/usage"});
  breaks.push_back({"stop reason", MessagesEvents().Start().End("done").str(), "MSG-STOP-REASON", 2,
                    "/delta/stop_reason"});
  breaks.push_back(
      {"after stop", MessagesEvents().Start().End().Ping().str(), "MSG-AFTER-STOP", 4, ""});
  breaks.push_back(
      {"no stop", MessagesEvents().Start().Text(0, {"a"}).str(), "MSG-ONE-STOP", 0, ""});
  std::set<std::string> seen;
  for (const auto& b : breaks) {
    const auto r = AccumulateMessages(b.stream);
    ASSERT_EQ(MessagesRules(r), std::vector<std::string>{b.rule})
        << b.name << ": " << r.findings[0].message;
    EXPECT_EQ(r.findings[0].event, b.event) << b.name << ": " << r.findings[0].message;
    EXPECT_EQ(r.findings[0].pointer, b.pointer) << b.name << ": " << r.findings[0].message;
    seen.insert(b.rule);
  }
  seen.insert("MSG-BODY-MESSAGE");  // the body reader's own: MessagesBody below
  EXPECT_EQ(seen, std::set<std::string>(kMessagesRuleIds.begin(), kMessagesRuleIds.end()));
}

// A quoted piece of data that is not JSON is cut between code points, so the
// result stays valid UTF-8 (ToJson(...).dump() would throw otherwise).
TEST(MessagesStream, QuotedDataIsCutBetweenCodePoints) {
  const std::string data = std::string(79, 'x') + "\xC3\xA9 not json";
  const auto r =
      AccumulateMessages(MessagesEvents().Start().Raw("data: " + data + "\n\n").End().str());
  ASSERT_EQ(MessagesRules(r), std::vector<std::string>{"MSG-EVENT-JSON"});
  EXPECT_NO_THROW((void)ToJson(r).dump());
  EXPECT_EQ(r.findings[0].message.find("\xC3"), std::string::npos);
}

TEST(MessagesStream, RepeatedBreaksAreOneFindingWithACount) {
  MessagesEvents s;
  s.Start();
  for (int i = 0; i < 3; ++i) s.Delta(7, {{"type", "text_delta"}, {"text", "a"}});
  const auto r = AccumulateMessages(s.End().str());
  ASSERT_EQ(MessagesRules(r), std::vector<std::string>{"MSG-BLOCK-ORDER"});
  EXPECT_EQ(r.findings[0].message,
            "event 2 /index: 'content_block_delta' for index 7, a block never opened by "
            "content_block_start (and 2 more)");
}

TEST(MessagesStream, HugeIndexesAndUnclosedInputStayBounded) {
  MessagesEvents s;
  s.Start()
      .Raw(
          "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"
          "9223372036854775807,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
      .Raw(
          "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"
          "18446744073709551616}\n\n")
      .Open(1, {{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", Json::object()}});
  for (int i = 0; i < 1000; ++i)
    s.Delta(1, {{"type", "input_json_delta"}, {"partial_json", "{\"a\":["}});
  const auto r = AccumulateMessages(s.str());
  EXPECT_EQ(MessagesRules(r),
            (std::vector<std::string>{"MSG-BLOCK-ORDER", "MSG-EVENT-JSON", "MSG-ONE-STOP"}));
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].arguments.size(), 6000u);  // as sent, never closed, never parsed
  EXPECT_EQ(r.items[1].type, "text");             // index 2^63-1 comes last
  EXPECT_FALSE(r.terminated);
}

// Bytes allocated and not freed (ASan's count when it runs: freed memory
// stays in its quarantine, so the process's size says nothing).
std::size_t LiveHeapBytes() {
#if defined(LLMCONFORM_ASAN_HEAP)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

TEST(MessagesStream, AMillionPingsTakeNoMemory) {
  SseParser parser;
  MessagesAccumulator acc;
  auto add = [&acc](const SseEventView& ev) { acc.AddEvent(ev); };
  parser.Feed(MessagesEvents().Start().str(), add);
  const std::string pings = [] {
    MessagesEvents p;
    for (int i = 0; i < 1000; ++i) p.Ping();
    return p.str();
  }();
  const std::size_t before = LiveHeapBytes();
  for (int i = 0; i < 1000; ++i) parser.Feed(pings, add);
  EXPECT_LT(LiveHeapBytes() - before, 64u * 1024);
  parser.Feed(MessagesEvents().Text(0, {"ok"}).End().str(), add);
  parser.Finish();
  const auto r = acc.Finish();
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  EXPECT_EQ(r.events, 1'000'006u);
  EXPECT_TRUE(r.other_events.empty());
  EXPECT_EQ(r.Text(), "ok");
}

TEST(MessagesBody, MessageErrorAndMalformed) {
  Json body = {{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", "claude-x"},
               {"content",
                {{{"type", "thinking"}, {"thinking", "hm"}, {"signature", "sig"}},
                 {{"type", "text"}, {"text", "hi"}},
                 {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "f"}, {"input", {{"a", 1}}}}}},
               {"stop_reason", "tool_use"},
               {"stop_sequence", nullptr},
               {"usage", {{"input_tokens", 3}, {"output_tokens", 4}}}};
  auto r = ReadMessagesBody(body);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].signature, "sig");
  EXPECT_EQ(r.Text(), "hi");
  ASSERT_EQ(r.FunctionCalls().size(), 1u);
  EXPECT_EQ(r.FunctionCalls()[0]->arguments, "{\"a\":1}");
  EXPECT_EQ(r.status, "tool_use");
  EXPECT_EQ(r.usage["output_tokens"], 4);

  r = ReadMessagesBody(Json{{"type", "error"},
                            {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->type, "overloaded_error");
  EXPECT_TRUE(r.findings.empty());

  r = ReadMessagesBody(Json::array());
  ASSERT_EQ(MessagesRules(r), std::vector<std::string>{"MSG-BODY-MESSAGE"});
  EXPECT_EQ(r.findings[0].message, "/: expected a message object, got an array");

  body["stop_reason"] = nullptr;
  body.erase("usage");
  r = ReadMessagesBody(body);
  ASSERT_EQ(MessagesRules(r), (std::vector<std::string>{"MSG-STOP-REASON", "MSG-USAGE"}));
  EXPECT_EQ(r.findings[1].pointer, "/usage");
}

// A stream of random blocks with random breaks of the contract.
rc::Gen<std::string> MessagesStreamGen() {
  return rc::gen::map(
      rc::gen::pair(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 7)),
                    rc::gen::container<std::vector<std::string>>(rc::gen::string<std::string>())),
      [](const std::pair<std::vector<int>, std::vector<std::string>>& in) {
        MessagesEvents s;
        s.Start();
        int index = 0;
        std::size_t t = 0;
        auto text = [&] {
          return in.second.empty() ? std::string("x") : in.second[t++ % in.second.size()];
        };
        for (int k : in.first) {
          if (k == 0) {
            s.Text(index++, {text(), text()});
          } else if (k == 1) {
            const std::string q = Json(text()).dump(-1, ' ', false, Json::error_handler_t::replace);
            s.Tool(index, "toolu_" + std::to_string(index), "f", {"{\"q\":", q, "}"});
            ++index;
          } else if (k == 2) {
            s.Raw("data: " + text() + "\n\n");  // not JSON
          } else if (k == 3) {
            s.Raw(": keep-alive\r\n\r\n").Ping();
          } else if (k == 4) {
            s.Delta(99, {{"type", "text_delta"}, {"text", text()}});
          } else if (k == 5) {
            s.Add({{"type", "custom_" + std::to_string(t++ % 3)}});
          } else {
            s.Tool(index++, "t", "f", {text()});  // input that may not parse
          }
        }
        if (!in.first.empty() && in.first.front() % 2 == 0) s.End();
        return s.str();
      });
}

RC_GTEST_PROP(MessagesStream, AnySplitOfTheBytesAccumulatesTheSame, ()) {
  const std::string stream = *MessagesStreamGen();
  const auto whole = AccumulateMessages(stream);
  auto cuts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  SseParser parser;
  MessagesAccumulator acc;
  std::size_t at = 0;
  auto add = [&acc](const SseEventView& ev) { acc.AddEvent(ev); };
  for (std::size_t c : cuts) {
    parser.Feed(std::string_view(stream).substr(at, c - at), add);
    at = c;
  }
  parser.Feed(std::string_view(stream).substr(at), add);
  parser.Finish();
  acc.NoteComments(parser.comment_count());
  RC_ASSERT(acc.Finish() == whole);
  for (const auto& f : whole.findings) {
    RC_ASSERT(std::find(kMessagesRuleIds.begin(), kMessagesRuleIds.end(), f.rule) !=
              kMessagesRuleIds.end());
  }
}

// The catalogue (specs/wire/rules.json) and the code agree on the MSG-* rules.
TEST(MessagesRules, CatalogueHoldsExactlyTheRulesTheCodeReports) {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) + "/specs/wire/rules.json");
  const Json rules = Json::parse(in);
  std::set<std::string> catalogued;
  for (const Json& r : rules) {
    const std::string id = r["id"];
    if (id.starts_with("MSG-")) {
      catalogued.insert(id);
      EXPECT_TRUE(r["source"].get<std::string>().contains("docs.anthropic.com")) << id;
    }
  }
  EXPECT_EQ(catalogued, std::set<std::string>(kMessagesRuleIds.begin(), kMessagesRuleIds.end()));
}

// `llmconform ref messages.accumulate` reads its schema's examples.
TEST(MessagesOracle, TheOpReadsItsSchemaExamples) {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) +
                   "/specs/oracle/messages.accumulate.json");
  const Json schema = Json::parse(in);
  const auto ops = OracleOps();
  const auto op = std::find_if(ops.begin(), ops.end(),
                               [](const OracleOp& o) { return o.name == "messages.accumulate"; });
  ASSERT_NE(op, ops.end());
  std::vector<Json> out;
  for (const Json& example : schema["examples"]) {
    auto r = op->run(example);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ((*r)["surface"], "messages");
    out.push_back(*r);
  }
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0]["findings"], Json::array());
  EXPECT_EQ(out[0]["items"][0]["signature"], "EqQB");
  EXPECT_EQ(out[0]["items"][1]["arguments"], "{\"a\":1}");
  EXPECT_EQ(out[0]["status"], "tool_use");
  EXPECT_EQ(out[0]["usage"], (Json{{"input_tokens", 3}, {"output_tokens", 9}}));
  EXPECT_EQ(out[1]["findings"][0]["rule"], "MSG-ONE-STOP");
  EXPECT_EQ(out[2]["text"], "Hi");
  EXPECT_EQ(out[3]["error"]["type"], "overloaded_error");
  EXPECT_FALSE(op->run(Json{{"nothing", 1}}));
}

}  // namespace
}  // namespace llmconform::wire
