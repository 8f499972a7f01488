// End-to-end tests of the llmconform command line: the real binary, run as a
// user runs it, on the bundled specs and on broken copies of them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <string>

#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using testing::ReadWholeFile;
using testing::RunProcess;

const std::string kBinary = ::llmconform::test_paths::LlmconformBinary();
using ::llmconform::test_paths::kRoot;

// A scratch folder per test, removed afterwards.
class TempDir : public harness::ScratchDir {
 public:
  TempDir() : ScratchDir("llmconform-cli-") {}
};

TEST(Cli, HelpAndVersion) {
  auto help = RunProcess({kBinary, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  auto version = RunProcess({kBinary, "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("llmconform ", 0), 0u);
  auto bad = RunProcess({kBinary, "frobnicate"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(Cli, RunOnTheBundledSpecsPassesAndWritesReports) {
  TempDir out;
  auto r = RunProcess(
      {kBinary, "run", "--specs", (kRoot / "specs").string(), "--out", out.path().string()}, "", "",
      {"NO_COLOR=1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("multiturn"), std::string::npos) << r.out;

  auto report = nlohmann::json::parse(ReadWholeFile(out.path() / "report.json"));
  EXPECT_EQ(report["format"], "llmconform-report/1");
  std::set<std::string> names;
  for (const auto& s : report["scenarios"]) {
    names.insert(s["protocol"].get<std::string>() + "/" + s["name"].get<std::string>());
    EXPECT_EQ(s["outcome"], "pass") << s.dump(2);
  }
  for (const char* s1to4 :
       {"multiturn/s1-standard-assembly", "multiturn/s2-trim-oldest-history",
        "multiturn/s3-empty-history", "multiturn/s4-forced-system-and-current"}) {
    EXPECT_TRUE(names.contains(s1to4)) << s1to4;
  }

  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_file((out.path() / "junit.xml").c_str()));
  int cases = 0;
  for (auto suite : junit.child("testsuites").children("testsuite")) {
    cases += static_cast<int>(
        std::distance(suite.children("testcase").begin(), suite.children("testcase").end()));
  }
  EXPECT_GT(cases, 0);
  EXPECT_NE(ReadWholeFile(out.path() / "report.md").find("multiturn"), std::string::npos);
}

TEST(Cli, BrokenSpecExitsTwoWithALocatedMessage) {
  TempDir dir;
  fs::create_directories(dir.path() / "specs");
  fs::copy(kRoot / "specs" / "multiturn", dir.path() / "specs" / "multiturn",
           fs::copy_options::recursive);
  std::ofstream(dir.path() / "specs" / "multiturn" / "broken.json")
      << "{\n  \"protocol\": \"multiturn\",\n  \"name\": \"broken\",\n  \"rules\": "
         "[\"REQ-AIS-MULTITURN-1\",\n"
         "            \"NO-SUCH-RULE\"]\n}\n";
  auto r = RunProcess({kBinary, "run", "--specs", (dir.path() / "specs").string(), "--out",
                       (dir.path() / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find("specs/multiturn/broken.json:5:13: /rules/1: unknown rule id \"NO-SUCH-RULE\""),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "report.json"));

  std::ofstream(dir.path() / "specs" / "multiturn" / "broken.json")
      << "{\"protocol\": \"multiturn\",\n \"name\": }";
  auto syntax = RunProcess({kBinary, "list", "--specs", (dir.path() / "specs").string()});
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_NE(syntax.err.find("specs/multiturn/broken.json:2:"), std::string::npos) << syntax.err;
}

TEST(Cli, FilterThatMatchesNothingIsAUsageError) {
  auto r = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--filter", "nope/*",
                       "--report", "console"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("matches no scenario"), std::string::npos) << r.err;
}

TEST(Cli, RefReadsStdinAndWritesStdout) {
  auto ok = RunProcess({kBinary, "ref", "multiturn.estimateMessageTokens"}, R"({"text":"😀😀"})");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "{\"tokens\":2}\n");
  auto malformed = RunProcess({kBinary, "ref", "multiturn.buildLLMMessages"}, "{not json");
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(malformed.out.empty());
  EXPECT_TRUE(nlohmann::json::parse(malformed.err).contains("error")) << malformed.err;
  auto list = RunProcess({kBinary, "ref", "--list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("sse.parse"), std::string::npos);
  EXPECT_NE(list.out.find("wire.accumulate"), std::string::npos);
}

TEST(Cli, ListShowsScenariosAndRules) {
  auto s =
      RunProcess({kBinary, "list", "--specs", (kRoot / "specs").string(), "--filter", "multiturn"});
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_NE(s.out.find("multiturn/s1-standard-assembly"), std::string::npos);
  auto rules =
      RunProcess({kBinary, "list", "--rules", "--json", "--specs", (kRoot / "specs").string()});
  EXPECT_EQ(rules.exit_code, 0);
  const auto catalogue = nlohmann::json::parse(rules.out);
  EXPECT_GE(catalogue.size(), 9u);
  // Every rule names the code that decides it (harness/rule_index_test.cpp
  // holds the index to the catalogues and the files).
  for (const auto& rule : catalogue) {
    ASSERT_TRUE(rule.contains("deciders")) << rule.dump();
    EXPECT_FALSE(rule["deciders"].empty()) << rule["id"];
    for (const auto& d : rule["deciders"])
      EXPECT_TRUE(fs::is_regular_file(kRoot / d["file"].get<std::string>())) << d;
  }
}

TEST(Cli, ListTheClientProfileWithEachScenariosSurfaceAndFeatures) {
  const std::string specs = (kRoot / "specs").string();
  auto text = RunProcess({kBinary, "list", "--specs", specs, "--profile", "client"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("client/stall  (1 rules, fixtures/synthesized/client-stall.trace.jsonl)\n"
                          "    surface chat; features timeout\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("client/messages-plain-text  (2 rules"), std::string::npos);
  EXPECT_EQ(text.out.find("multiturn/"), std::string::npos);  // not the protocols' scenarios
  auto json = RunProcess({kBinary, "list", "--specs", specs, "--profile", "client", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::set<std::string> surfaces;
  for (const auto& s : nlohmann::json::parse(json.out)) {
    EXPECT_EQ(s["protocol"], "client") << s.dump();
    EXPECT_FALSE(s["features"].empty()) << s.dump();
    surfaces.insert(s["surface"].get<std::string>());
  }
  EXPECT_EQ(surfaces, (std::set<std::string>{"chat", "gemini", "messages", "responses"}));
  auto protocols = RunProcess({kBinary, "list", "--specs", specs, "--profile", "protocols"});
  EXPECT_EQ(protocols.out.find("client/"), std::string::npos);
  EXPECT_NE(protocols.out.find("multiturn/s1-standard-assembly"), std::string::npos);
  EXPECT_EQ(RunProcess({kBinary, "list", "--specs", specs, "--profile", "nope"}).exit_code, 2);
}

TEST(Cli, ListRulesFromAFolderWithoutSpecsFindsTheBundledOnes) {
  TempDir elsewhere;
  auto rules =
      RunProcess({kBinary, "list", "--rules", "--filter", "action"}, "", elsewhere.path().string());
  EXPECT_EQ(rules.exit_code, 0) << rules.err;
  EXPECT_NE(rules.out.find("ACT-1  [must]  docs/seeds/004_b6d237810a3a28f8.txt"), std::string::npos)
      << rules.out;
  EXPECT_NE(rules.out.find("    decided by ReplyRule  harness/suites/action_checks.cpp:"),
            std::string::npos)
      << rules.out;
  auto missing =
      RunProcess({kBinary, "list", "--rules", "--specs", "nowhere"}, "", elsewhere.path().string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nowhere: not a folder of specs"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("--specs DIR"), std::string::npos) << missing.err;
}

TEST(Cli, JudgeAppliesTheRulesToAnotherClientsJournal) {
  TempDir dir;
  auto journal_with = [&](const nlohmann::json& messages) {
    const fs::path p = dir.path() / "journal.jsonl";
    std::ofstream(p) << nlohmann::json{{"seq", 1},
                                       {"method", "POST"},
                                       {"path", "/t/x/v1/chat/completions"},
                                       {"request",
                                        {{"body",
                                          {{"model", "gpt-4o-mini"}, {"messages", messages}}}}}}
                            .dump()
                     << "\n";
    return p.string();
  };
  const auto spec = nlohmann::json::parse(
      ReadWholeFile(kRoot / "specs" / "multiturn" / "s2-trim-oldest-history.json"));
  auto good = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                          "multiturn/s2-trim-oldest-history", "--journal",
                          journal_with(spec["expect"]["messages"]), "--report", "console"});
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  // A client that keeps the oldest history instead of the newest.
  auto bad = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                         "multiturn/s2-trim-oldest-history", "--journal",
                         journal_with(nlohmann::json::parse(R"([{"role":"system","content":"S"},
                           {"role":"user","content":"AAAA"},{"role":"assistant","content":"BBBB"},
                           {"role":"user","content":"E"}])")),
                         "--report", "console"},
                        "", "", {"NO_COLOR=1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("REQ-AIS-MULTITURN-4: the kept history is not the newest contiguous run"),
            std::string::npos)
      << bad.out;
  // A client whose second request mockllm refused as past the trace's end.
  const fs::path refused = dir.path() / "refused.jsonl";
  {
    std::ofstream out(refused);
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["response"] = {{"status", 200}, {"exchange", 0}, {"outcome", "complete"}};
    out << entry.dump() << "\n";
    entry["seq"] = 2;
    entry["response"] = {{"status", 400}, {"exchange", nullptr}};
    entry["findings"] = {
        {{"rule", "trace_exhausted"},
         {"message", "trace \"x\" is exhausted: request 2 of session \"default\""}}};
    out << entry.dump() << "\n";
  }
  auto exhausted = RunProcess(
      {kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
       "multiturn/s2-trim-oldest-history", "--journal", refused.string(), "--report", "console"},
      "", "", {"NO_COLOR=1"});
  EXPECT_EQ(exhausted.exit_code, 1) << exhausted.out << exhausted.err;
  EXPECT_NE(exhausted.out.find("GATE-TRACE-EXHAUSTED"), std::string::npos) << exhausted.out;
  EXPECT_NE(exhausted.out.find("GATE-TOO-MANY-REQUESTS"), std::string::npos) << exhausted.out;
  auto missing = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                             "multiturn/nope", "--journal", journal_with(nlohmann::json::array())});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--scenario 'multiturn/nope': no such scenario"), std::string::npos)
      << missing.err;
  // An empty journal is said once, not a message per rule.
  const fs::path empty = dir.path() / "empty.json";
  std::ofstream(empty) << "[]\n";
  auto none = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                          "multiturn/s2-trim-oldest-history", "--journal", empty.string()});
  EXPECT_EQ(none.exit_code, 2);
  const auto said = none.err.find("no requests were journaled");
  ASSERT_NE(said, std::string::npos) << none.err;
  EXPECT_EQ(none.err.find("no requests were journaled", said + 1), std::string::npos) << none.err;
  EXPECT_EQ(none.out, "");
  // A body mockllm's journal bounds cut is not judged by what is left of it.
  const fs::path cut = dir.path() / "cut.jsonl";
  {
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["seq"] = 7;
    entry["request"]["body_cut"] = true;
    std::ofstream(cut) << entry.dump() << "\n";
  }
  auto refused_cut =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", cut.string()});
  EXPECT_EQ(refused_cut.exit_code, 2);
  EXPECT_NE(refused_cut.err.find("request seq 7 was cut"), std::string::npos) << refused_cut.err;
  EXPECT_NE(refused_cut.err.find("--journal-whole-bodies"), std::string::npos) << refused_cut.err;
  // Nor a client by a journal that lost its oldest requests to the limits.
  const fs::path dropped = dir.path() / "dropped.jsonl";
  {
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["seq"] = 9;
    entry["dropped_before"] = 8;
    std::ofstream(dropped) << entry.dump() << "\n";
  }
  auto refused_dropped =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", dropped.string()});
  EXPECT_EQ(refused_dropped.exit_code, 2);
  EXPECT_NE(refused_dropped.err.find("dropped 8 request(s) before seq 9"), std::string::npos)
      << refused_dropped.err;
  EXPECT_NE(refused_dropped.err.find("--journal-limit"), std::string::npos) << refused_dropped.err;
  // Nor entries of another shape than mockllm's journal: refused where they
  // are, not judged as a client's failure.
  const fs::path mistyped = dir.path() / "mistyped.jsonl";
  std::ofstream(mistyped) << R"({"seq":"1","request":{}})"
                          << "\n";
  auto refused_shape =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", mistyped.string()});
  EXPECT_EQ(refused_shape.exit_code, 2);
  EXPECT_NE(
      refused_shape.err.find("mistyped.jsonl:1:8: entry 1: /seq: expected integer, got string"),
      std::string::npos)
      << refused_shape.err;
  // A device named by mistake is refused before it is read.
  auto device = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                            "multiturn/s2-trim-oldest-history", "--journal", "/dev/zero"});
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.err.find("--journal /dev/zero: cannot read: it is a device, not a file"),
            std::string::npos)
      << device.err;
}

// Whether process `pid` is gone (or only a zombie waiting for init).
bool Gone(const std::string& pid) {
  const std::string stat = ReadWholeFile("/proc/" + pid + "/stat");
  const auto paren = stat.rfind(')');
  return stat.empty() || (paren != std::string::npos && stat.substr(paren + 2, 1) == "Z");
}

TEST(Cli, ASignalThatStopsLlmconformStopsTheCommandItRuns) {
  // The SUT runs in a process group of its own; timeout(1), as a CI job's
  // limit would, signals llmconform's group only. The SUT must not survive.
  TempDir dir;
  const fs::path pid_file = dir.path() / "sut.pid";
  for (const std::string sig : {"TERM", "INT"}) {
    fs::remove(pid_file);
    const std::string sut = "echo $$ > '" + pid_file.string() + "'; exec sleep 1003";
    auto r = RunProcess({"/usr/bin/timeout", "-s", sig, "3", kBinary, "check", "--sut", sut, "--op",
                         "action.parse", "--cases", "5", "--seed", "1", "--out",
                         (dir.path() / "out").string(), "--report", "console"},
                        "", kRoot.string());  // check reads specs/oracle from there
    EXPECT_EQ(r.exit_code, 124) << sig << r.out << r.err;
    std::string pid = ReadWholeFile(pid_file);
    while (!pid.empty() && pid.back() == '\n') pid.pop_back();
    ASSERT_FALSE(pid.empty()) << sig << ": the SUT never started";
    bool gone = false;
    for (int i = 0; i < 250 && !(gone = Gone(pid)); ++i) usleep(20000);
    EXPECT_TRUE(gone) << "the SUT (pid " << pid << ") outlived llmconform stopped by SIG" << sig;
    if (!gone) ::kill(std::stoi(pid), SIGKILL);
  }
}

// The pid a command wrote into `file`, "" when it did not.
std::string PidIn(const fs::path& file) {
  std::string pid = ReadWholeFile(file);
  while (!pid.empty() && pid.back() == '\n') pid.pop_back();
  return pid;
}

// Whether process `pid` goes within a few seconds (killed, it goes at once);
// kills it when it does not, so that a failing test leaves nothing behind.
bool GoesSoon(const std::string& pid) {
  bool gone = false;
  for (int i = 0; i < 250 && !(gone = Gone(pid)); ++i) usleep(20000);
  if (!gone) ::kill(std::stoi(pid), SIGKILL);
  return gone;
}

TEST(Cli, NoCommandOutlivesARunThatEndedNormally) {
  // Each command leaves a background job that holds nothing of llmconform's.
  TempDir dir;
  const fs::path pid_file = dir.path() / "job.pid";
  const std::string job =
      "(sleep 311; echo) </dev/null >/dev/null 2>&1 & echo $! > '" + pid_file.string() + "'; ";
  auto check = RunProcess({kBinary, "check", "--sut", job + "exec " + kBinary + " ref --serve",
                           "--op", "action.parse", "--cases", "5", "--seed", "1", "--out",
                           (dir.path() / "check").string(), "--report", "console"},
                          "", kRoot.string());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  std::string pid = PidIn(pid_file);
  ASSERT_FALSE(pid.empty()) << "the SUT never started";
  EXPECT_TRUE(GoesSoon(pid)) << "check --sut left its background job (pid " << pid << ")";

  fs::remove(pid_file);
  auto run = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--filter",
                         "multiturn/s1-standard-assembly", "--client-cmd", job + "exit 0", "--out",
                         (dir.path() / "run").string(), "--report", "console"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;  // it wrote no output
  pid = PidIn(pid_file);
  ASSERT_FALSE(pid.empty()) << "the client never started";
  EXPECT_TRUE(GoesSoon(pid)) << "run --client-cmd left its background job (pid " << pid << ")";
}

TEST(Cli, AClientCannotHoldARunPastItsTimeout) {
  TempDir dir;
  const auto run = [&](const std::string& client, const std::string& scenario) {
    return RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--filter", scenario,
                       "--client-cmd", client, "--client-timeout", "20", "--out",
                       (dir.path() / "out").string(), "--report", "json"},
                      "", "", {}, std::chrono::seconds(100));
  };
  const auto output_check = [&] {
    const auto report = nlohmann::json::parse(ReadWholeFile(dir.path() / "out" / "report.json"));
    for (const auto& c : report["scenarios"][0]["checks"])
      if (c["rule"] == "GATE-CLIENT-OUTPUT") return c;
    return nlohmann::json();
  };
  // An output that is a FIFO: reading it would wait for a writer forever.
  auto fifo = run("mkfifo \"$LLMCONFORM_OUTPUT\"", "multiturn/s1-standard-assembly");
  EXPECT_EQ(fifo.exit_code, 1) << fifo.out << fifo.err;
  EXPECT_EQ(output_check()["outcome"], "fail") << output_check().dump();
  EXPECT_NE(output_check()["message"].get<std::string>().find("it is a FIFO"), std::string::npos)
      << output_check().dump();
  // A client that exits leaving a writer that never stops.
  auto writer = run("(while :; do echo x; done) & exit 0", "multiturn/s1-standard-assembly");
  EXPECT_EQ(writer.exit_code, 1) << writer.out << writer.err;
  // A 1 TB sparse file in pkg/: its content is not hashed.
  auto sparse =
      run("truncate -s 1T \"$LLMCONFORM_WORKSPACE/pkg/big\"", "toolcalls/pkg-write-refused");
  EXPECT_EQ(sparse.exit_code, 1) << sparse.out << sparse.err;
}

TEST(Cli, ASignalThatStopsLlmconformRemovesItsScratchFolders) {
  TempDir dir;
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  const fs::path started = dir.path() / "started";
  auto r = RunProcess(
      {"/usr/bin/timeout", "-s", "TERM", "5", kBinary, "run", "--specs", (kRoot / "specs").string(),
       "--filter", "multiturn/s1-standard-assembly", "--client-cmd",
       "touch '" + started.string() + "'; exec sleep 1004", "--out", (dir.path() / "out").string()},
      "", "", {"TMPDIR=" + tmp.string()});
  EXPECT_EQ(r.exit_code, 124) << r.out << r.err;
  ASSERT_TRUE(fs::exists(started)) << "the client never started: " << r.err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp)) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

TEST(Cli, CheckTimeLimitBoundsAnExchangeUnderWay) {
  // The SUT reads every request and never answers; each case would wait out
  // --case-timeout-ms (ten minutes) before --time-limit was looked at again.
  TempDir dir;
  auto r = RunProcess({kBinary, "check", "--sut", "cat >/dev/null", "--op", "action.parse",
                       "--cases", "20", "--seed", "1", "--time-limit", "1", "--case-timeout-ms",
                       "600000", "--out", (dir.path() / "out").string(), "--report", "console"},
                      "", kRoot.string(), {}, std::chrono::seconds(100));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("check action.parse: 0 case(s)"), std::string::npos) << r.out << r.err;
}

TEST(Cli, CheckKeepsABoundedPartOfAHugeAnswer) {
  TempDir dir;
  const std::string sut =
      "python3 -c 'import sys, json\n"
      "n = 0\n"
      "for line in sys.stdin:\n"
      "    r = json.loads(line)\n"
      "    a = {\"output\": {\"big\": \"x\" * 1500000}} if n == 0 else {\"error\": \"no\"}\n"
      "    a[\"id\"] = r[\"id\"]\n"
      "    n += 1\n"
      "    sys.stdout.write(json.dumps(a) + \"\\n\")\n"
      "    sys.stdout.flush()\n'";
  auto r =
      RunProcess({kBinary, "check", "--sut", sut, "--op", "action.parse", "--cases", "3", "--seed",
                  "1", "--out", (dir.path() / "out").string(), "--report", "console"},
                 "", kRoot.string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The first answer is 1.5 MB: its case is saved with the beginning of it.
  int huge = 0;
  for (const auto& e : fs::directory_iterator(dir.path() / "out" / "check-cases")) {
    EXPECT_LT(fs::file_size(e.path()), 512u * 1024) << e.path();
    const auto doc = nlohmann::json::parse(ReadWholeFile(e.path()));
    if (doc["actual"].contains("cut")) {
      ++huge;
      EXPECT_NE(doc["actual"]["cut"].get<std::string>().find("bytes of JSON, longer than"),
                std::string::npos)
          << doc["actual"].dump().substr(0, 300);
    }
  }
  EXPECT_EQ(huge, 1);
}

}  // namespace
}  // namespace llmconform
