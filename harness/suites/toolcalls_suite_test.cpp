// The toolcalls suite end to end: its synthesized traces are what the
// reference engine sends (regenerated from the scripted replies with
// LLMCONFORM_REGENERATE_FIXTURES=1), and every scenario replayed by mockllm
// passes every rule it lists.
#include "harness/suites/toolcalls_suite.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/format.h"
#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "harness/suites/suite_test_support.h"
#include "protocols/wire/sse.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

using ::llmconform::test_paths::kRoot;

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Plays scripted assistant messages and records every exchange as a trace line.
class ScriptedTransport final : public wire::ChatTransport {
 public:
  ScriptedTransport(std::string name, Json replies, bool stream, std::string model)
      : name_(std::move(name)), stream_(stream), model_(std::move(model)) {
    for (auto& r : replies) replies_.push_back(std::move(r));
  }

  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view, const std::string& json_body, std::chrono::milliseconds,
      const std::function<bool(std::string_view)>&) override {
    if (replies_.empty()) return std::unexpected(Error{"the script has no reply left"});
    Json message = replies_.front();
    replies_.pop_front();
    if (message.contains("tool_calls")) {
      for (auto& tc : message["tool_calls"]) {
        if (!tc.contains("type")) tc["type"] = "function";
        Json& args = tc["function"]["arguments"];
        if (!args.is_string()) args = args.dump();
      }
    }
    const int n = ++count_;
    const std::string id = Format("chatcmpl-{}-{}", name_, n);
    const bool calls = message.contains("tool_calls") && !message["tool_calls"].empty();
    Json line = {{"seq", n},
                 {"request",
                  {{"method", "POST"},
                   {"path", "/v1/chat/completions"},
                   {"headers", {{"content-type", "application/json"}}},
                   {"body", Json::parse(json_body)}}}};
    wire::HttpResponse http{200, {}, ""};
    if (!stream_) {
      Json body = {{"id", id},
                   {"object", "chat.completion"},
                   {"created", 1763683200},
                   {"model", model_},
                   {"choices",
                    {{{"index", 0},
                      {"message", message},
                      {"finish_reason", calls ? "tool_calls" : "stop"}}}},
                   {"usage",
                    {{"prompt_tokens", 100 * n},
                     {"completion_tokens", 20},
                     {"total_tokens", 100 * n + 20}}}};
      http.headers["content-type"] = "application/json";
      http.body = body.dump();
      line["response"] = {
          {"status", 200}, {"headers", {{"content-type", "application/json"}}}, {"body", body}};
    } else {
      Json chunks = Json::array();
      auto add = [&](Json delta, Json finish = nullptr) {
        const std::string raw = wire::WriteSseData(
            Json{{"id", id},
                 {"object", "chat.completion.chunk"},
                 {"created", 1763683200},
                 {"model", model_},
                 {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}}
                .dump());
        chunks.push_back({{"t_ms", 20 * chunks.size()}, {"raw", raw}});
        http.body += raw;
      };
      add({{"role", "assistant"}, {"content", ""}});
      if (message.contains("reasoning_content"))
        add({{"reasoning_content", message["reasoning_content"]}});
      if (message.value("content", Json()).is_string() &&
          !message["content"].get<std::string>().empty()) {
        const std::string text = message["content"];
        add({{"content", text.substr(0, text.size() / 2)}});
        add({{"content", text.substr(text.size() / 2)}});
      }
      int index = 0;
      for (const auto& tc : message.value("tool_calls", Json::array())) {
        const std::string args = tc["function"]["arguments"];
        add({{"tool_calls",
              {{{"index", index},
                {"id", tc["id"]},
                {"type", "function"},
                {"function", {{"name", tc["function"]["name"]}, {"arguments", ""}}}}}}});
        // The arguments in three fragments, cut anywhere.
        const std::size_t a = args.size() / 3, b = 2 * args.size() / 3;
        for (auto part : {args.substr(0, a), args.substr(a, b - a), args.substr(b)}) {
          add({{"tool_calls", {{{"index", index}, {"function", {{"arguments", part}}}}}}});
        }
        ++index;
      }
      add(Json::object(), calls ? "tool_calls" : "stop");
      const std::string done = wire::WriteSseData("[DONE]");
      chunks.push_back({{"t_ms", 20 * chunks.size()}, {"raw", done}});
      http.body += done;
      http.headers["content-type"] = "text/event-stream";
      line["response"] = {{"status", 200},
                          {"headers", {{"content-type", "text/event-stream"}}},
                          {"chunks", chunks}};
    }
    lines.push_back(std::move(line));
    return http;
  }

  std::vector<Json> lines;
  bool exhausted() const { return replies_.empty(); }

 private:
  std::string name_;
  bool stream_;
  std::string model_;
  std::deque<Json> replies_;
  int count_ = 0;
};

// The trace the reference engine produces for a scenario's scripted replies.
std::string Synthesize(const Scenario& s) {
  const Json script = Json::parse(
      ReadText(kRoot / "fixtures" / "synthesized" / Format("toolcalls-{}.replies.json", s.name)));
  const std::string model = s.input.value("model", "gpt-4o-mini");
  ScriptedTransport transport(s.name, script["replies"], s.input.value("stream", false), model);
  const ScratchDir work("llmconform-toolcalls-test-");
  auto outputs = RunToolcallsScenario(s, transport, kRoot, work.path());
  EXPECT_TRUE(outputs) << (outputs ? "" : outputs.error().message);
  EXPECT_TRUE(transport.exhausted())
      << s.name << ": the engine stopped before the script's last reply";
  const Json header = {{"format", "llmconform-trace/1"},
                       {"id", "toolcalls/" + s.name},
                       {"origin", "synthesized"},
                       {"provider", script.value("provider", "openai")},
                       {"model", model},
                       {"recorded_at", "2026-11-21T00:00:00Z"},
                       {"notes", s.raw.value("description", "")}};
  std::string out = header.dump() + "\n";
  for (const auto& l : transport.lines) out += l.dump() + "\n";
  return out;
}

TEST(ToolcallsSuite, SynthesizedTracesAreWhatTheEngineSends) {
  const bool regenerate = std::getenv("LLMCONFORM_REGENERATE_FIXTURES") != nullptr;
  const auto scenarios = ScenariosOf("toolcalls");
  ASSERT_GE(scenarios.size(), 9u);
  for (const Scenario* scenario : scenarios) {
    const Scenario& s = *scenario;
    const std::string trace = Synthesize(s);
    const fs::path file = kRoot / s.trace;
    if (regenerate) std::ofstream(file, std::ios::binary) << trace;
    EXPECT_EQ(ReadText(file), trace)
        << s.name << ": regenerate with LLMCONFORM_REGENERATE_FIXTURES=1";
  }
}

reports::Outcome OutcomeOf(const std::vector<reports::CheckResult>& results,
                           std::string_view rule) {
  for (const auto& r : results) {
    if (r.rule == rule) return r.outcome;
  }
  return reports::Outcome::kError;
}

TEST(ToolcallsSuite, EveryScenarioPassesAgainstMockllm) {
  auto suite = MakeToolcallsSuite();
  EXPECT_EQ(suite->protocol(), "toolcalls");
  std::map<std::string, std::vector<reports::CheckResult>> by_scenario;
  for (const Scenario* scenario : ScenariosOf("toolcalls")) {
    const Scenario& s = *scenario;
    const Observation observed = DriveAgainstMockllm(*suite, s);
    const Observation* obs = &observed;
    for (const auto& entry : obs->journal) {
      EXPECT_EQ(entry["response"]["status"], 200) << s.name << ": " << entry.dump().substr(0, 600);
    }
    const auto results = suite->Check(s, *obs);
    EXPECT_EQ(results.size(), s.rules.size());
    for (const auto& r : results) {
      EXPECT_TRUE(r.outcome == reports::Outcome::kPass || r.outcome == reports::Outcome::kSkip)
          << s.name << " " << r.rule << ": " << r.message
          << (r.evidence ? " expected " + r.evidence->expected + " actual " + r.evidence->actual +
                               " at " + r.evidence->where
                         : "");
    }
    if (s.expect.contains("phase")) {
      EXPECT_EQ(obs->outputs["phase"], s.expect["phase"]) << s.name;
    }
    by_scenario[s.name] = results;
  }
  using reports::Outcome;
  // The rules each scenario is about are verified, not skipped.
  EXPECT_EQ(OutcomeOf(by_scenario["create-story-micro"], "TC-2.2-1"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["create-story-micro"], "TC-4.2-2"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["create-story-micro"], "TC-6.3-1"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["create-story-micro"], "TC-8-1"), Outcome::kSkip);
  EXPECT_EQ(OutcomeOf(by_scenario["deepseek-reasoning"], "TC-8-1"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["pkg-write-refused"], "TC-2.1-1"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["pkg-write-refused"], "TC-2.1-2"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["illegal-transition"], "TC-6.6-2"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["resume-from-state"], "TC-1-1"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["chat-mode"], "TC-3.1-2"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["streamed-tool-calls"], "TC-4.1-4"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf(by_scenario["truncated-read"], "TC-1-3"), Outcome::kPass);
}

// The checks judge the journal: a client that drops a tool message or the
// reasoning_content is caught.
TEST(ToolcallsSuite, ChecksCatchABrokenClient) {
  auto suite = MakeToolcallsSuite();
  const Scenario& s = NamedScenario("toolcalls", "deepseek-reasoning");
  Observation obs = DriveAgainstMockllm(*suite, s);
  ASSERT_EQ(obs.journal.size(), 2u);
  Json& messages = obs.journal[1]["request"]["body"]["messages"];
  Observation no_reasoning = obs;
  no_reasoning.journal[1]["request"]["body"]["messages"][5].erase("reasoning_content");
  EXPECT_EQ(OutcomeOf(suite->Check(s, no_reasoning), "TC-8-1"), reports::Outcome::kFail);
  messages.erase(messages.size() - 1);  // the last tool message
  const auto results = suite->Check(s, obs);
  EXPECT_EQ(OutcomeOf(results, "TC-3.2-3"), reports::Outcome::kFail);
  Observation empty;
  EXPECT_EQ(OutcomeOf(suite->Check(s, empty), "TC-3.2-3"), reports::Outcome::kFail);
}

// Issue 34: "tools":[true] made TC-4.1-3 throw (type_error.306) and the run
// exit 3; fuzzed journals did the same to TC-3.2-3. What a client sends is
// read with typed reads: a wrong shape fails the rule, located.
TEST(ToolcallsSuite, NoRuleThrowsOnWhatAClientSends) {
  auto suite = MakeToolcallsSuite();
  for (const char* name : {"chat-mode", "deepseek-reasoning"}) {
    const Scenario& s = NamedScenario("toolcalls", name);
    Observation obs = DriveAgainstMockllm(*suite, s);
    ASSERT_FALSE(obs.journal.empty()) << name;
    Observation tools = obs;
    tools.journal[0]["request"]["body"]["tools"] = Json::array({true});
    const auto with_bool_tool = suite->Check(s, tools);
    for (const auto& c : with_bool_tool)
      EXPECT_NE(c.outcome, reports::Outcome::kError) << name << " " << c.rule << ": " << c.message;
    const auto tc413 = std::find_if(with_bool_tool.begin(), with_bool_tool.end(),
                                    [](const auto& c) { return c.rule == "TC-4.1-3"; });
    if (tc413 != with_bool_tool.end()) {
      EXPECT_EQ(tc413->outcome, reports::Outcome::kFail) << name;
      ASSERT_TRUE(tc413->evidence);
      EXPECT_EQ(tc413->evidence->where, "journal[0]/request/body/tools/0");
    }
    // Fuzzed shapes: messages that are not objects, fields of other types,
    // outputs of other shapes.
    for (const Json& hostile :
         {Json::parse(R"([1, null, {"role": 5}, {"role": "assistant", "tool_calls": 3},
                          {"role": "assistant", "tool_calls": [1, {"id": 2, "function": "f"}]},
                          {"role": "tool", "tool_call_id": [], "content": {"ok": "x"}},
                          {"role": "user", "content": 9}])"),
          Json::parse(R"([{"role": "assistant", "content": null,
                           "tool_calls": [{"id": "c1", "function": {"name": 1, "arguments": 2}}]},
                          {"role": "tool", "tool_call_id": "c1",
                           "content": "{\"ok\": 3, \"error\": \"E\", \"truncated\": 1}"}])")}) {
      Observation fuzzed = obs;
      for (auto& e : fuzzed.journal) e["request"]["body"]["messages"] = hostile;
      fuzzed.journal[0]["request"]["body"]["tools"] = "none";
      fuzzed.outputs = {{"turns", {1, {{"response", 2}}}},
                        {"audit", "x"},
                        {"state", {{"a", 1}}},
                        {"phase", 3},
                        {"stopReason", {1}},
                        {"projectFiles", 4},
                        {"pkgChanged", "no"}};
      for (const auto& c : suite->Check(s, fuzzed))
        EXPECT_NE(c.outcome, reports::Outcome::kError)
            << name << " " << c.rule << ": " << c.message;
    }
  }
}

// The workspace a client gets (run --client-cmd) is the reference driver's,
// and what the harness reads back from it is the run's files only: a fifo, a
// symlinked folder or an oversized file is not followed, read or waited for.
TEST(ToolcallsSuite, TheWorkspaceIsPreparedAndReadBackSafely) {
  const Scenario& s = NamedScenario("toolcalls", "resume-from-state");
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  auto ws = PrepareToolcallsWorkspace(s, kRoot, dir.path());
  ASSERT_TRUE(ws) << ws.error().message;
  EXPECT_TRUE(fs::exists(ws->pkg / "workflow.graph.json"));
  EXPECT_TRUE(fs::exists(ws->project / "artifacts" / "PRD.md"));
  EXPECT_EQ(ReadText(ws->state / "workflow.md"), s.input["state"].get<std::string>());
  Json out = {{"phase", "WaitingUser"}, {"audit", "the client's word"}};
  CollectToolcallsOutputs(*ws, out);
  EXPECT_EQ(out["phase"], "WaitingUser");
  EXPECT_EQ(out["audit"], Json::array());
  EXPECT_EQ(out["state"]["currentNodeId"], "step-03-extract-context");
  EXPECT_EQ(out["pkgChanged"], false);
  EXPECT_NE(std::find(out["projectFiles"].begin(), out["projectFiles"].end(), "artifacts/PRD.md"),
            out["projectFiles"].end());

  fs::remove(ws->state / "workflow.md");
  ASSERT_EQ(::mkfifo((ws->state / "workflow.md").c_str(), 0600), 0);
  fs::create_directories(ws->state / "logs");
  fs::create_symlink(ws->project / "artifacts" / "PRD.md", ws->state / "logs" / "execution.jsonl");
  fs::remove_all(ws->project);
  fs::create_directory_symlink("/", ws->project);
  fs::remove_all(ws->pkg);
  fs::create_directory_symlink("/", ws->pkg);
  CollectToolcallsOutputs(*ws, out);
  EXPECT_EQ(out["audit"], Json::array());
  EXPECT_TRUE(out["state"].is_null());
  EXPECT_EQ(out["projectFiles"], Json::array());
  EXPECT_EQ(out["pkgChanged"], true);

  Scenario bad = s;
  bad.input["state"] = 7;
  EXPECT_EQ(PrepareToolcallsWorkspace(bad, kRoot, dir.path() / "bad").error().message,
            "resume-from-state: /input/state: expected string, got number");
}

}  // namespace
}  // namespace llmconform::harness
