// End to end: `llmconform probe --api responses|messages|gemini` against a
// real `mockllm serve --traces fixtures/probe [--dialect X]` (the canonical
// stand-in and every dialect of the surface) and hostile servers.
#include <gtest/gtest.h>

#include <filesystem>
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
const std::string kKey = "probe-surface-key-Vb3k8Qm";

struct Api {
  std::string name;
  std::string model;
  std::string key_env;
  std::string base;  // the path of the base URL
};
const std::vector<Api> kApis = {{"responses", "gpt-5-mini", "OPENAI_API_KEY", "/v1"},
                                {"messages", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", "/v1"},
                                {"gemini", "gemini-2.5-flash", "GEMINI_API_KEY", "/v1beta"}};

ProcessResult Probe(const Api& api, const std::string& origin, std::vector<std::string> extra = {},
                    std::vector<std::string> env = {}) {
  std::vector<std::string> argv = {kLlmconform,  "probe",           "--api",   api.name,
                                   "--base-url", origin + api.base, "--model", api.model};
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (env.empty()) env = {api.key_env + "=" + kKey};
  return RunProcess(argv, "", "", env, std::chrono::seconds(300));
}

std::set<std::string> DiaIds(const json& array) {
  std::set<std::string> out;
  for (const std::string& id : Ids(array))
    if (id.starts_with("DIA-")) out.insert(id);
  return out;
}

// Every feature has its own canonical answer (nothing fell through to
// mockllm's no-match) and none failed.
void ExpectNoFeatureFailed(const json& row) {
  ASSERT_EQ(row["features"].size(), 8u) << row.dump(1);
  for (const auto& [feature, result] : row["features"].items()) {
    EXPECT_NE(result, "fail") << feature << ": " << row["evidence"]["features"][feature].dump(1);
    for (const auto& e : row["evidence"]["features"][feature])
      EXPECT_EQ(e["detail"].get<std::string>().find("mockllm_"), std::string::npos) << e.dump();
  }
}

// One stand-in for every surface: `--traces fixtures/probe` serves Chat's
// answers and the folders' on their own paths. Each surface's canonical
// answers pass every feature and show no deviation; Chat's row is unchanged
// by its neighbours (tests/probe_cli_test.cpp probes it on the same folder).
TEST(ProbeSurfacesCli, TheCanonicalStandInPassesEveryFeature) {
  MockllmServer server({"--traces", (kRoot / "fixtures/probe").string()});
  ASSERT_FALSE(server.url().empty());
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.name);
    const ProcessResult r = Probe(api, server.url(), {"--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json row = ParseOrFail(r);
    EXPECT_EQ(row["api"], api.name);
    EXPECT_EQ(row["deviations"], json::array()) << row["evidence"]["deviations"].dump(1);
    for (const auto& [feature, result] : row["features"].items())
      EXPECT_EQ(result, "pass") << feature << ": " << row["evidence"]["features"][feature].dump(1);
    ExpectNoFeatureFailed(row);
    const json errors = row["evidence"]["features"]["error-mapping"];
    ASSERT_EQ(errors.size(), 3u);
    EXPECT_EQ(errors[0]["status"], 400);
    EXPECT_EQ(errors[1]["status"], 429);
  }
  // The text row names the surface and whose wire format it is compared with.
  const ProcessResult text = Probe(kApis[1], server.url(), {"--features", "reasoning"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("api messages"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("reasoning            pass"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("deviations from Anthropic's wire format: 0"), std::string::npos);
}

// A placeholder key (`x`, as people set for a local server) is sent, and the
// replies are judged as they arrived: scrubbing it from what is printed and
// recorded leaves the words it is part of whole ("text/event-stream"), so
// no feature of any surface's stand-in fails and its recordings lint.
TEST(ProbeSurfacesCli, AOneLetterKeyLeavesTheRepliesWhole) {
  MockllmServer server({"--traces", (kRoot / "fixtures/probe").string()});
  ASSERT_FALSE(server.url().empty());
  std::vector<Api> apis = kApis;
  apis.push_back({"chat", "gpt-4o-mini", "OPENAI_API_KEY", "/v1"});
  for (const Api& api : apis) {
    SCOPED_TRACE(api.name);
    const fs::path dir = fs::path(::testing::TempDir()) / ("probe_short_key_" + api.name);
    fs::remove_all(dir);
    const ProcessResult r =
        Probe(api, server.url(), {"--json", "--record", dir.string()}, {api.key_env + "=x"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const json row = ParseOrFail(r);
    if (row.is_discarded()) continue;
    ExpectNoFeatureFailed(row);  // Chat's stand-in shows no reasoning: unsupported
    const std::string stream = ReadWholeFile(dir / "stream.trace.jsonl");
    EXPECT_NE(stream.find("text/event-stream"), std::string::npos) << stream;
    EXPECT_EQ(stream.find("te[redacted]t"), std::string::npos) << stream;
    const ProcessResult lint = RunProcess({kMockllm, "lint", dir.string()});
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    fs::remove_all(dir);
  }
}

// Every dialect of a surface in the catalogue, served by the stand-in, shows
// exactly its deviations and `--expect` finds no drift; a feature fails only
// where a deviation takes it away (a server that sends no usage fails
// `usage`, and the probe exits 1 for it), every other feature passes.
// With no dialect of the surface yet, the canonical stand-in is probed alone.
TEST(ProbeSurfacesCli, EveryDialectOfASurfaceShowsExactlyItsDeviations) {
  // A stream framed as one JSON array is a JSON body to the probe: every
  // feature asked of a stream fails ("a JSON body answered a request for a stream").
  const std::multimap<std::string, std::string> takes_away = {
      {"DIA-RESP-NO-USAGE", "usage"},
      {"DIA-GEM-STREAM-JSON-ARRAY", "streamed-text"},
      {"DIA-GEM-STREAM-JSON-ARRAY", "usage"},
      {"DIA-GEM-STREAM-JSON-ARRAY", "streamed-tool-calls"},
      {"DIA-GEM-STREAM-JSON-ARRAY", "reasoning"}};
  for (const Api& api : kApis) {
    const auto dialects = CatalogueDialects(kRoot, api.name);
    for (const auto& [name, ids] : dialects) {
      SCOPED_TRACE(api.name + " " + name);
      std::set<std::string> lost;
      for (const std::string& id : ids) {
        const auto [from, to] = takes_away.equal_range(id);
        for (auto it = from; it != to; ++it) lost.insert(it->second);
      }
      MockllmServer server(
          {"--traces", (kRoot / "fixtures/probe" / api.name).string(), "--dialect", name});
      ASSERT_FALSE(server.url().empty());
      const ProcessResult r = Probe(api, server.url(), {"--json", "--expect", name});
      EXPECT_EQ(r.exit_code, lost.empty() ? 0 : 1) << r.out << r.err;
      const json row = ParseOrFail(r);
      if (row.is_discarded()) continue;
      EXPECT_EQ(DiaIds(row["deviations"]), ids) << row.dump(1);
      EXPECT_EQ(row["expect"]["drifted"], false) << row["expect"].dump();
      ASSERT_EQ(row["features"].size(), 8u) << row.dump(1);
      for (const auto& [feature, result] : row["features"].items()) {
        EXPECT_EQ(result, lost.contains(feature) ? "fail" : "pass")
            << feature << ": " << row["evidence"]["features"][feature].dump(1);
        for (const auto& e : row["evidence"]["features"][feature])
          EXPECT_EQ(e["detail"].get<std::string>().find("mockllm_"), std::string::npos) << e.dump();
      }
    }
    if (!dialects.empty()) continue;
    MockllmServer server({"--traces", (kRoot / "fixtures/probe" / api.name).string()});
    ASSERT_FALSE(server.url().empty());
    const ProcessResult r = Probe(api, server.url(), {"--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const json row = ParseOrFail(r);
    EXPECT_EQ(row["deviations"], json::array()) << api.name;
    ExpectNoFeatureFailed(row);
  }
}

TEST(ProbeSurfacesCli, UsageErrorsExitTwo) {
  const std::string url = "http://127.0.0.1:1";
  ProcessResult r = Probe({"chatty", "m", "OPENAI_API_KEY", "/v1"}, url);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--api: unknown API \"chatty\" (known: chat, responses, gemini, messages)"),
            std::string::npos)
      << r.err;
  // A Chat dialect expected of another surface.
  r = Probe(kApis[0], url, {"--expect", "deepseek"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("dialect \"deepseek\" is a dialect of the chat API, not of --api responses"),
            std::string::npos)
      << r.err;
  // Gemini's model is a path segment.
  r = Probe({"gemini", "../../admin?x", "GEMINI_API_KEY", "/v1beta"}, url);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("names the model in the path"), std::string::npos) << r.err;
  const ProcessResult help = RunProcess({kLlmconform, "probe", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* s : {"--api", "api.anthropic.com/v1", "generativelanguage.googleapis.com/v1beta",
                        "ANTHROPIC_API_KEY", "x-goog-api-key"})
    EXPECT_NE(help.out.find(s), std::string::npos) << s;
}

// Hostile answers are each a located row entry, never a crash or a hang.
TEST(ProbeSurfacesCli, HostileAnswersAreLocatedFailures) {
  {
    HostileServer server(Misbehaviour::kNotJson);
    const ProcessResult r = Probe(kApis[2], server.url().substr(0, server.url().size() - 3),
                                  {"--json", "--features", "plain-text,error-mapping"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const json row = ParseOrFail(r);
    const std::string detail = row["evidence"]["features"]["plain-text"][0]["detail"];
    EXPECT_NE(detail.find("plain: HTTP 200: the body is not JSON: \"<html>"), std::string::npos)
        << detail;
  }
  {
    HostileServer server(Misbehaviour::kGarbageSse);
    const ProcessResult r = Probe(kApis[0], server.url().substr(0, server.url().size() - 3),
                                  {"--json", "--features", "streamed-text"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const json row = ParseOrFail(r);
    EXPECT_EQ(row["features"]["streamed-text"], "fail");
    // The reader's findings are located deviations.
    ASSERT_FALSE(row["deviations"].empty()) << row.dump(1);
    const json& ev = row["evidence"]["deviations"][row["deviations"][0].get<std::string>()];
    EXPECT_EQ(ev[0]["where"].get<std::string>().rfind("event ", 0), 0u) << ev.dump();
  }
  {
    HostileServer server(Misbehaviour::kPings);
    const ProcessResult r = Probe(kApis[1], server.url().substr(0, server.url().size() - 3),
                                  {"--json", "--features", "streamed-text"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const json row = ParseOrFail(r);
    EXPECT_EQ(row["features"]["streamed-text"], "fail");
    const std::string detail = row["evidence"]["features"]["streamed-text"][0]["detail"];
    EXPECT_NE(detail.find("100000 event(s): no output text"), std::string::npos) << detail;
  }
}

// The surface's key header is sent (the echo shows it arrived) and never
// printed nor recorded, from the surface's default variable.
TEST(ProbeSurfacesCli, TheKeyGoesInTheSurfacesHeaderAndNeverOut) {
  for (const Api& api : {kApis[1], kApis[2]}) {
    SCOPED_TRACE(api.name);
    HostileServer server(Misbehaviour::kEchoKey);
    const fs::path dir = fs::temp_directory_path() /
                         ("llmconform-probe-key-" + api.name + "-" + std::to_string(getpid()));
    fs::remove_all(dir);
    const ProcessResult r = Probe(api, server.url().substr(0, server.url().size() - 3),
                                  {"--json", "--record", dir.string(), "--features", "plain-text"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.out.find(kKey), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(kKey), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("Incorrect API key provided: [redacted]"), std::string::npos) << r.out;
    const std::string trace = ReadWholeFile(dir / "plain.trace.jsonl");
    EXPECT_EQ(trace.find(kKey), std::string::npos);
    EXPECT_NE(trace.find("\"surface\":\"" + api.name + "\""), std::string::npos) << trace;
    fs::remove_all(dir);
  }
}

// `--record` of a surface's probe gives traces that lint and, replayed,
// give the same row.
TEST(ProbeSurfacesCli, ARecordedProbeReplaysToTheSameRow) {
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.name);
    const fs::path dir = fs::temp_directory_path() /
                         ("llmconform-probe-rec-" + api.name + "-" + std::to_string(getpid()));
    fs::remove_all(dir);
    json first;
    {
      MockllmServer server({"--traces", (kRoot / "fixtures/probe" / api.name).string()});
      ASSERT_FALSE(server.url().empty());
      const ProcessResult r = Probe(api, server.url(), {"--json", "--record", dir.string()});
      ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
      first = ParseOrFail(r);
    }
    const ProcessResult lint = RunProcess({kMockllm, "lint", dir.string()});
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    MockllmServer replay({"--traces", dir.string()});
    ASSERT_FALSE(replay.url().empty());
    const ProcessResult again = Probe(api, replay.url(), {"--json"});
    ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
    const json second = ParseOrFail(again);
    EXPECT_EQ(second["features"], first["features"]);
    EXPECT_EQ(second["deviations"], first["deviations"]);
    fs::remove_all(dir);
  }
}

// `llmconform dialect` names a Messages dialect's deviations, located, on
// the traces a probe of it records: every id of the dialect, no other.
TEST(ProbeSurfacesCli, ADialectsRecordedTracesShowItsDeviations) {
  const Api& api = kApis[1];
  ASSERT_EQ(api.name, "messages");
  for (const auto& [name, ids] : CatalogueDialects(kRoot, api.name)) {
    SCOPED_TRACE(name);
    const fs::path dir = fs::temp_directory_path() /
                         ("llmconform-probe-dia-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(dir);
    {
      MockllmServer server(
          {"--traces", (kRoot / "fixtures/probe" / api.name).string(), "--dialect", name});
      ASSERT_FALSE(server.url().empty());
      Probe(api, server.url(), {"--json", "--record", dir.string()});
    }
    const ProcessResult r = RunProcess({kLlmconform, "dialect", "--json", dir.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json rows = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(rows.is_array()) << r.out;
    std::set<std::string> seen;
    for (const json& row : rows) {
      EXPECT_EQ(row["surface"], "messages") << row.dump();
      for (const json& d : row["deviations"]) {
        seen.insert(d["id"].get<std::string>());
        EXPECT_FALSE(d["where"].get<std::string>().empty()) << d.dump();
      }
    }
    EXPECT_EQ(seen, ids);
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace llmconform
