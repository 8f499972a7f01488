#include "protocols/toolcalls/engine.h"

#include <gtest/gtest.h>

#include <deque>

#include "base/json.h"
#include "protocols/toolcalls/conversation_check.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/memory_filesystem.h"
#include "protocols/wire/sse.h"

namespace llmconform::toolcalls {
namespace {

// Answers POSTs from a script and keeps every request body.
class ScriptedTransport final : public wire::ChatTransport {
 public:
  void Reply(Json body, int status = 200) { replies_.push_back({status, {}, body.dump()}); }
  void ReplyRaw(std::string body) {
    replies_.push_back({200, {{"content-type", "text/event-stream"}}, std::move(body)});
  }
  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds,
      const std::function<bool(std::string_view)>&) override {
    paths.emplace_back(path);
    requests.push_back(Json::parse(json_body));
    if (replies_.empty())
      return std::unexpected(Error{"POST /chat/completions: connection refused"});
    auto r = replies_.front();
    replies_.pop_front();
    return r;
  }
  std::vector<Json> requests;
  std::vector<std::string> paths;

 private:
  std::deque<wire::HttpResponse> replies_;
};

Json ToolCall(const std::string& id, const std::string& name, const Json& args) {
  return {
      {"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args.dump()}}}};
}

Json Completion(Json message) {
  return {{"id", "chatcmpl-1"},
          {"object", "chat.completion"},
          {"created", 1},
          {"model", "m"},
          {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}}};
}
Json Calls(std::vector<Json> calls, Json extra = Json::object()) {
  Json m = {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}};
  m.update(extra);
  return Completion(m);
}
Json Say(const std::string& text) { return Completion({{"role", "assistant"}, {"content", text}}); }

constexpr const char* kEngineGraph = R"({"workflowId":"mini","entryNodeId":"step-01","nodes":[
  {"id":"step-01","file":"steps/step-01.md","agentId":"sm","outputs":["artifacts/out.md"]},
  {"id":"end-99","type":"end","file":"steps/end-99.md"}],
  "edges":[{"from":"step-01","to":"end-99","label":"next"}]})";

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.AddFile("/k/workflow.graph.json", kEngineGraph);
    fs_.AddFile("/k/workflow.md",
                "---\nschemaVersion: \"1.1\"\nworkflowType: \"mini\"\ncurrentNodeId: "
                "\"step-01\"\nstepsCompleted: []\n"
                "variables: {}\ndecisionLog: []\nartifacts: []\n---\n");
    fs_.AddFile("/k/agents.json",
                R"({"agents":[{"id":"sm","persona":"You are Bob (Scrum Master)."}]})");
    fs_.AddFile("/k/steps/step-01.md", "Ask for the story key.\n");
    fs_.AddDir("/p");
    fs_.AddDir("/s");
  }
  OJson State() {
    return *ParseYamlMapping(SplitFrontmatter(*fs_.ReadFile("/s/workflow.md")).yaml);
  }
  std::vector<Json> Lines(const std::string& path) {
    std::vector<Json> out;
    const std::string text = fs_.ReadFile(path).value_or("");
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t nl = text.find('\n', pos);
      out.push_back(Json::parse(text.substr(pos, nl - pos)));
      pos = nl + 1;
    }
    return out;
  }

  MemoryFilesystem fs_;
  Sandbox sandbox_{fs_, {"/p", "/k", "/s"}};
  FakeClock clock_;
  ToolHost host_{sandbox_, clock_};
  ScriptedTransport llm_;
};

TEST_F(EngineTest, RunsAWorkflowToCompletionWithBackFilledToolMessages) {
  llm_.Reply(
      Calls({ToolCall("tc01", "fs_read", {{"path", "@state/workflow.md"}}),
             ToolCall("tc02", "fs_read", {{"path", "@pkg/workflow.graph.json"}}),
             ToolCall("tc03", "fs_read", {{"path", "@project/artifacts/sprint-status.yaml"}})}));
  llm_.Reply(Say("Which story key?"));
  llm_.Reply(Calls({ToolCall("tc04", "fs_write",
                             {{"path", "@project/artifacts/out.md"}, {"content", "# Out\n"}}),
                    ToolCall("tc05", "fs_apply_patch",
                             {{"path", "@state/workflow.md"},
                              {"operation", "updateFrontmatter"},
                              {"update",
                               {{"stepsCompleted", {{"append", {"step-01"}}}},
                                {"variables", {{"set", {{"storyKey", "1-2"}}}}},
                                {"currentNodeId", {{"set", "end-99"}}},
                                {"artifacts", {{"append", {"artifacts/out.md"}}}}}}})}));
  llm_.Reply(Calls({ToolCall("tc06", "fs_apply_patch",
                             {{"path", "@state/workflow.md"},
                              {"operation", "updateFrontmatter"},
                              {"update", {{"stepsCompleted", {{"append", {"end-99"}}}}}}})}));
  llm_.Reply(Say("Done: artifacts/out.md"));

  ExecutionEngine engine(llm_, host_, clock_, {.model = "test-model", .active_agent_id = "sm"});
  RunOutcome first = engine.Start();
  EXPECT_EQ(first.phase, RunPhase::kWaitingUser);
  EXPECT_EQ(first.message, "Which story key?");
  EXPECT_EQ(first.stop_reason, "assistant_no_toolCalls_and_not_complete");
  RunOutcome done = engine.SubmitUserInput("1-2");
  EXPECT_EQ(done.phase, RunPhase::kCompleted) << done.error;
  EXPECT_EQ(done.stop_reason, "assistant_no_toolCalls_and_complete");
  ASSERT_EQ(llm_.requests.size(), 5u);
  EXPECT_EQ(llm_.paths[0], "/chat/completions");

  // Every request obeys the back-fill rules.
  for (const auto& r : llm_.requests)
    EXPECT_TRUE(CheckConversation(r["messages"]).empty()) << r["messages"].dump();
  // C01: three system messages, RUN_DIRECTIVE and NODE_BRIEF; the five tools.
  const Json& c01 = llm_.requests[0];
  EXPECT_EQ(c01["model"], "test-model");
  ASSERT_EQ(c01["messages"].size(), 5u);
  EXPECT_EQ(c01["messages"][2]["content"], "You are Bob (Scrum Master).");
  EXPECT_EQ(c01["messages"][3]["content"],
            "RUN_DIRECTIVE\n- runType: bmad-micro\n- intent: start\n- workflow: mini\n- state: "
            "@state/workflow.md\n"
            "- graph: @pkg/workflow.graph.json\n- artifactsRoot: @project/artifacts/\n- "
            "currentNodeId: step-01\n"
            "- effectiveAgentId: sm\n- autopilot: true\n");
  EXPECT_EQ(
      c01["messages"][4]["content"],
      "NODE_BRIEF\n- currentNodeId: step-01\n- stepFile: @pkg/steps/step-01.md\n- outputsMap:\n"
      "  - artifacts/out.md -> @project/artifacts/out.md\n- allowedNext:\n  - end-99 "
      "(label=next)\n");
  EXPECT_EQ(c01["tools"].size(), 5u);
  // C02 carries the assistant message and its three tool messages in order.
  const Json& m2 = llm_.requests[1]["messages"];
  ASSERT_EQ(m2.size(), 9u);
  EXPECT_EQ(m2[5]["tool_calls"].size(), 3u);
  EXPECT_EQ(m2[6]["tool_call_id"], "tc01");
  EXPECT_EQ(m2[7]["tool_call_id"], "tc02");
  EXPECT_EQ(m2[8]["tool_call_id"], "tc03");
  EXPECT_EQ(Json::parse(m2[8]["content"].get<std::string>()),
            (Json{{"ok", false},
                  {"error",
                   {{"code", "ENOENT"},
                    {"message", "File not found: @project/artifacts/sprint-status.yaml"}}}}));
  // C03 ends with the user's answer bound to the node.
  EXPECT_EQ(llm_.requests[2]["messages"].back()["content"],
            "USER_INPUT\n- forNodeId: step-01\n1-2");
  // C04: the node changed, so the window restarts from the last exchange.
  const Json& m4 = llm_.requests[3]["messages"];
  ASSERT_EQ(m4.size(), 8u);
  EXPECT_EQ(m4[3]["role"], "assistant");
  EXPECT_EQ(m4[4]["tool_call_id"], "tc04");
  EXPECT_EQ(m4[5]["tool_call_id"], "tc05");
  EXPECT_TRUE(m4[6]["content"].get<std::string>().find("- intent: continue\n") !=
              std::string::npos);
  EXPECT_TRUE(m4[6]["content"].get<std::string>().find("- currentNodeId: end-99\n") !=
              std::string::npos);
  EXPECT_EQ(m4[2]["role"], "system");  // the end node names no agent: the active one's persona

  EXPECT_EQ(fs_.ReadFile("/p/artifacts/out.md"), "# Out\n");
  EXPECT_EQ(State()["stepsCompleted"], (OJson{"step-01", "end-99"}));
  // One EngineTurn per call, one audit line per tool call.
  ASSERT_EQ(engine.turns().size(), 5u);
  EXPECT_EQ(engine.turns()[0].id, "C01");
  EXPECT_EQ(engine.turns()[0].tool_runs.size(), 3u);
  const auto turns = Lines("/s/logs/engine-turns.jsonl");
  ASSERT_EQ(turns.size(), 5u);
  EXPECT_EQ(turns[1]["uiAfter"], (Json{{"phase", "WaitingUser"},
                                       {"stopReason", "assistant_no_toolCalls_and_not_complete"}}));
  EXPECT_EQ(turns[0]["toolRuns"][2]["result"]["error"]["code"], "ENOENT");
  EXPECT_EQ(turns[4]["uiAfter"]["phase"], "Completed");
  EXPECT_EQ(Lines("/s/logs/execution.jsonl").size(), 6u);
}

TEST_F(EngineTest, ReasoningContentIsSentBack) {
  llm_.Reply(Calls({ToolCall("call_1", "fs_read", {{"path", "@state/workflow.md"}})},
                   {{"reasoning_content", "I should read the state first."}}));
  llm_.Reply(Say("What next?"));
  ExecutionEngine engine(llm_, host_, clock_, {.active_agent_id = "sm"});
  EXPECT_EQ(engine.Start().phase, RunPhase::kWaitingUser);
  ASSERT_EQ(llm_.requests.size(), 2u);
  const Json& assistant = llm_.requests[1]["messages"][5];
  EXPECT_EQ(assistant["role"], "assistant");
  EXPECT_EQ(assistant["reasoning_content"], "I should read the state first.");
}

TEST_F(EngineTest, StreamedToolCallsWithFragmentedArgumentsRun) {
  auto chunk = [](Json delta, Json finish = nullptr) {
    return wire::WriteSseData(
        Json{{"id", "c"},
             {"object", "chat.completion.chunk"},
             {"created", 1},
             {"model", "m"},
             {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}}
            .dump());
  };
  std::string sse = chunk({{"role", "assistant"}, {"content", nullptr}});
  sse += chunk({{"tool_calls",
                 {{{"index", 0},
                   {"id", "call_a"},
                   {"type", "function"},
                   {"function", {{"name", "fs_write"}, {"arguments", ""}}}}}}});
  for (const char* part : {"{\"pa", "th\":\"@project/s.md\",", "\"content\":\"stre", "amed\"}"}) {
    sse += chunk({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", part}}}}}}});
  }
  sse += chunk(Json::object(), "tool_calls");
  sse += wire::WriteSseData("[DONE]");
  llm_.ReplyRaw(sse);
  llm_.ReplyRaw(chunk({{"role", "assistant"}, {"content", "ok"}}, "stop") +
                wire::WriteSseData("[DONE]"));
  ExecutionEngine engine(llm_, host_, clock_, {.stream = true, .active_agent_id = "sm"});
  EXPECT_EQ(engine.Start().phase, RunPhase::kWaitingUser);
  EXPECT_EQ(llm_.requests[0]["stream"], true);
  EXPECT_EQ(fs_.ReadFile("/p/s.md"), "streamed");
  const Json& echoed = llm_.requests[1]["messages"][5];
  EXPECT_EQ(echoed["tool_calls"][0],
            (Json{{"id", "call_a"},
                  {"type", "function"},
                  {"function",
                   {{"name", "fs_write"},
                    {"arguments", "{\"path\":\"@project/s.md\",\"content\":\"streamed\"}"}}}}));
}

TEST_F(EngineTest, AnIllegalTransitionIsFedBackAndTheStateKept) {
  fs_.AddFile(
      "/k/workflow.graph.json",
      R"({"entryNodeId":"step-01","nodes":[{"id":"step-01"},{"id":"step-02"},{"id":"end-99","type":"end"}],
                  "edges":[{"from":"step-01","to":"step-02"},{"from":"step-02","to":"end-99"}]})");
  llm_.Reply(Calls({ToolCall("x1", "fs_apply_patch",
                             {{"path", "@state/workflow.md"},
                              {"operation", "updateFrontmatter"},
                              {"update", {{"currentNodeId", {{"set", "end-99"}}}}}})}));
  llm_.Reply(Say("Sorry."));
  ExecutionEngine engine(llm_, host_, clock_);
  const std::string before = fs_.ReadFile("/k/workflow.md").value();
  EXPECT_EQ(engine.Start().phase, RunPhase::kWaitingUser);
  const Json result =
      Json::parse(llm_.requests[1]["messages"].back()["content"].get<std::string>());
  EXPECT_EQ(result["error"]["code"], "E_INVALID_TRANSITION");
  EXPECT_EQ(result["error"]["details"]["allowedNext"], (Json{"step-02"}));
  EXPECT_EQ(fs_.ReadFile("/s/workflow.md"), before);
}

TEST_F(EngineTest, ResumesFromTheStateAlone) {
  fs_.AddFile("/s/workflow.md", "---\ncurrentNodeId: end-99\nstepsCompleted: [step-01]\n---\n");
  llm_.Reply(Say("Summary?"));
  ExecutionEngine engine(llm_, host_, clock_, {.active_agent_id = "sm"});
  EXPECT_EQ(engine.Resume().phase, RunPhase::kWaitingUser);
  const Json& m = llm_.requests[0]["messages"];
  ASSERT_EQ(m.size(), 5u);
  EXPECT_TRUE(m[3]["content"].get<std::string>().find("- intent: resume\n") != std::string::npos);
  EXPECT_TRUE(m[3]["content"].get<std::string>().find("- currentNodeId: end-99\n") !=
              std::string::npos);
}

TEST_F(EngineTest, ChatModeSendsNoDirectivesAndNoPersona) {
  llm_.Reply(Say("Hello!"));
  ExecutionEngine engine(llm_, host_, clock_, {.mode = "chat", .active_agent_id = "sm"});
  RunOutcome r = engine.SubmitUserInput("hi");
  EXPECT_EQ(r.phase, RunPhase::kWaitingUser);
  const Json& m = llm_.requests[0]["messages"];
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1]["content"].get<std::string>().substr(0, 12), "Tool policy:");
  EXPECT_EQ(m[2]["content"], "USER_INPUT\nhi");
  EXPECT_EQ(llm_.requests[0]["tools"].size(), 5u);
}

TEST_F(EngineTest, FailuresEndTheRun) {
  llm_.Reply(Json{{"error",
                   {{"message",
                     "The reasoning_content in the thinking mode must be passed back to the API."},
                    {"type", "invalid_request_error"}}}},
             400);
  ExecutionEngine engine(llm_, host_, clock_);
  RunOutcome r = engine.Start();
  EXPECT_EQ(r.phase, RunPhase::kFailed);
  EXPECT_EQ(r.error,
            "HTTP 400: The reasoning_content in the thinking mode must be passed back to the API.");
  RunOutcome unreachable = engine.Resume();
  EXPECT_EQ(unreachable.error, "POST /chat/completions: connection refused");
  EXPECT_EQ(engine.SubmitUserInput("x").error, "user input arrived while the run is Failed");
  ExecutionEngine looping(llm_, host_, clock_, {.max_llm_calls = 2});
  llm_.Reply(Calls({ToolCall("a", "fs_list", {{"path", "@project"}})}));
  llm_.Reply(Calls({ToolCall("b", "fs_list", {{"path", "@project"}})}));
  EXPECT_EQ(looping.Resume().error, "no end after 2 LLM calls");
}

}  // namespace
}  // namespace llmconform::toolcalls
