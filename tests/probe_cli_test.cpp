// End to end: `llmconform probe` against real servers on loopback: a real
// `mockllm serve --traces fixtures/probe --dialect X` for every dialect X, and
// small hostile servers (one that closes the connection, one that answers
// garbage, one that stalls, one that echoes the key back).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"
#include "tests/probe_test_servers.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ProcessResult;
using testing::ReadWholeFile;
using testing::RunProcess;
using namespace probe_test;  // NOLINT: the servers and catalogue helpers

const std::string kLlmconform = ::llmconform::test_paths::LlmconformBinary();
using ::llmconform::test_paths::kRoot;
// Not shaped like any known secret, so only the probe's own scrubbing can
// keep it out of what it prints and writes.
const std::string kKey = "probe-test-key-Zq9w7Lx";

ProcessResult Probe(const std::string& url, std::vector<std::string> extra = {},
                    std::vector<std::string> env = {"OPENAI_API_KEY=" + kKey}) {
  std::vector<std::string> argv = {kLlmconform, "probe",   "--base-url",
                                   url,         "--model", "gpt-4o-mini"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunProcess(argv, "", "", env, std::chrono::seconds(300));
}

fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("llmconform-probe-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The probe of a stand-in endpoint for dialect X reports exactly X's
// deviations (as `mockllm dialects --json` lists them), none for openai, and
// no feature fails: the toolkit's readers handle every dialect it knows. So
// `--expect X` finds no drift there.
TEST(ProbeCli, EveryDialectShowsExactlyItsDeviations) {
  const ProcessResult listed = RunProcess({kMockllm, "dialects", "--json", "--surface", "chat"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json dialects = json::parse(listed.out);
  ASSERT_GE(dialects.size(), 10u);
  ASSERT_TRUE(dialects.contains("openai"));
  // The Chat Completions dialects (the other surfaces' are probed by
  // tests/probe_surfaces_cli_test.cpp).
  const auto chat = CatalogueDialects(kRoot, "chat");
  for (const auto& [name, deviations] : dialects.items()) {
    if (!chat.contains(name)) continue;
    SCOPED_TRACE(name);
    MockllmServer server({"--traces", (kRoot / "fixtures/probe").string(), "--dialect", name});
    ASSERT_FALSE(server.url().empty());
    const ProcessResult r = Probe(server.url() + "/v1", {"--json", "--expect", name});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const json row = ParseOrFail(r);
    if (row.is_discarded()) continue;
    EXPECT_EQ(Ids(row["deviations"]), Ids(deviations)) << row.dump(1);
    EXPECT_EQ(row["expect"]["dialect"], name);
    EXPECT_EQ(row["expect"]["drifted"], false) << row["expect"].dump();
    EXPECT_EQ(row["endpoint"], server.url() + "/v1");
    EXPECT_EQ(row["model"], "gpt-4o-mini");
    ASSERT_EQ(row["features"].size(), 8u) << row.dump(1);
    for (const auto& [feature, result] : row["features"].items()) {
      EXPECT_NE(result, "fail") << feature << ": " << row["evidence"]["features"][feature].dump(1);
      // Every request was answered by its own canonical reply: nothing fell through to
      // mockllm's no-match.
      for (const auto& e : row["evidence"]["features"][feature])
        EXPECT_EQ(e["detail"].get<std::string>().find("mockllm_"), std::string::npos) << e.dump();
    }
    // Each deviation comes with the responses and fields that show it.
    for (const auto& id : row["deviations"]) {
      const json& ev = row["evidence"]["deviations"][id.get<std::string>()];
      ASSERT_TRUE(ev.is_array() && !ev.empty()) << id;
      EXPECT_TRUE(ev[0]["request"].is_string() && ev[0]["message"].is_string()) << ev.dump();
    }
  }
}

// `--expect Y` against a stand-in speaking X != Y: exit 1, each deviation of
// X that Y lacks "appeared", each of Y's that X lacks "vanished", in the JSON
// and in the text a scheduled CI job's log shows.
TEST(ProbeCli, ExpectNamesEachDeviationThatAppearedOrVanished) {
  const ProcessResult listed = RunProcess({kMockllm, "dialects", "--json", "--surface", "chat"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json dialects = json::parse(listed.out);
  for (const auto& [serves, expects] : std::vector<std::pair<std::string, std::string>>{
           {"deepseek", "ollama"}, {"openai", "gemini"}, {"vllm", "openai"}}) {
    SCOPED_TRACE(serves + " expected as " + expects);
    const std::set<std::string> have = Ids(dialects[serves]);
    const std::set<std::string> want = Ids(dialects[expects]);
    std::vector<std::string> appeared, vanished;
    std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                        std::back_inserter(appeared));
    std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                        std::back_inserter(vanished));
    ASSERT_FALSE(appeared.empty() && vanished.empty());
    MockllmServer server({"--traces", (kRoot / "fixtures/probe").string(), "--dialect", serves});
    ASSERT_FALSE(server.url().empty());
    const ProcessResult r = Probe(server.url() + "/v1", {"--json", "--expect", expects});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const json row = ParseOrFail(r);
    if (row.is_discarded()) continue;
    EXPECT_EQ(row["expect"]["appeared"], json(appeared)) << row["expect"].dump();
    EXPECT_EQ(row["expect"]["vanished"], json(vanished)) << row["expect"].dump();
    EXPECT_EQ(row["expect"]["drifted"], true);
    const ProcessResult text = Probe(server.url() + "/v1", {"--expect", expects});
    EXPECT_EQ(text.exit_code, 1);
    for (const std::string& id : appeared)
      EXPECT_NE(text.out.find("appeared  " + id), std::string::npos) << text.out;
    for (const std::string& id : vanished)
      EXPECT_NE(text.out.find("vanished  " + id), std::string::npos) << text.out;
  }
}

TEST(ProbeCli, OpenaiPassesEverythingButShowsNoReasoning) {
  MockllmServer server({"--traces", (kRoot / "fixtures/probe").string()});
  ASSERT_FALSE(server.url().empty());
  const ProcessResult r = Probe(server.url() + "/v1", {"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json row = ParseOrFail(r);
  EXPECT_EQ(row["deviations"], json::array());
  const json want = {{"plain-text", "pass"},
                     {"streamed-text", "pass"},
                     {"usage", "pass"},
                     {"tool-call", "pass"},
                     {"parallel-tool-calls", "pass"},
                     {"streamed-tool-calls", "pass"},
                     {"reasoning", "unsupported"},
                     {"error-mapping", "pass"}};
  EXPECT_EQ(row["features"], want) << row.dump(1);
  // The evidence names the response and what was read.
  const std::string plain = row["evidence"]["features"]["plain-text"][0]["detail"];
  EXPECT_NE(plain.find("plain: HTTP 200, text \"Hello there, nice to meet you.\""),
            std::string::npos)
      << plain;
  const json errors = row["evidence"]["features"]["error-mapping"];
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0]["request"], "invalid-request");
  EXPECT_EQ(errors[0]["status"], 400);

  // The text row says the same.
  const ProcessResult text = Probe(server.url() + "/v1", {"--features", "plain-text,reasoning"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("plain-text           pass"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("reasoning            unsupported"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("tool-call"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("deviations from OpenAI's wire format: 0"), std::string::npos);
}

TEST(ProbeCli, AClosedConnectionFailsEachFeature) {
  HostileServer server(Misbehaviour::kClose);
  const ProcessResult r = Probe(server.url(), {"--json", "--timeout", "30"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json row = ParseOrFail(r);
  for (const auto& [feature, result] : row["features"].items()) {
    EXPECT_EQ(result, "fail") << feature;
    const std::string detail = row["evidence"]["features"][feature][0]["detail"];
    EXPECT_NE(detail.find("no answer: "), std::string::npos) << detail;
  }
  EXPECT_GE(server.connections(), 10);
}

TEST(ProbeCli, ANonJsonAnswerFails) {
  HostileServer server(Misbehaviour::kNotJson);
  const ProcessResult r = Probe(server.url(), {"--json", "--features", "plain-text,error-mapping"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json row = ParseOrFail(r);
  EXPECT_EQ(row["features"]["plain-text"], "fail");
  const std::string detail = row["evidence"]["features"]["plain-text"][0]["detail"];
  EXPECT_NE(detail.find("plain: HTTP 200: the body is not JSON: \"<html>"), std::string::npos)
      << detail;
  EXPECT_EQ(row["features"].size(), 2u);
}

TEST(ProbeCli, GarbageSseFails) {
  HostileServer server(Misbehaviour::kGarbageSse);
  const fs::path dir = TempDir("garbage");
  const ProcessResult r = Probe(
      server.url(), {"--json", "--features", "streamed-text,usage", "--record", dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json row = ParseOrFail(r);
  EXPECT_EQ(row["features"]["streamed-text"], "fail") << row.dump(1);
  EXPECT_EQ(row["features"]["usage"], "fail");
  // Even garbage becomes a trace that lints.
  const ProcessResult lint = RunProcess({kMockllm, "lint", dir.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_TRUE(fs::exists(dir / "stream.trace.jsonl"));
  fs::remove_all(dir);
}

TEST(ProbeCli, AStallIsATimeoutOfThatRequest) {
  HostileServer server(Misbehaviour::kStall);
  const ProcessResult r =
      Probe(server.url(), {"--json", "--timeout", "1", "--features", "plain-text,streamed-text"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json row = ParseOrFail(r);
  for (const char* f : {"plain-text", "streamed-text"}) {
    EXPECT_EQ(row["features"][f], "fail");
    const std::string detail = row["evidence"]["features"][f][0]["detail"];
    EXPECT_NE(detail.find("timed out after 1000 ms"), std::string::npos) << detail;
  }
}

TEST(ProbeCli, ATrickleIsStoppedAtTheTimeout) {
  HostileServer server(Misbehaviour::kTrickle);
  const ProcessResult r =
      Probe(server.url(), {"--json", "--timeout", "1", "--features", "plain-text"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json row = ParseOrFail(r);
  EXPECT_EQ(row["features"]["plain-text"], "fail");
  const std::string detail = row["evidence"]["features"]["plain-text"][0]["detail"];
  EXPECT_NE(detail.find("timed out after 1000 ms"), std::string::npos) << detail;
}

// The key is sent (the echo server sees it) but never printed or written,
// even when the endpoint quotes it back in an error body, a stream or a header.
TEST(ProbeCli, TheKeyIsNeverPrintedNorRecorded) {
  HostileServer server(Misbehaviour::kEchoKey);
  const fs::path dir = TempDir("key");
  for (const char* format : {"--json", "--timeout=30"}) {
    const ProcessResult r = Probe(server.url(), {format, "--record", dir.string()});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.out.find(kKey), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(kKey), std::string::npos) << r.err;
    // The echo is there, redacted: proof the key was sent and scrubbed.
    EXPECT_NE(r.out.find("[redacted]"), std::string::npos) << r.out;
  }
  int traces = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++traces;
    const std::string text = ReadWholeFile(e.path());
    EXPECT_EQ(text.find(kKey), std::string::npos) << e.path();
    EXPECT_NE(text.find("\"authorization\":\"[redacted]\""), std::string::npos) << e.path();
  }
  EXPECT_EQ(traces, 10);
  const ProcessResult lint = RunProcess({kMockllm, "lint", dir.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  fs::remove_all(dir);
}

// `--record` turns a probe into fixtures: they lint, `llmconform dialect`
// finds in them what the probe reported, and probing a mockllm that replays
// them gives the same row.
TEST(ProbeCli, ARecordedProbeIsNewFixtures) {
  const fs::path dir = TempDir("record");
  json first;
  {
    MockllmServer server(
        {"--traces", (kRoot / "fixtures/probe").string(), "--dialect", "openrouter"});
    ASSERT_FALSE(server.url().empty());
    const ProcessResult r =
        Probe(server.url() + "/v1", {"--json", "--record", dir.string(), "--provider", "or"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    first = ParseOrFail(r);
  }
  const ProcessResult lint = RunProcess({kMockllm, "lint", dir.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  const ProcessResult dialect = RunProcess({kLlmconform, "dialect", "--json", dir.string()});
  ASSERT_EQ(dialect.exit_code, 0) << dialect.err;
  std::set<std::string> found;
  for (const auto& row : json::parse(dialect.out)) {
    EXPECT_EQ(row["provider"], "or");
    EXPECT_TRUE(row["id"].get<std::string>().starts_with("or/probe-")) << row["id"];
    for (const auto& d : row["deviations"]) found.insert(d["id"].get<std::string>());
  }
  EXPECT_EQ(found, Ids(first["deviations"]));
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(ReadWholeFile(e.path()).find(kKey), std::string::npos) << e.path();

  MockllmServer replay({"--traces", dir.string()});
  ASSERT_FALSE(replay.url().empty());
  const ProcessResult again = Probe(replay.url() + "/v1", {"--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const json second = ParseOrFail(again);
  EXPECT_EQ(second["deviations"], first["deviations"]);
  EXPECT_EQ(second["features"], first["features"]);
  fs::remove_all(dir);
}

TEST(ProbeCli, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--base-url", "ftp://x/v1", "--model", "m"},
           {"--base-url", "http://", "--model", "m"},
           {"--base-url", "http://127.0.0.1:1/v1"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--features",
            "plain-text,telepathy"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--timeout", "-3"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "\xff\xfe"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--provider", "\xc3"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--expect", "nosuch"},
           {"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--expect", "gemini",
            "--features", "plain-text"}}) {
    std::vector<std::string> argv = {kLlmconform, "probe"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.out << r.err;
  }
  const ProcessResult bad_key =
      Probe("http://127.0.0.1:1/v1", {}, {"OPENAI_API_KEY=" + kKey + "\nX-Injected: 1"});
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_EQ(bad_key.err.find(kKey), std::string::npos) << bad_key.err;
  const ProcessResult help = RunProcess({kLlmconform, "probe", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("streamed-tool-calls"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
}

}  // namespace
}  // namespace llmconform
