#include "mockllm/replay_book.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kPath = "/v1/chat/completions";

Json Ask(std::string_view text) {
  return {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", std::string(text)}}}}};
}

OJson Answer(std::string_view text) {
  return {{"id", "c"}, {"choices", {{{"message", {{"content", std::string(text)}}}}}}};
}

// A trace whose exchange i is asked `asks[i]` and answered `answers[i]`;
// `faults[i]`, when given and not null, is its `fault` object.
Trace MakeTrace(std::string id, const std::vector<std::string>& asks,
                const std::vector<OJson>& faults = {}) {
  Trace t;
  t.id = id;
  t.source = id + ".trace.jsonl";
  t.header = {{"format", "llmconform-trace/1"}, {"id", id}, {"model", "m"}};
  for (std::size_t i = 0; i < asks.size(); ++i) {
    Exchange x;
    x.line = i + 2;
    x.request.path = std::string(kPath);
    x.request.body = OJson(Ask(asks[i]));
    x.response.body = Answer("answer to " + asks[i]);
    if (i < faults.size() && !faults[i].is_null()) x.fault = faults[i];
    t.exchanges.push_back(std::move(x));
  }
  return t;
}

std::unique_ptr<ReplayBook> Book(std::vector<Trace> traces, const ReplayOptions& options = {}) {
  auto book = ReplayBook::Build(std::move(traces), options);
  EXPECT_TRUE(book) << book.error().message;
  return book ? std::move(*book) : nullptr;
}

Verdict Pinned(ReplayBook& book, const std::string& trace, const std::string& session,
               std::string_view ask) {
  return book.ReplayPinned(trace, session, "POST", kPath, Ask(ask));
}

// The replayed body, or the error body's type when the verdict is an error.
std::string Said(const Verdict& v) {
  if (v.plan) return v.plan->Body();
  return "error " + v.error_body["error"]["type"].get<std::string>();
}

// Which exchange answered, with what status, and whether as a retry.
void ExpectAnswer(const Verdict& v, bool retry, std::size_t exchange, int status) {
  EXPECT_EQ(v.retry, retry);
  EXPECT_EQ(v.exchange, exchange);
  EXPECT_EQ(v.status, status);
}

std::string AnswerText(std::string_view ask) {
  return Answer("answer to " + std::string(ask)).dump();
}

TEST(ReplayBook, BuildRejectsBadIgnorePathsFaultsAndDuplicateIds) {
  EXPECT_FALSE(ReplayBook::Build({}, {.ignore_paths = {"no-slash"}}));

  auto bad_fault = ReplayBook::Build({MakeTrace("t", {"a"}, {OJson{{"status", "x"}}})}, {});
  ASSERT_FALSE(bad_fault);
  EXPECT_NE(bad_fault.error().message.find("t.trace.jsonl:2: /fault/status"), std::string::npos)
      << bad_fault.error().message;

  auto bad_flag = ReplayBook::Build({MakeTrace("t", {"a"})}, {.fault = {{"times", 0}}});
  ASSERT_FALSE(bad_flag);
  EXPECT_NE(bad_flag.error().message.find("/fault/times"), std::string::npos);

  auto twice = ReplayBook::Build({MakeTrace("t", {"a"}), MakeTrace("t", {"b"})}, {});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("\"t\" is loaded twice"), std::string::npos);
}

TEST(ReplayBook, AddRefusesALoadedIdAndLoadsNothingThen) {
  auto book = Book({MakeTrace("t", {"a"})});
  auto again = book->Add({MakeTrace("u", {"b"}), MakeTrace("t", {"c"})});
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("\"t\" is loaded twice"), std::string::npos);
  EXPECT_EQ(book->TraceIds(), std::vector<std::string>{"t"});
  EXPECT_FALSE(book->HasTrace("u"));

  auto added = book->Add({MakeTrace("u", {"a"})});
  ASSERT_TRUE(added);
  ASSERT_EQ(added->size(), 1u);  // "a" is recorded in both
  EXPECT_NE((*added)[0].find("unpinned /v1 answers it from \"t\""), std::string::npos);
  EXPECT_EQ(book->Warnings(), *added);
  EXPECT_EQ(book->TraceIds(), (std::vector<std::string>{"t", "u"}));
}

TEST(ReplayBook, ExchangesBuiltFromJsonAreNamedByTheirSourceAlone) {
  // The admin API's posted traces have no lines (Exchange::line 0).
  auto posted = [](std::string id, const std::vector<OJson>& faults = {}) {
    Trace t = MakeTrace(std::move(id), {"a"}, faults);
    t.source = "POST /__admin/traces";
    t.exchanges[0].line = 0;
    return t;
  };
  auto book = Book({MakeTrace("t", {"a"})});
  auto added = book->Add({posted("u")});
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(*added, std::vector<std::string>{
                        "traces \"t\" (t.trace.jsonl:2, exchange 0) and \"u\" (POST "
                        "/__admin/traces, exchange 0) record identical requests; unpinned /v1 "
                        "answers it from \"t\""});
  auto bad_fault = book->Add({posted("v", {OJson{{"status", "x"}}})});
  ASSERT_FALSE(bad_fault);
  EXPECT_TRUE(bad_fault.error().message.starts_with("POST /__admin/traces: /fault/status"))
      << bad_fault.error().message;
}

TEST(ReplayBook, PinnedAnswersInOrderThenIsExhausted) {
  auto book = Book({MakeTrace("t", {"a", "b"})});
  const Verdict first = Pinned(*book, "t", "s", "a");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.trace, "t");
  EXPECT_EQ(first.exchange, 0u);
  EXPECT_FALSE(first.mismatch);
  EXPECT_TRUE(first.findings.empty());
  EXPECT_EQ(Said(first), AnswerText("a"));
  EXPECT_EQ(Said(Pinned(*book, "t", "s", "b")), AnswerText("b"));

  const Verdict past = Pinned(*book, "t", "s", "b");
  EXPECT_EQ(past.status, 400);
  EXPECT_EQ(past.plan, nullptr);
  EXPECT_TRUE(past.mismatch);
  EXPECT_EQ(Said(past), "error mockllm_trace_exhausted");
  EXPECT_EQ(past.error_body["error"]["trace"], "t");
  EXPECT_EQ(past.error_body["error"]["session"], "s");
  ASSERT_EQ(past.findings.size(), 1u);
  EXPECT_EQ(past.findings[0].kind, FindingKind::kTraceExhausted);
  EXPECT_NE(past.findings[0].message.find("request 3 of session \"s\""), std::string::npos);
  EXPECT_NE(past.findings[0].message.find("2 exchange(s)"), std::string::npos);
}

TEST(ReplayBook, SessionsAreKeyedByTraceAndSessionName) {
  auto book = Book({MakeTrace("t", {"a", "b"}), MakeTrace("u", {"a", "b"})});
  EXPECT_EQ(Pinned(*book, "t", "one", "a").exchange, 0u);
  EXPECT_EQ(Pinned(*book, "t", "two", "a").exchange, 0u);  // another session starts afresh
  EXPECT_EQ(Pinned(*book, "u", "one", "a").exchange, 0u);  // the same name on another trace too
  EXPECT_EQ(Pinned(*book, "t", "one", "b").exchange, 1u);
  EXPECT_EQ(book->SessionCount(), 3u);

  const Json sessions = book->Sessions();
  ASSERT_EQ(sessions.size(), 3u);
  EXPECT_EQ(sessions[0], (Json{{"trace", "t"},
                               {"session", "one"},
                               {"cursor", 2},
                               {"exchanges", 2},
                               {"unused", Json::array()},
                               {"touched", true}}));
  EXPECT_EQ(sessions[1]["session"], "two");
  EXPECT_EQ(sessions[1]["unused"], Json::array({1}));
  EXPECT_EQ(sessions[2]["trace"], "u");

  book->Reset();
  EXPECT_EQ(book->SessionCount(), 0u);
  EXPECT_EQ(Pinned(*book, "t", "one", "a").exchange, 0u);
}

TEST(ReplayBook, UntouchedTracesAreListedAsSuch) {
  auto book = Book({MakeTrace("t", {"a", "b"})});
  EXPECT_EQ(book->Sessions(), Json::array({Json{{"trace", "t"},
                                                {"session", nullptr},
                                                {"cursor", 0},
                                                {"exchanges", 2},
                                                {"unused", {0, 1}},
                                                {"touched", false}}}));
}

TEST(ReplayBook, UnknownTraceIsA404Finding) {
  auto book = Book({MakeTrace("t", {"a"})});
  const Verdict v = Pinned(*book, "nope", "s", "a");
  EXPECT_EQ(v.status, 404);
  EXPECT_TRUE(v.mismatch);
  EXPECT_EQ(Said(v), "error mockllm_unknown_trace");
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].kind, FindingKind::kUnknownTrace);
  EXPECT_EQ(book->SessionCount(), 0u);
}

TEST(ReplayBook, StrictMismatchNamesEveryDifferenceAndUsesUpThePosition) {
  auto book = Book({MakeTrace("t", {"a", "b"})});
  const Verdict v = Pinned(*book, "t", "s", "z");
  EXPECT_EQ(v.status, 400);
  EXPECT_EQ(v.plan, nullptr);
  EXPECT_TRUE(v.mismatch);
  EXPECT_EQ(v.exchange, 0u);
  const Json& e = v.error_body["error"];
  EXPECT_EQ(e["type"], "mockllm_request_mismatch");
  EXPECT_EQ(e["pointer"], "/messages/0/content");
  EXPECT_EQ(e["expected"], "a");
  EXPECT_EQ(e["actual"], "z");
  EXPECT_EQ(e["differences"].size(), 1u);
  EXPECT_EQ(e["exchange"], 0);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].kind, FindingKind::kRequestMismatch);
  EXPECT_NE(v.findings[0].message.find("(line 2)"), std::string::npos);
  // The mismatched request used up exchange 0.
  EXPECT_EQ(Pinned(*book, "t", "s", "b").exchange, 1u);

  // Another path is one difference at the "" pointer, naming both request lines.
  const Verdict path = book->ReplayPinned("t", "p", "POST", "/v1/embeddings", Ask("a"));
  EXPECT_EQ(path.error_body["error"]["pointer"], "");
  EXPECT_EQ(path.error_body["error"]["expected"], "POST /v1/chat/completions");
  EXPECT_EQ(path.error_body["error"]["actual"], "POST /v1/embeddings");
}

TEST(ReplayBook, LenientMismatchReplaysWithAFinding) {
  auto book = Book({MakeTrace("t", {"a"})}, {.strict = false});
  const Verdict v = Pinned(*book, "t", "s", "z");
  EXPECT_EQ(v.status, 200);
  EXPECT_TRUE(v.mismatch);
  EXPECT_EQ(Said(v), AnswerText("a"));
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].kind, FindingKind::kRequestMismatch);
}

TEST(ReplayBook, IgnoredPathsAndSecretsDoNotCount) {
  auto book = Book({MakeTrace("t", {"a", "b"})}, {.ignore_paths = {"/messages/*/content"}});
  EXPECT_EQ(Said(Pinned(*book, "t", "s", "anything")), AnswerText("a"));
  EXPECT_EQ(Said(Pinned(*book, "t", "s", "else")), AnswerText("b"));
}

TEST(ReplayBook, InjectedFaultThenTheRetryIsAnotherAttemptAtTheSameExchange) {
  auto book = Book({MakeTrace("t", {"a", "b"}, {OJson{{"status", 429}, {"times", 1}}})});
  const Verdict first = Pinned(*book, "t", "s", "a");
  EXPECT_EQ(first.status, 429);
  EXPECT_EQ(first.attempt, 1u);
  EXPECT_FALSE(first.retry);
  ASSERT_NE(first.fault, nullptr);
  EXPECT_EQ((*first.fault)["status"], 429);

  const Verdict retry = Pinned(*book, "t", "s", "a");
  EXPECT_TRUE(retry.retry);
  EXPECT_EQ(retry.exchange, 0u);
  EXPECT_EQ(retry.attempt, 2u);
  EXPECT_EQ(retry.status, 200);  // `times` 1: the fault is spent
  EXPECT_EQ(Said(retry), AnswerText("a"));
  ASSERT_NE(retry.fault, nullptr);
  EXPECT_TRUE(retry.fault->empty());

  // A clean answer is not retried: the same request again is the next one.
  ExpectAnswer(Pinned(*book, "t", "s", "a"), false, 1, 400);
}

TEST(ReplayBook, WithoutTimesEveryAttemptIsFaulted) {
  auto book = Book({MakeTrace("t", {"a", "b"}, {OJson{{"status", 500}}})});
  for (std::size_t attempt = 1; attempt <= 4; ++attempt) {
    const Verdict v = Pinned(*book, "t", "s", "a");
    ExpectAnswer(v, attempt > 1, 0, 500);
    EXPECT_EQ(v.attempt, attempt);
  }
  // Another request after a fault moves on.
  ExpectAnswer(Pinned(*book, "t", "s", "b"), false, 1, 200);
}

TEST(ReplayBook, ARecordedRetryReplaysInOrder) {
  // Exchange 1 records the same request as exchange 0: the repeat is exchange 1.
  auto book = Book({MakeTrace("t", {"a", "a"}, {OJson{{"status", 429}}})});
  EXPECT_EQ(Pinned(*book, "t", "s", "a").status, 429);
  ExpectAnswer(Pinned(*book, "t", "s", "a"), false, 1, 200);
}

TEST(ReplayBook, FaultOptionAppliesUnderEachExchangesOwn) {
  auto book = Book({MakeTrace("t", {"a", "b", "c"}, {nullptr, OJson{{"status", 429}}})},
                   {.fault = {{"status", 503}, {"times", 1}}});
  EXPECT_EQ(Pinned(*book, "t", "s", "a").status, 503);
  EXPECT_EQ(Pinned(*book, "t", "s", "a").status, 200);  // its retry, past `times`
  const Verdict b = Pinned(*book, "t", "s", "b");
  EXPECT_EQ(b.status, 429);
  EXPECT_EQ(*b.fault, (OJson{{"status", 429}, {"times", 1}}));
  EXPECT_EQ(Pinned(*book, "t", "s", "c").status, 503);
  EXPECT_EQ(Pinned(*book, "t", "other", "a").status, 503);  // attempts are per session
}

TEST(ReplayBook, LeastRecentlyUsedSessionsAreForgottenPastTheCap) {
  auto book = Book({MakeTrace("t", {"a", "b"})}, {.max_sessions = 2});
  Pinned(*book, "t", "x", "a");
  Pinned(*book, "t", "y", "a");
  Pinned(*book, "t", "x", "b");  // x is now the most recent
  Pinned(*book, "t", "z", "a");  // evicts y
  EXPECT_EQ(book->SessionCount(), 2u);
  EXPECT_EQ(book->SessionsEvicted(), 1u);
  // x kept its cursor (exhausted now); y starts again at the first exchange.
  EXPECT_EQ(Said(Pinned(*book, "t", "x", "b")), "error mockllm_trace_exhausted");
  EXPECT_EQ(Pinned(*book, "t", "y", "a").exchange, 0u);
  EXPECT_EQ(book->SessionsEvicted(), 2u);  // y came back in place of z
  EXPECT_EQ(book->SessionCount(), 2u);
}

TEST(ReplayBook, EvictionForgetsAFaultedSessionsAttempts) {
  auto book =
      Book({MakeTrace("t", {"a"}, {OJson{{"status", 429}, {"times", 1}}})}, {.max_sessions = 1});
  EXPECT_EQ(Pinned(*book, "t", "x", "a").status, 429);
  Pinned(*book, "t", "y", "a");  // evicts x, and with it x's pending retry
  const Verdict again = Pinned(*book, "t", "x", "a");
  EXPECT_FALSE(again.retry);
  EXPECT_EQ(again.attempt, 1u);
  EXPECT_EQ(again.status, 429);
}

TEST(ReplayBook, RemoveForgetsTheTraceAndItsSessions) {
  auto book = Book({MakeTrace("t", {"a", "b"}), MakeTrace("u", {"c"})}, {.max_sessions = 2});
  Pinned(*book, "t", "x", "a");
  EXPECT_TRUE(book->Remove("t"));
  EXPECT_FALSE(book->Remove("t"));
  EXPECT_FALSE(book->HasTrace("t"));
  EXPECT_EQ(book->SessionCount(), 0u);
  EXPECT_EQ(Said(Pinned(*book, "t", "x", "a")), "error mockllm_unknown_trace");

  // Loaded again, the trace starts afresh, and the LRU order knows only live sessions.
  ASSERT_TRUE(book->Add({MakeTrace("t", {"a", "b"})}));
  EXPECT_EQ(Pinned(*book, "t", "x", "a").exchange, 0u);
  Pinned(*book, "u", "y", "c");
  Pinned(*book, "t", "x", "b");  // x is the most recent: y goes next
  Pinned(*book, "u", "z", "c");
  EXPECT_EQ(book->SessionsEvicted(), 1u);
  EXPECT_EQ(Said(Pinned(*book, "t", "x", "b")), "error mockllm_trace_exhausted");
}

TEST(ReplayBook, UnpinnedAnswersTheFirstEqualExchangeAsOftenAsAsked) {
  auto book = Book({MakeTrace("t", {"a", "b"}), MakeTrace("u", {"c"})});
  for (int i = 0; i < 3; ++i) {
    const Verdict v = book->ReplayUnpinned("POST", kPath, Ask("c"));
    EXPECT_EQ(v.status, 200);
    EXPECT_EQ(v.trace, "u");
    EXPECT_EQ(v.exchange, 0u);
    EXPECT_FALSE(v.mismatch);
    EXPECT_EQ(Said(v), AnswerText("c"));
  }
  // Unpinned matching drops the API's defaults; pinned (strict) does not.
  Json with_default = Ask("b");
  with_default["n"] = 1;
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, with_default).exchange, 1u);
  Json pinned_default = Ask("a");
  pinned_default["n"] = 1;
  EXPECT_TRUE(book->ReplayPinned("t", "s", "POST", kPath, pinned_default).mismatch);

  const Json sessions = book->Sessions();  // t's session s, t unpinned, u unpinned
  ASSERT_EQ(sessions.size(), 3u);
  EXPECT_EQ(sessions[0]["session"], "s");
  EXPECT_EQ(sessions[1]["unpinned"], true);
  EXPECT_EQ(sessions[1]["unused"], Json::array({0}));
  EXPECT_EQ(sessions[2]["trace"], "u");
  EXPECT_EQ(sessions[2]["unpinned"], true);
}

// Unpinned replay finds a request among many traces through an index kept
// in step with Add and Remove: the first trace in load order that records it
// answers, and the next one once that one is removed.
TEST(ReplayBook, UnpinnedFindsTheFirstRecordingAmongManyAsTracesComeAndGo) {
  std::vector<Trace> traces;
  for (int i = 0; i < 200; ++i)
    traces.push_back(MakeTrace("t" + std::to_string(i), {"q" + std::to_string(i)}));
  traces.push_back(MakeTrace("dup1", {"q150"}));
  auto book = Book(std::move(traces));
  for (int i : {0, 77, 199}) {
    const Verdict v = book->ReplayUnpinned("POST", kPath, Ask("q" + std::to_string(i)));
    EXPECT_EQ(v.trace, "t" + std::to_string(i));
    EXPECT_EQ(Said(v), AnswerText("q" + std::to_string(i)));
  }
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("q150")).trace, "t150");
  ASSERT_TRUE(book->Remove("t150"));
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("q150")).trace, "dup1");
  ASSERT_TRUE(book->Add({MakeTrace("late", {"new"})}));
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("new")).trace, "late");
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("q199")).trace, "t199");
  ASSERT_TRUE(book->Remove("dup1"));
  const Verdict gone = book->ReplayUnpinned("POST", kPath, Ask("q150"));
  EXPECT_TRUE(gone.mismatch);
  EXPECT_EQ(gone.status, 404);
  EXPECT_FALSE(book->Remove("dup1"));
  EXPECT_TRUE(book->ReplayPinned("t42", "s", "POST", kPath, Ask("q42")).plan);
}

TEST(ReplayBook, UnpinnedNoMatchNamesTheNearest) {
  auto book = Book({MakeTrace("t", {"a", "b"})});
  Json near = Ask("b");
  near["temperature"] = 0.5;
  const Verdict v = book->ReplayUnpinned("POST", kPath, near);
  EXPECT_EQ(v.status, 404);
  EXPECT_TRUE(v.mismatch);
  EXPECT_EQ(v.plan, nullptr);
  EXPECT_EQ(Said(v), "error mockllm_no_match");
  EXPECT_EQ(v.nearest["trace"], "t");
  EXPECT_EQ(v.nearest["exchange"], 1);
  EXPECT_EQ(v.nearest["line"], 3);
  EXPECT_EQ(v.nearest["differences"],
            Json::array({Json{{"pointer", "/temperature"}, {"actual", 0.5}}}));
  EXPECT_EQ(v.error_body["error"]["nearest"], v.nearest);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].kind, FindingKind::kNoMatch);
  EXPECT_NE(v.findings[0].message.find("compared with 2 exchange(s) in 1 trace(s)"),
            std::string::npos);

  // Nothing on that path: no nearest.
  const Verdict other = book->ReplayUnpinned("POST", "/v1/embeddings", Ask("a"));
  EXPECT_EQ(other.status, 404);
  EXPECT_TRUE(other.nearest.is_null());
  EXPECT_FALSE(other.error_body["error"].contains("nearest"));
}

// One request that matches nothing is compared with the recorded ones only
// within a budget of JSON values walked: the search for the nearest stops,
// names the nearest so far, and says how far it went.
TEST(ReplayBook, TheSearchForTheNearestIsBounded) {
  constexpr std::size_t kExchanges = 40, kValues = 40000;
  Json big = Json::array();
  for (std::size_t i = 0; i < kValues; ++i) big.push_back(i);
  Trace t = MakeTrace("big", std::vector<std::string>(kExchanges, "same"));
  for (std::size_t i = 0; i < kExchanges; ++i) {
    (*t.exchanges[i].request.body)["big"] = big;
    (*t.exchanges[i].request.body)["x"] = i;
  }
  auto book = Book({std::move(t)});
  Json ask = Ask("same");
  ask["big"] = big;
  ask["x"] = -1;
  const Verdict v = book->NoMatchUnpinned("POST", kPath, ask);
  EXPECT_EQ(v.status, 404);
  ASSERT_FALSE(v.nearest.is_null());
  // Each exchange costs kValues values: the budget runs out before the last.
  const std::size_t searched = v.nearest["searched"].get<std::size_t>();
  EXPECT_EQ(searched, kNearestBudget / (kValues + 8));
  EXPECT_EQ(v.nearest["exchange"], 0);
  EXPECT_EQ(v.nearest["differences"],
            Json::array({Json{{"pointer", "/x"}, {"expected", 0}, {"actual", -1}}}));
  EXPECT_NE(v.findings[0].message.find("; the search for the nearest stopped after " +
                                       std::to_string(searched) +
                                       " exchange(s) with this method and path"),
            std::string::npos)
      << v.findings[0].message;
  // The exact match is still found at once, however big.
  ask["x"] = kExchanges - 1;
  const auto hit = book->MatchUnpinned("POST", kPath, ask);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->exchange, kExchanges - 1);
}

TEST(ReplayBook, UnpinnedTimesCountsAttemptsPerSession) {
  auto book = Book({MakeTrace("t", {"a"}, {OJson{{"status", 429}, {"times", 2}}})});
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "s").status, 429);
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "s").status, 429);
  const Verdict third = book->ReplayUnpinned("POST", kPath, Ask("a"), "s");
  EXPECT_EQ(third.status, 200);
  EXPECT_EQ(third.attempt, 3u);
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "other").status, 429);
  book->Reset();
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "s").status, 429);
}

TEST(ReplayBook, UnpinnedAttemptsAreBoundedByTheSessionCap) {
  auto book =
      Book({MakeTrace("t", {"a"}, {OJson{{"status", 429}, {"times", 1}}})}, {.max_sessions = 2});
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "s0").status, 429);
  EXPECT_EQ(book->ReplayUnpinned("POST", kPath, Ask("a"), "s0").status, 200);
  // Many other sessions: only max_sessions sessions' worth of attempts are kept.
  for (int i = 1; i <= 5; ++i) {
    book->ReplayUnpinned("POST", kPath, Ask("a"), "s" + std::to_string(i));
  }
  EXPECT_LE(book->SessionCount(), 2u);
  // s0 was forgotten: its first attempt again.
  const Verdict again = book->ReplayUnpinned("POST", kPath, Ask("a"), "s0");
  EXPECT_EQ(again.attempt, 1u);
  EXPECT_EQ(again.status, 429);
}

TEST(ReplayBook, ModelsAndKnownPaths) {
  Trace t = MakeTrace("t", {"a"});
  t.header["model"] = "header-model";
  t.exchanges[0].request.body = OJson{{"model", "body-model"}};
  auto book = Book({std::move(t), MakeTrace("u", {"b"})});
  EXPECT_EQ(book->Models(std::nullopt),
            (std::vector<std::string>{"body-model", "header-model", "m"}));
  EXPECT_EQ(book->Models("t"), (std::vector<std::string>{"body-model", "header-model"}));
  EXPECT_TRUE(book->Models("nope").empty());
  EXPECT_TRUE(book->KnownPath("POST", "/v1/anything"));
  EXPECT_FALSE(book->KnownPath("POST", "/elsewhere"));
}

}  // namespace
}  // namespace llmconform::mockllm
