#include "mockllm/fault.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace llmconform::mockllm {
namespace {

Fault Parse(const OJson& j) {
  auto f = FaultFromJson(j);
  EXPECT_TRUE(f) << j.dump() << " -> " << f.error().message;
  return f ? *f : Fault{};
}

// The message ("/pointer: what") of the error FaultFromJson gives `j`.
std::string Rejected(const OJson& j) {
  auto f = FaultFromJson(j);
  EXPECT_FALSE(f) << j.dump() << " was accepted";
  return f ? "" : f.error().message;
}

TEST(Fault, EmptyObjectIsNoFault) {
  const Fault f = Parse(OJson::object());
  EXPECT_TRUE(f.Empty());
  EXPECT_FALSE(f.status);
  EXPECT_FALSE(f.times);
}

TEST(Fault, EachKeyReadsIntoItsField) {
  EXPECT_EQ(Parse({{"status", 429}}).status, 429);
  EXPECT_EQ(Parse({{"body", "busy"}}).body, OJson("busy"));
  EXPECT_EQ(Parse({{"body", {{"error", 1}}}}).body, (OJson{{"error", 1}}));
  EXPECT_EQ(Parse({{"retry_after", 0.25}}).retry_after, 0.25);
  EXPECT_EQ(Parse({{"retry_after", 2}}).retry_after, 2.0);
  EXPECT_EQ(Parse({{"retry_after_ms", 1500}}).retry_after_ms, 1500);
  EXPECT_EQ(Parse({{"headers", {{"x-should-retry", "true"}}}}).headers,
            (OJson{{"x-should-retry", "true"}}));
  EXPECT_EQ(Parse({{"delay_ms", 7}}).delay_ms, 7);
  EXPECT_EQ(Parse({{"cut_after_bytes", 0}}).cut_after_bytes, 0);
  EXPECT_EQ(Parse({{"cut_after_events", 3}}).cut_after_events, 3);
  EXPECT_TRUE(Parse({{"drop_done", true}}).drop_done);
  EXPECT_EQ(Parse({{"malformed_event", 1}}).malformed_event, 1);
  EXPECT_TRUE(Parse({{"resplit", true}}).resplit);
  EXPECT_EQ(Parse({{"seed", 42}}).seed, 42u);
  EXPECT_TRUE(Parse({{"crlf", true}}).crlf);
  EXPECT_TRUE(Parse({{"bom", true}}).bom);
  EXPECT_EQ(Parse({{"keepalive_ms", 15}}).keepalive_ms, 15);
  EXPECT_EQ(Parse({{"stall_ms", 100}}).stall_ms, 100);
  EXPECT_EQ(Parse({{"stall_after_events", 2}}).stall_after_events, 2);
  EXPECT_EQ(Parse({{"times", 1}}).times, 1);
}

TEST(Fault, SeedTakesTheWholeUnsignedRange) {
  EXPECT_EQ(Parse({{"seed", UINT64_MAX}}).seed, UINT64_MAX);
}

TEST(Fault, ErrorEventForms) {
  const Fault yes = Parse({{"error_event", true}});
  EXPECT_EQ(yes.error_event_after, 0);
  // No error named: the surface's default (mockllm/surface_errors.h DefaultStreamError).
  EXPECT_TRUE(yes.error_event_error.is_null());
  EXPECT_FALSE(yes.error_event_failed);
  EXPECT_TRUE(Parse({{"error_event", {{"as", "failed"}}}}).error_event_failed);

  EXPECT_FALSE(Parse({{"error_event", false}}).error_event_after);
  EXPECT_TRUE(Parse({{"error_event", false}}).Empty());

  const Fault later =
      Parse({{"error_event", {{"after_events", 2}, {"error", {{"message", "boom"}}}}}});
  EXPECT_EQ(later.error_event_after, 2);
  EXPECT_EQ(later.error_event_error, (OJson{{"message", "boom"}}));
  EXPECT_EQ(Parse({{"error_event", OJson::object()}}).error_event_after, 0);
}

TEST(Fault, AWaitLongerThanAClockHoldsIsRefused) {
  // 10^13 ms in nanoseconds overflows a 64-bit clock: the server aborted.
  for (const char* key : {"delay_ms", "stall_ms", "keepalive_ms", "retry_after_ms"}) {
    auto f = FaultFromJson(OJson{{key, 10'000'000'000'000}});
    ASSERT_FALSE(f) << key;
    EXPECT_EQ(f.error().pointer, std::string("/") + key);
    EXPECT_EQ(f.error().what,
              "expected at most 1000000000000 ms (about 31 years), got 10000000000000");
    EXPECT_TRUE(FaultFromJson(OJson{{key, 1'000'000'000'000}})) << key;
  }
  EXPECT_FALSE(FaultFromJson(OJson{{"cut_after_bytes", OJson::parse("18446744073709551615")}}));
}

TEST(Fault, EmptyOnlyWithoutAnEffect) {
  // Keys that change the response.
  for (const OJson& j : std::vector<OJson>{{{"status", 500}},
                                           {{"delay_ms", 1}},
                                           {{"cut_after_bytes", 0}},
                                           {{"cut_after_events", 0}},
                                           {{"drop_done", true}},
                                           {{"malformed_event", 0}},
                                           {{"resplit", true}},
                                           {{"crlf", true}},
                                           {{"bom", true}},
                                           {{"keepalive_ms", 5}},
                                           {{"error_event", true}},
                                           {{"stall_ms", 5}}}) {
    EXPECT_FALSE(Parse(j).Empty()) << j.dump();
  }
  // Keys that only qualify another fault, and effects switched off.
  for (const OJson& j : std::vector<OJson>{{{"times", 3}},
                                           {{"seed", 9}},
                                           {{"body", "x"}},
                                           {{"headers", {{"a", "b"}}}},
                                           {{"retry_after", 1}},
                                           {{"retry_after_ms", 1}},
                                           {{"stall_after_events", 2}},
                                           {{"delay_ms", 0}},
                                           {{"drop_done", false}},
                                           {{"resplit", false}}}) {
    EXPECT_TRUE(Parse(j).Empty()) << j.dump();
  }
}

TEST(Fault, ErrorsPointAtTheValueAndSayWhatWasExpected) {
  EXPECT_EQ(Rejected(OJson::array()), "/: expected an object, got []");
  EXPECT_EQ(Rejected(nullptr), "/: expected an object, got null");
  const std::string unknown = Rejected({{"status", 500}, {"nope", 1}});
  EXPECT_TRUE(unknown.starts_with("/nope: unknown fault \"nope\" (known: status, body,"))
      << unknown;
  EXPECT_EQ(Rejected({{"status", 99}}), "/status: expected a final HTTP status 200-599, got 99");
  // A 1xx is no final answer: sent as one, it left the client waiting or
  // took the next pipelined answer for its own.
  EXPECT_EQ(Rejected({{"status", 101}}), "/status: expected a final HTTP status 200-599, got 101");
  EXPECT_EQ(Rejected({{"status", 100}}), "/status: expected a final HTTP status 200-599, got 100");
  EXPECT_EQ(Rejected({{"status", 600}}), "/status: expected a final HTTP status 200-599, got 600");
  EXPECT_EQ(Rejected({{"status", "429"}}),
            "/status: expected a final HTTP status 200-599, got \"429\"");
  EXPECT_EQ(Rejected({{"status", 429.0}}),
            "/status: expected a final HTTP status 200-599, got 429.0");
  // Out of int's range, not wrapped into it (2^32 + 429).
  EXPECT_EQ(Rejected({{"status", 4294967725LL}}),
            "/status: expected a final HTTP status 200-599, got 4294967725");
  EXPECT_EQ(Rejected({{"retry_after", -1}}),
            "/retry_after: expected a non-negative number of seconds, got -1");
  EXPECT_EQ(Rejected({{"retry_after", "soon"}}),
            "/retry_after: expected a non-negative number of seconds, got \"soon\"");
  EXPECT_EQ(Rejected({{"headers", "x"}}), "/headers: expected an object of strings, got \"x\"");
  EXPECT_EQ(Rejected({{"headers", {{"x-a", 1}}}}), "/headers/x-a: expected a string, got 1");
  // Sent raw, such headers split the answer's head or forge another header.
  EXPECT_EQ(Rejected({{"headers",
                       {{"x-a",
                         "1\x0b"
                         "2"}}}}),
            "/headers/x-a: the header value holds a control character (0x0b at byte 1)");
  EXPECT_EQ(Rejected({{"headers", {{"X:Injected", "1"}}}}),
            "/headers/X:Injected: the header name \"X:Injected\" is not an HTTP token (byte 1 is "
            "':')");
  EXPECT_EQ(Rejected({{"headers", {{"Content-Length ", "3"}}}}),
            "/headers/Content-Length : the header name \"Content-Length \" is not an HTTP token "
            "(byte 14 is 0x20)");
  EXPECT_EQ(Parse({{"headers", {{"x-a", "tab\tok"}}}}).headers, (OJson{{"x-a", "tab\tok"}}));
  for (const char* key :
       {"retry_after_ms", "delay_ms", "cut_after_bytes", "cut_after_events", "malformed_event",
        "keepalive_ms", "stall_ms", "stall_after_events", "times", "seed"}) {
    EXPECT_EQ(Rejected({{key, -1}}),
              std::string("/") + key + ": expected a non-negative integer, got -1");
    EXPECT_EQ(Rejected({{key, 1.5}}),
              std::string("/") + key + ": expected a non-negative integer, got 1.5");
    if (std::string_view(key) != "seed") {  // a seed takes the whole unsigned range
      EXPECT_EQ(
          Rejected({{key, UINT64_MAX}}),
          std::string("/") + key + ": expected a non-negative integer, got 18446744073709551615");
    }
  }
  for (const char* key : {"drop_done", "resplit", "crlf", "bom"}) {
    EXPECT_EQ(Rejected({{key, 1}}), std::string("/") + key + ": expected true or false, got 1");
  }
  EXPECT_EQ(Rejected({{"keepalive_ms", 0}}),
            "/keepalive_ms: expected a positive number of milliseconds, got 0");
  EXPECT_EQ(Rejected({{"times", 0}}), "/times: expected a positive number of attempts, got 0");
  EXPECT_EQ(Rejected({{"error_event", 3}}).substr(0, 14), "/error_event: ");
  EXPECT_EQ(Rejected({{"error_event", {{"after_events", -2}}}}),
            "/error_event/after_events: expected a non-negative integer, got -2");
  EXPECT_EQ(Rejected({{"error_event", {{"error", "x"}}}}),
            "/error_event/error: expected an object, got \"x\"");
  EXPECT_EQ(Rejected({{"error_event", {{"when", 1}}}}),
            "/error_event/when: unknown field \"when\" (known: after_events, error, as)");
}

TEST(Fault, FlagsAddOneKeyEach) {
  OJson into = OJson::object();
  ASSERT_TRUE(AddFaultFlag(into, "status=429"));
  ASSERT_TRUE(AddFaultFlag(into, "retry_after=0.01"));
  ASSERT_TRUE(AddFaultFlag(into, "drop_done"));  // KEY alone: true
  ASSERT_TRUE(AddFaultFlag(into, "body=busy"));  // not JSON: a string
  ASSERT_TRUE(AddFaultFlag(into, R"(error_event={"after_events":2})"));
  ASSERT_TRUE(AddFaultFlag(into, "times=1"));
  ASSERT_TRUE(AddFaultFlag(into, "status=503"));  // a key again: the last one wins
  EXPECT_EQ(into, (OJson{{"status", 503},
                         {"retry_after", 0.01},
                         {"drop_done", true},
                         {"body", "busy"},
                         {"error_event", {{"after_events", 2}}},
                         {"times", 1}}));
  EXPECT_TRUE(FaultFromJson(into));
}

TEST(Fault, BadFlagsSayWhichAndLeaveTheObjectAlone) {
  OJson into = {{"status", 500}};
  const OJson before = into;
  auto expect_error = [&](std::string_view flag, std::string_view says) {
    auto r = AddFaultFlag(into, flag);
    ASSERT_FALSE(r) << flag;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
    EXPECT_EQ(into, before) << flag;
  };
  expect_error("", "--fault \"\": expected KEY[=VALUE]");
  expect_error("=429", "--fault \"=429\": expected KEY[=VALUE]");
  expect_error("nope=1", "--fault nope=1: unknown fault \"nope\"");
  expect_error("status=101", "--fault status=101: expected a final HTTP status 200-599, got 101");
  expect_error("status=abc",
               "--fault status=abc: expected a final HTTP status 200-599, got \"abc\"");
  expect_error("status", "--fault status: expected a final HTTP status 200-599, got true");
  expect_error("times=0", "--fault times=0: expected a positive number of attempts");
  expect_error("headers=[1]", "--fault headers=[1]: expected an object of strings");
}

TEST(Fault, MergeSetsEveryKeyOfTheExchangesFaultOverTheFlags) {
  const OJson flags = {{"status", 503}, {"times", 1}};
  EXPECT_EQ(MergeFaults(flags, {{"status", 429}, {"drop_done", true}}),
            (OJson{{"status", 429}, {"times", 1}, {"drop_done", true}}));
  EXPECT_EQ(MergeFaults(flags, OJson::object()), flags);
  EXPECT_EQ(MergeFaults(flags, nullptr), flags);
  EXPECT_EQ(MergeFaults(nullptr, flags), flags);
  EXPECT_EQ(MergeFaults("junk", "junk"), OJson::object());
}

// Any flag text: a value or an error naming the flag, never a crash; what is
// added is a valid fault of that one key.
RC_GTEST_PROP(FaultProperty, AnyFlagIsAddedOrRejectedWithItsText, ()) {
  const auto key = *rc::gen::oneOf(
      rc::gen::element<std::string>("status", "body", "retry_after", "headers", "delay_ms",
                                    "error_event", "seed", "times", "keepalive_ms", "crlf"),
      rc::gen::arbitrary<std::string>());
  const auto value = *rc::gen::oneOf(
      rc::gen::arbitrary<std::string>(),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(),
                   [](std::int64_t n) { return std::to_string(n); }),
      rc::gen::element<std::string>("true", "{}", R"({"after_events":1})", "[", "1e999", "-0",
                                    "18446744073709551616", "\"\\ud800\""));
  const std::string flag = *rc::gen::element(0, 1) == 0 ? key : key + "=" + value;
  OJson into = OJson::object();
  auto r = AddFaultFlag(into, flag);
  if (r) {
    RC_ASSERT(into.size() == 1u);
    RC_ASSERT(into.begin().key() == flag.substr(0, flag.find('=')));
    RC_ASSERT(FaultFromJson(into).has_value());
  } else {
    RC_ASSERT(into.empty());
    RC_ASSERT(r.error().message.starts_with("--fault "));
    RC_ASSERT(r.error().message.find(flag) != std::string::npos);
  }
}

// Any JSON object: a fault, or an error whose pointer names one of its keys.
RC_GTEST_PROP(FaultProperty, AnyObjectIsAFaultOrAPointedError, ()) {
  const auto keys = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "status", "delay_ms", "drop_done", "times", "error_event", "headers", "seed", "other"));
  OJson j = OJson::object();
  for (const auto& k : keys) {
    j[k] = *rc::gen::oneOf(
        rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return OJson(n); }),
        rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return OJson(b); }),
        rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string s) { return OJson(s); }),
        rc::gen::just(OJson{{"after_events", 1}}), rc::gen::just(OJson(nullptr)));
  }
  auto f = FaultFromJson(j);
  if (!f) {
    RC_ASSERT(f.error().pointer.has_value());
    const std::string& p = *f.error().pointer;
    RC_ASSERT(p.starts_with("/"));
    const std::string key = p.substr(1, p.find('/', 1) - 1);
    RC_ASSERT(j.contains(key));
    RC_ASSERT(!f.error().what.empty());
  }
}

}  // namespace
}  // namespace llmconform::mockllm
