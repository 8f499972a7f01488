#include "protocols/thinkingml/gymbro_events.h"

#include <gtest/gtest.h>

#include "base/format.h"

namespace llmconform::gymbro {
namespace {

using V = std::vector<std::string>;

std::string Ids(std::string_view rest = "") {
  return Format("\"message_id\":\"m1\",\"request_id\":\"r1\"{}{}", rest.empty() ? "" : ",", rest);
}
std::string Obj(const std::string& rest) { return "{" + Ids(rest) + "}"; }
StreamEvent Status(std::string_view state) {
  return {"status", Format("{{\"state\":\"{}\",{}}}", state, Ids())};
}
StreamEvent Delta(int seq, std::string_view text) {
  return {"content_delta", Obj((Format("\"seq\":{},\"delta\":\"{}\"", seq, text)))};
}
StreamEvent Completed(int reply_len) {
  return {"completed",
          Obj((Format("\"provider\":\"openai\",\"reply_len\":{},\"metadata\":null", reply_len)))};
}
StreamEvent ErrorEvent(std::string_view code = "provider_error",
                       std::string_view msg = "upstream failed",
                       std::string_view legacy = "upstream failed") {
  return {"error",
          Obj((Format("\"code\":\"{}\",\"message\":\"{}\",\"error\":\"{}\"", code, msg, legacy)))};
}
StreamEvent Heartbeat(long long ts = 1736253242000) {
  return {"heartbeat", Obj((Format("\"ts\":{}", ts)))};
}

// "RULE#event" (1-based event number, "-" for the whole stream).
V Where(const EventCheck& c) {
  V out;
  for (const auto& f : c.findings) {
    out.push_back(f.event_index ? Format("{}#{}", f.rule, *f.event_index + 1) : f.rule + "#-");
  }
  return out;
}

TEST(CheckEvents, AcceptsTheSeedSequenceAndJoinsTheReply) {
  const std::vector<StreamEvent> events = {
      Status("queued"), Status("working"),     Status("routed"), Delta(1, "<thin"),
      Heartbeat(),      Delta(2, "king>中文"), Completed(12)};
  const EventCheck c = CheckEvents(events, {"r1"});
  EXPECT_TRUE(c.valid);
  EXPECT_TRUE(c.findings.empty()) << c.findings[0].message;
  EXPECT_EQ(c.reply, "<thinking>中文");
  EXPECT_EQ(c.termination, Termination::kCompleted);
  EXPECT_TRUE(c.Succeeded());
  EXPECT_EQ(c.reply_len, 12);
  EXPECT_EQ(c.message_id, "m1");
  EXPECT_EQ(c.request_id, "r1");
  EXPECT_EQ(c.states, (V{"queued", "working", "routed"}));
  EXPECT_EQ(c.deltas, 2u);
  EXPECT_EQ(c.heartbeats, 1u);
}

TEST(CheckEvents, AnErrorAfterDeltasIsAFailedButConformingStream) {
  const EventCheck c =
      CheckEvents(std::vector<StreamEvent>{Status("queued"), Delta(1, "part"), ErrorEvent()});
  EXPECT_TRUE(c.valid);
  EXPECT_FALSE(c.Succeeded());
  EXPECT_EQ(c.termination, Termination::kError);
  EXPECT_EQ(c.reply, "part");
  EXPECT_EQ(c.error_code, "provider_error");
  EXPECT_EQ(c.error_message, "upstream failed");
}

TEST(CheckEvents, SeqStartsAtOneAndRisesByOne) {
  const EventCheck c = CheckEvents(
      std::vector<StreamEvent>{Delta(2, "b"), Delta(3, "c"), Delta(5, "e"), Completed(3)});
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.5#1", "GYMBRO-6.5#3"}));
  EXPECT_EQ(
      c.findings[0].message,
      "event 1 (content_delta) has seq 2 where 1 was expected; seq starts at 1 and rises by 1");
  EXPECT_FALSE(c.valid);
}

TEST(CheckEvents, JoinsBySeqNotArrival) {
  const EventCheck c =
      CheckEvents(std::vector<StreamEvent>{Delta(2, "b"), Delta(1, "a"), Completed(2)});
  EXPECT_EQ(c.reply, "ab");
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.5#1", "GYMBRO-6.5#2"}));
  const EventCheck no_seq = CheckEvents(std::vector<StreamEvent>{
      {"content_delta", "{" + Ids("\"delta\":\"x\"") + "}"}, Delta(1, "y"), Completed(2)});
  EXPECT_EQ(no_seq.reply, "xy");  // arrival order when a seq is missing
  EXPECT_EQ(Where(no_seq), (V{"GYMBRO-6.5#1"}));
}

TEST(CheckEvents, ExactlyOneTerminalAndNothingAfterIt) {
  EXPECT_EQ(Where(CheckEvents(std::vector<StreamEvent>{Status("queued"), Delta(1, "a")})),
            (V{"GYMBRO-6.8#-"}));
  EXPECT_EQ(CheckEvents(std::vector<StreamEvent>{Status("queued")}).findings[0].message,
            "the stream ended after 1 events without a completed or error event");
  const EventCheck twice = CheckEvents(std::vector<StreamEvent>{
      Delta(1, "a"), Completed(1), ErrorEvent(), Heartbeat(), Delta(2, "b")});
  EXPECT_EQ(Where(twice), (V{"GYMBRO-6.8#3", "GYMBRO-6.9#4", "GYMBRO-6.9#5"}));
  EXPECT_EQ(twice.reply, "a");
  EXPECT_EQ(twice.termination, Termination::kCompleted);
}

TEST(CheckEvents, StatusStatesGoForwardOnly) {
  const EventCheck c = CheckEvents(std::vector<StreamEvent>{
      Status("queued"), Status("routed"), Status("working"), Status("thinking"), Completed(0)});
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.7#3", "GYMBRO-6.7#4"}));
  EXPECT_EQ(c.findings[0].message,
            "event 3 (status) has state \"working\" after \"routed\"; states go queued → working → "
            "routed, each once");
  EXPECT_EQ(c.findings[1].message,
            "event 4 (status) has state \"thinking\"; states are queued, working, routed");
  EXPECT_EQ(Where(CheckEvents(
                std::vector<StreamEvent>{Status("queued"), Status("queued"), Completed(0)})),
            (V{"GYMBRO-6.7#2"}));
}

TEST(CheckEvents, IdsArePresentStableAndEchoTheRequestId) {
  const EventCheck c = CheckEvents(std::vector<StreamEvent>{
      {"status", "{\"state\":\"queued\"}"},
      {"status", "{\"state\":\"working\",\"message_id\":\"m1\",\"request_id\":7}"},
      {"status", "{\"state\":\"routed\",\"message_id\":\"m2\",\"request_id\":\"r1\"}"},
      Completed(0)});
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.2#1", "GYMBRO-6.2#1", "GYMBRO-6.2#2", "GYMBRO-6.3#3"}));
  EXPECT_EQ(c.findings[2].message, "event 2 (status) has no request_id string (found number 7)");
  EXPECT_EQ(
      Where(CheckEvents(std::vector<StreamEvent>{Status("queued"), Completed(0)}, {"req-42"})),
      (V{"GYMBRO-6.4#1"}));
  EXPECT_EQ(CheckEvents(std::vector<StreamEvent>{Status("queued"), Completed(0)}, {"req-42"})
                .findings[0]
                .message,
            "event 1 (status) has request_id \"r1\", but the request sent X-Request-Id \"req-42\"");
}

TEST(CheckEvents, DataMustBeAJsonObject) {
  const EventCheck c = CheckEvents(
      std::vector<StreamEvent>{{"status", "not json"}, {"heartbeat", "[1]"}, Completed(0)});
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.2#1", "GYMBRO-6.2#2"}));
  EXPECT_EQ(c.findings[0].message,
            "the data of event 1 (status) is not a JSON object: \"not json\"");
}

TEST(CheckEvents, CompletedCarriesReplyLenAndNoText) {
  EXPECT_EQ(Where(CheckEvents(std::vector<StreamEvent>{Delta(1, "abc"), Completed(5)})),
            (V{"GYMBRO-7.3#2"}));
  const EventCheck warn = CheckEvents(std::vector<StreamEvent>{Delta(1, "abc"), Completed(5)});
  EXPECT_TRUE(warn.valid);  // a reply_len mismatch is a warning
  EXPECT_EQ(warn.findings[0].severity, Severity::kShould);
  EXPECT_EQ(warn.findings[0].message,
            "event 2 (completed) has reply_len 5, the joined deltas hold 3 characters");
  const EventCheck text = CheckEvents(std::vector<StreamEvent>{
      Delta(1, "abc"),
      {"completed", "{" + Ids("\"reply_len\":3,\"reply\":\"abc\",\"summary\":\"abc\"") + "}"}});
  EXPECT_EQ(Where(text), (V{"GYMBRO-6.10#2", "GYMBRO-6.10#2"}));
  EXPECT_EQ(text.findings[0].message,
            "event 2 (completed) has a \"reply\" field; completed carries no reply text");
  EXPECT_EQ(
      text.findings[1].message,
      "event 2 (completed) repeats the reply text in \"summary\"; completed carries no reply text");
  EXPECT_EQ(Where(CheckEvents(std::vector<StreamEvent>{{"completed", "{" + Ids() + "}"}})),
            (V{"GYMBRO-6.10#1"}));
}

TEST(CheckEvents, ErrorCarriesCodeMessageAndTheLegacyField) {
  EXPECT_EQ(Where(CheckEvents(std::vector<StreamEvent>{ErrorEvent("x", "m", "other")})),
            (V{"GYMBRO-6.11#1"}));
  const EventCheck bare = CheckEvents(std::vector<StreamEvent>{{"error", "{" + Ids() + "}"}});
  EXPECT_EQ(Where(bare), (V{"GYMBRO-6.11#1", "GYMBRO-6.11#1", "GYMBRO-6.11#1"}));
  EXPECT_EQ(bare.findings[2].message,
            "event 1 (error) has no legacy error string (found nothing); old clients read it");
}

TEST(CheckEvents, HeartbeatTsIsInMilliseconds) {
  EXPECT_EQ(Where(CheckEvents(std::vector<StreamEvent>{Heartbeat(1736253242), Completed(0)})),
            (V{"GYMBRO-6.12#1"}));
  EXPECT_EQ(
      Where(CheckEvents(std::vector<StreamEvent>{{"heartbeat", "{" + Ids() + "}"}, Completed(0)})),
      (V{"GYMBRO-6.12#1"}));
}

TEST(CheckEvents, UnknownEventsAndLongDeltasAreWarnings) {
  const EventCheck c = CheckEvents(std::vector<StreamEvent>{
      {"message", "{}"}, {"ping", "{}"}, Delta(1, std::string(257, 'x')), Completed(257)});
  EXPECT_EQ(Where(c), (V{"GYMBRO-6.1#1", "GYMBRO-6.1#2", "GYMBRO-6.15#3"}));
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.findings[0].message,
            "event 1 is an unnamed (data-only) frame; events are named status, content_delta, "
            "completed, error or "
            "heartbeat");
}

}  // namespace
}  // namespace llmconform::gymbro
