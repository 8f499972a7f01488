#include "harness/runner.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/json_read.h"
#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "harness/suites/registry.h"
#include "harness/suites/suite_test_support.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using reports::Outcome;

using ::llmconform::test_paths::kRoot;

const Scenario& Find(std::string_view protocol, std::string_view name) {
  for (const auto& s : BundledSpecs().scenarios) {
    if (s.protocol == protocol && s.name == name) return s;
  }
  throw std::runtime_error("no scenario " + std::string(protocol) + "/" + std::string(name));
}

// The events a run tells its reporter, in order.
class Recorder : public reports::Reporter {
 public:
  void OnRunStart(const reports::RunStartInfo& info) override {
    events.push_back("start " + std::to_string(info.scenario_count));
  }
  void OnScenarioStart(const reports::ScenarioInfo& s) override {
    events.push_back("begin " + s.Id());
  }
  void OnCheckResult(const reports::ScenarioInfo& s, const reports::CheckResult& c) override {
    events.push_back("check " + s.Id() + " " + c.rule);
  }
  void OnScenarioEnd(const reports::ScenarioResult& r) override {
    events.push_back("end " + r.info.Id());
  }
  void OnRunEnd(const reports::RunResult& run) override {
    events.push_back("done " + std::to_string(run.scenarios.size()));
  }
  std::vector<std::string> events;
};

RunOptions Options(std::string filter = "") {
  RunOptions o;
  o.source_root = kRoot;
  o.filter = std::move(filter);
  o.tool_version = "test";
  return o;
}

void ExpectAll(const reports::ScenarioResult& r, Outcome outcome, std::string_view says = "") {
  for (const auto& c : r.checks) {
    EXPECT_EQ(c.outcome, outcome) << r.info.Id() << " " << c.rule << ": " << c.message;
    EXPECT_NE(c.message.find(says), std::string::npos) << c.message;
  }
}

// A suite whose driver does what a test says and records what it was given.
class FakeSuite : public ProtocolSuite {
 public:
  enum class Drives { kObservation, kError, kThrow };
  explicit FakeSuite(Drives drives) : drives_(drives) {}
  std::string_view protocol() const override { return "action"; }
  std::expected<Observation, Error> Drive(const Scenario&, const DriveContext& ctx) override {
    seen = ctx;
    switch (drives_) {
      case Drives::kError:
        return std::unexpected(Error{"input/utterance: missing"});
      case Drives::kThrow:
        throw std::runtime_error("boom");
      case Drives::kObservation:
        break;
    }
    Observation obs;
    obs.outputs = {{"driven", true}};
    return obs;
  }
  std::vector<reports::CheckResult> Check(const Scenario&, const Observation&) const override {
    return {};
  }
  DriveContext seen;

 private:
  Drives drives_;
};

TEST(JournalTurns, ARefusedAttemptAndItsUnchangedRetryAreOneTurn) {
  const Json ask = {{"messages", Json::array({{{"role", "user"}, {"content", "hi"}}})}};
  const Json other = {{"messages", Json::array()}};
  auto entry = [](const Json& body, int status) {
    return Json{{"request", {{"body", body}}}, {"response", {{"status", status}}}};
  };
  const Json journal = Json::array({entry(ask, 429), entry(ask, 200), entry(ask, 200),
                                    entry(other, 429), entry(ask, 200), entry(other, 429)});
  const Json turns = JournalTurns(journal);
  // The attempts before the last of a run of equal requests go, whatever
  // they were answered (a 429, or OpenRouter's 200 with an error body); a
  // request followed by a different one, and the last, are turns.
  ASSERT_EQ(turns.size(), 4u);
  EXPECT_EQ(turns[0], journal[2]);
  EXPECT_EQ(turns[1], journal[3]);
  EXPECT_EQ(turns[2], journal[4]);
  EXPECT_EQ(turns[3], journal[5]);
}

TEST(JournalTurns, AnyShapeIsReadWithoutThrowing) {
  for (const char* text :
       {R"({"a":1})", R"([1,"x",null,[],{}])", R"([{"response":[429]},{}])",
        R"([{"response":{"status":"429"}},{"request":7}])",
        R"([{"response":{"status":429},"request":{"body":1}},{"request":{"body":1}}])"}) {
    const Json journal = Json::parse(text);
    Json turns;
    EXPECT_NO_THROW(turns = JournalTurns(journal)) << text;
    EXPECT_LE(turns.is_array() ? turns.size() : 0, journal.is_array() ? journal.size() : 0);
  }
  EXPECT_EQ(JournalTurns(
                Json::parse(
                    R"([{"response":{"status":429},"request":{"body":1}},{"request":{"body":1}}])"))
                .size(),
            1u);
}

TEST(Runner, RunsABundledScenarioAgainstItsFixture) {
  Recorder reporter;
  const reports::RunResult run =
      RunScenarios(BundledSpecs(), Options("action/seed-open-safari"), reporter);
  ASSERT_EQ(run.scenarios.size(), 1u);
  const reports::ScenarioResult& r = run.scenarios[0];
  EXPECT_EQ(r.info.Id(), "action/seed-open-safari");
  EXPECT_EQ(r.info.file, "specs/action/seed-open-safari.json");
  EXPECT_EQ(r.info.trace, "fixtures/synthesized/action-seed-open-safari.trace.jsonl");
  EXPECT_EQ(r.info.provider, "openai");
  EXPECT_EQ(r.checks.size(), Find("action", "seed-open-safari").rules.size());
  ExpectAll(r, Outcome::kPass);
  EXPECT_EQ(run.tool_version, "test");
  EXPECT_FALSE(run.rules.empty());  // every protocol's catalogue

  ASSERT_FALSE(reporter.events.empty());
  EXPECT_EQ(reporter.events.front(), "start 1");
  EXPECT_EQ(reporter.events[1], "begin action/seed-open-safari");
  EXPECT_EQ(reporter.events[2], "check action/seed-open-safari ACT-1");
  EXPECT_EQ(reporter.events[reporter.events.size() - 2], "end action/seed-open-safari");
  EXPECT_EQ(reporter.events.back(), "done 1");
}

TEST(Runner, AFailingScenarioDoesNotStopTheRunAndOrderIsKept) {
  SpecSet specs;
  specs.rules = BundledSpecs().rules;
  Scenario missing = Find("action", "seed-open-safari");
  missing.name = "missing-trace";
  missing.trace = "fixtures/synthesized/no-such.trace.jsonl";
  Scenario unknown = missing;
  unknown.name = "unknown-protocol";
  unknown.protocol = "nosuch";
  specs.scenarios = {Find("action", "fenced-json"), missing, unknown,
                     Find("action", "seed-open-safari")};

  for (int jobs : {1, 2}) {
    Recorder reporter;
    RunOptions options = Options();
    options.jobs = jobs;
    const reports::RunResult run = RunScenarios(specs, options, reporter);
    ASSERT_EQ(run.scenarios.size(), 4u);
    EXPECT_EQ(run.scenarios[0].info.name, "fenced-json");
    ExpectAll(run.scenarios[0], Outcome::kPass);

    const reports::ScenarioResult& m = run.scenarios[1];
    EXPECT_EQ(m.checks.size(), missing.rules.size());  // an Error for every rule
    ExpectAll(m, Outcome::kError, "trace fixtures/synthesized/no-such.trace.jsonl: ");

    const reports::ScenarioResult& u = run.scenarios[2];
    EXPECT_EQ(u.checks.size(), unknown.rules.size());
    ExpectAll(u, Outcome::kError, "no suite drives protocol \"nosuch\"");

    EXPECT_EQ(run.scenarios[3].info.name, "seed-open-safari");
    ExpectAll(run.scenarios[3], Outcome::kPass);

    // The reporter heard of them one by one in spec order, whatever the jobs.
    std::vector<std::string> ends;
    for (const auto& e : reporter.events) {
      if (e.starts_with("end ")) ends.push_back(e);
    }
    EXPECT_EQ(ends, (std::vector<std::string>{"end action/fenced-json", "end action/missing-trace",
                                              "end nosuch/unknown-protocol",
                                              "end action/seed-open-safari"}));
  }
}

TEST(Runner, FilterAndShardSelectScenarios) {
  Recorder reporter;
  const reports::RunResult none = RunScenarios(BundledSpecs(), Options("no-such-*"), reporter);
  EXPECT_TRUE(none.scenarios.empty());
  EXPECT_EQ(reporter.events, (std::vector<std::string>{"start 0", "done 0"}));

  Scenario s;
  s.protocol = "skill";
  s.name = "git-quick-commit";
  EXPECT_TRUE(MatchesFilter(s, ""));
  EXPECT_TRUE(MatchesFilter(s, "skill/*"));
  EXPECT_TRUE(MatchesFilter(s, "skill"));  // the protocol alone
  EXPECT_TRUE(MatchesFilter(s, "git-*"));  // the name alone
  EXPECT_TRUE(MatchesFilter(s, "*/git-quick*"));
  EXPECT_FALSE(MatchesFilter(s, "action/*"));
  EXPECT_FALSE(MatchesFilter(s, "other/git-quick-commit"));
  EXPECT_FALSE(MatchesFilter(s, "git"));
  EXPECT_TRUE(MatchesFilter(s, "action/*,skill/git-*"));  // any of several globs
  EXPECT_TRUE(MatchesFilter(s, ",skill"));
  EXPECT_FALSE(MatchesFilter(s, "action/*,gymbro"));
  EXPECT_FALSE(MatchesFilter(s, ","));
}

TEST(Runner, ObserveGivesTheDriverAReplayingServerAndAttachesItsJournal) {
  const Scenario& s = Find("action", "seed-open-safari");
  ScratchDir work;
  ASSERT_FALSE(work.path().empty());

  FakeSuite fake(FakeSuite::Drives::kObservation);
  auto obs = ObserveScenario(fake, s, kRoot, work.path());
  ASSERT_TRUE(obs) << obs.error().message;
  EXPECT_EQ(obs->outputs, (Json{{"driven", true}}));
  EXPECT_TRUE(fake.seen.llm_base_url.starts_with("http://127.0.0.1:")) << fake.seen.llm_base_url;
  EXPECT_TRUE(fake.seen.llm_base_url.ends_with("/v1")) << fake.seen.llm_base_url;
  EXPECT_EQ(fake.seen.work_dir, work.path());
  EXPECT_EQ(fake.seen.source_root, kRoot);
  EXPECT_EQ(obs->journal, Json::array());  // nothing was asked

  // The reference driver asks, and its requests are in the journal.
  const SuiteKind* kind = FindSuite("action");
  ASSERT_NE(kind, nullptr);
  auto suite = kind->make();
  auto real = ObserveScenario(*suite, s, kRoot, work.path());
  ASSERT_TRUE(real) << real.error().message;
  ASSERT_TRUE(real->journal.is_array());
  EXPECT_EQ(real->journal.size(), 1u) << real->journal.dump();
}

TEST(Runner, ObserveWithoutATraceStartsNoServer) {
  Scenario s = Find("action", "seed-open-safari");
  s.trace.clear();
  ScratchDir work;
  FakeSuite fake(FakeSuite::Drives::kObservation);
  auto obs = ObserveScenario(fake, s, kRoot, work.path());
  ASSERT_TRUE(obs) << obs.error().message;
  EXPECT_EQ(fake.seen.llm_base_url, "");
  EXPECT_EQ(obs->journal, Json::array());
}

TEST(Runner, ObserveSaysWhichStepFailed) {
  Scenario s = Find("action", "seed-open-safari");
  ScratchDir work;

  FakeSuite error(FakeSuite::Drives::kError);
  auto e = ObserveScenario(error, s, kRoot, work.path());
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "the driver could not run the scenario: input/utterance: missing");

  FakeSuite thrower(FakeSuite::Drives::kThrow);
  auto t = ObserveScenario(thrower, s, kRoot, work.path());
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message, "the driver threw: boom");

  // A hostile trace file: a located error, the driver never runs.
  const fs::path bad = work.path() / "bad.trace.jsonl";
  std::ofstream(bad) << "{\"format\":\"llmconform-trace/1\",\"id\":\"x\"}\n{\"request\": [\n";
  s.trace = "bad.trace.jsonl";
  FakeSuite never(FakeSuite::Drives::kThrow);
  auto b = ObserveScenario(never, s, work.path(), work.path());
  ASSERT_FALSE(b);
  EXPECT_TRUE(b.error().message.starts_with("trace bad.trace.jsonl: ")) << b.error().message;
  EXPECT_NE(b.error().message.find("bad.trace.jsonl:2:"), std::string::npos) << b.error().message;

  s.trace = "absent.trace.jsonl";
  auto a = ObserveScenario(never, s, work.path(), work.path());
  ASSERT_FALSE(a);
  EXPECT_TRUE(a.error().message.starts_with("trace absent.trace.jsonl: ")) << a.error().message;
}

// Judging hostile observations: every suite answers every rule of its
// scenarios, whatever the outputs and journal hold — a check that throws is
// an Error result, not a crash.
TEST(Runner, JudgingHostileObservationsGivesAResultForEveryRule) {
  const std::vector<Observation> hostile = {
      Observation{},
      Observation{.outputs = Json::array({1, 2}),
                  .journal = Json::array({"not an entry", Json::array()})},
      Observation{.outputs = {{"text", 5},
                              {"reply", nullptr},
                              {"command", "x"},
                              {"messages", {{{"role", 7}}}},
                              {"files", 3},
                              {"state", {1}},
                              {"result", {{"ok", "yes"}}}},
                  .journal = Json::array({1,
                                          "x",
                                          nullptr,
                                          {{"request", 5}, {"response", {{"status", "x"}}}},
                                          {{"request", {{"body", {{"messages", 1}}}}}}})},
  };
  std::set<std::string> protocols;
  for (const auto& s : BundledSpecs().scenarios) {
    if (!protocols.insert(s.protocol).second) continue;  // the first scenario of each protocol
    for (const Observation& obs : hostile) {
      Recorder reporter;
      const reports::RunResult run = JudgeObservation(BundledSpecs(), s, obs, Options(), reporter);
      ASSERT_EQ(run.scenarios.size(), 1u);
      std::set<std::string> judged;
      for (const auto& c : run.scenarios[0].checks) judged.insert(c.rule);
      for (const auto& rule : s.rules) {
        EXPECT_TRUE(judged.contains(rule)) << s.protocol << "/" << s.name << " " << rule;
      }
      for (const auto& c : run.scenarios[0].checks) {
        if (c.message.starts_with("a check threw")) {
          EXPECT_EQ(c.outcome, Outcome::kError);
        }
      }
    }
  }
  EXPECT_GE(protocols.size(), 5u);
}

TEST(Runner, ParseJournalReadsEveryShapeTheServerWrites) {
  const Json entries = Json::array(
      {{{"seq", 1}, {"request", {{"body", 1}}}}, {{"seq", 2}, {"request", {{"body", 2}}}}});
  const std::string one = R"({"seq":1,"request":{"body":1}})",
                    two = R"({"seq":2,"request":{"body":2}})";
  EXPECT_EQ(ParseJournal("j.json", "[" + one + "," + two + "]"), entries);
  EXPECT_EQ(ParseJournal("j.json", R"( {"entries":[)" + one + "," + two + R"(],"dropped":0})"),
            entries);
  EXPECT_EQ(ParseJournal("j.jsonl", one + "\n\n  \r\n" + two + "\n"), entries);
  EXPECT_EQ(ParseJournal("j.jsonl", ""), Json::array());
  // PowerShell's Out-File starts the file with a byte order mark.
  EXPECT_EQ(ParseJournal("j.json", "\xEF\xBB\xBF[" + one + "," + two + "]"), entries);
  EXPECT_EQ(ParseJournal("j.jsonl", "\xEF\xBB\xBF" + one + "\n" + two), entries);
  // One entry alone, written over several lines.
  EXPECT_EQ(ParseJournal("j.json", "{\"seq\": 1,\n \"request\": {\"body\": 1}}"),
            Json::array({entries[0]}));

  auto bad_line = ParseJournal("j.jsonl", "{\"request\":{}}\n\n{\"n\":\n");
  ASSERT_FALSE(bad_line);
  EXPECT_TRUE(bad_line.error().message.starts_with("j.jsonl:3:")) << bad_line.error().message;

  auto bad_array = ParseJournal("j.json", "[1,\n 2,,]");
  ASSERT_FALSE(bad_array);
  EXPECT_TRUE(bad_array.error().message.starts_with("j.json:2:")) << bad_array.error().message;

  const std::string deep(100000, '[');
  auto too_deep = ParseJournal("j.json", deep);
  ASSERT_FALSE(too_deep);
  EXPECT_TRUE(too_deep.error().message.starts_with("j.json:1:")) << too_deep.error().message;
}

TEST(Runner, ParseJournalRefusesWhatIsNotAJournalWhereItIs) {
  // Not a client's fault: no entry to judge, or entries of the wrong shape.
  const auto refused = [](std::string_view name, std::string_view text) {
    auto r = ParseJournal(name, text);
    return r ? std::string("accepted") : r.error().message;
  };
  EXPECT_EQ(refused("j.json", "5"),
            "j.json:1:1: expected a journal (an array of entries, an object with \"entries\", or "
            "JSON Lines of entries), got number");
  EXPECT_EQ(refused("j.json", "[1]"), "j.json:1:2: /0: expected object, got number");
  // Columns count after a byte order mark, as the parser's own errors do.
  EXPECT_EQ(refused("j.json", "\xEF\xBB\xBF[1]"), "j.json:1:2: /0: expected object, got number");
  EXPECT_EQ(refused("j.json", "[{\"seq\":1}]"),
            "j.json:1:2: /0/request: expected object, got nothing (the field is required)");
  EXPECT_EQ(refused("j.json", "[{\"request\":{}},\n {\"seq\":\"2\",\"request\":{}}]"),
            "j.json:2:9: /1/seq: expected integer, got string");
  EXPECT_EQ(refused("j.json", "[{\"seq\":-1,\"request\":{}}]"),
            "j.json:1:9: /0/seq: expected at least 0");
  EXPECT_EQ(refused("j.json", "[{\"seq\":18446744073709551616,\"request\":{}}]"),
            "j.json:1:9: /0/seq: expected integer within 64 bits, got number");
  EXPECT_EQ(refused("j.json", "{\"entries\":[{\"request\":{\"body_cut\":\"true\"}}]}"),
            "j.json:1:36: /entries/0/request/body_cut: expected boolean, got string");
  EXPECT_EQ(refused("j.json", "{\"entries\":{}}"),
            "j.json:1:12: /entries: expected array, got object");
  EXPECT_EQ(refused("j.json", "[{\"request\":{},\"response\":{\"status\":\"200\"}}]"),
            "j.json:1:37: /0/response/status: expected integer, got string");
  EXPECT_EQ(refused("j.json", "[{\"request\":{},\"response\":{\"status\":700}}]"),
            "j.json:1:37: /0/response/status: expected an HTTP status (100-599), or 0 for none");
  EXPECT_EQ(refused("j.json", "[{\"request\":{},\"dropped_before\":0}]"),
            "j.json:1:33: /0/dropped_before: expected at least 1");
  EXPECT_EQ(refused("j.json", "[{\"request\":{},\"findings\":\"x\"}]"),
            "j.json:1:27: /0/findings: expected array, got string");
  EXPECT_EQ(refused("j.jsonl", "{\"request\":{}}\n\n{\"request\":[]}\n"),
            "j.jsonl:3:12: entry 2: /request: expected object, got array");
  EXPECT_EQ(refused("j.jsonl", "{\"request\":{}}\nnull\n"),
            "j.jsonl:2:1: entry 2: /: expected object, got null");
}

TEST(Runner, ANullBodyCutIsNoCut) {
  // ParseJournal accepts body_cut: null as absent; the check must read it so.
  const auto journal = ParseJournal("j.json", R"([{"request":{"body_cut":null},"response":{}}])");
  ASSERT_TRUE(journal) << journal.error().message;
  EXPECT_FALSE(UnjudgeableJournal(*journal));
  const auto cut = ParseJournal("j.json", R"([{"seq":3,"request":{"body_cut":true}}])");
  ASSERT_TRUE(cut) << cut.error().message;
  ASSERT_TRUE(UnjudgeableJournal(*cut));
  EXPECT_TRUE(UnjudgeableJournal(*cut)->body_cut);
}

RC_GTEST_PROP(Runner, WhatParseJournalAcceptsIsJudgeable, ()) {
  // An entry whose fields take any JSON value: refused, or every entry it
  // returns has the shape the rules read, and UnjudgeableJournal answers.
  const auto value = rc::gen::oneOf(
      rc::gen::just(Json(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return Json(n); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return Json(d); }),
      rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string t) { return Json(t); }),
      rc::gen::just(Json::array()), rc::gen::just(Json::object()),
      rc::gen::just(Json::parse("18446744073709551615")));
  Json entry = {{"request", Json::object()}, {"response", Json::object()}};
  const auto fields = *rc::gen::container<std::vector<std::pair<std::string, Json>>>(rc::gen::pair(
      rc::gen::elementOf(std::vector<std::string>{
          "seq", "dropped_before", "session", "trace", "method", "path", "request", "response",
          "findings", "request/headers", "request/body_cut", "response/status", "response/exchange",
          "response/stream", "response/outcome"}),
      value));
  for (const auto& [key, v] : fields) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) {
      entry[key] = v;
    } else if (entry[key.substr(0, slash)].is_object()) {
      entry[key.substr(0, slash)][key.substr(slash + 1)] = v;
    }
  }
  const std::string text = "[" + DumpJson(entry) + "]";
  const auto journal = ParseJournal("j.json", text);
  if (!journal) {
    RC_ASSERT(journal.error().message.starts_with("j.json:1:"));
    return;
  }
  for (const Json& e : *journal) {
    RC_ASSERT(e.is_object());
    RC_ASSERT(e["request"].is_object());
  }
  UnjudgeableJournal(*journal);
}

}  // namespace
}  // namespace llmconform::harness
