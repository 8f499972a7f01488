#include "protocols/toolcalls/oracle_ops.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/format.h"
#include "base/json.h"

namespace llmconform::toolcalls {
namespace {

const OracleOp& Op(std::string_view name) {
  static const std::vector<OracleOp> ops = OracleOps();
  return OracleOpNamed(ops, name);
}

TEST(ToolcallsOracle, ToolHostRunsOneToolOnRealFolders) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / Format("toolcalls-oracle-{}", static_cast<long>(::getpid()));
  fs::create_directories(root / "p");
  fs::create_directories(root / "s");
  std::ofstream(root / "p" / "a.md") << "hi\n";
  const Json mounts = {{"@project", (root / "p").string()}, {"@state", (root / "s").string()}};
  auto r =
      Op("toolcalls.toolhost")
          .run({{"mounts", mounts}, {"tool", "fs.read"}, {"args", {{"path", "@project/a.md"}}}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["result"]["content"], "hi\n");
  // The tool message's text keeps the §6 key order.
  EXPECT_TRUE((*r)["content"].get<std::string>().starts_with(
      R"({"ok":true,"path":"@project/a.md","bytes":3,)"))
      << (*r)["content"];
  auto text_args = Op("toolcalls.toolhost")
                       .run({{"mounts", mounts}, {"tool", "fs_read"}, {"args", "{\"path\":1}"}});
  EXPECT_EQ((*text_args)["result"]["error"]["message"],
            "argument path: expected string, got number");
  auto pkg = Op("toolcalls.toolhost")
                 .run({{"mounts", mounts}, {"tool", "fs.read"}, {"args", {{"path", "@pkg/x"}}}});
  EXPECT_EQ((*pkg)["result"]["error"]["code"], "E_SANDBOX_VIOLATION");
  auto limited = Op("toolcalls.toolhost")
                     .run({{"mounts", mounts},
                           {"tool", "fs.read"},
                           {"args", {{"path", "@project/a.md"}}},
                           {"limits", {{"maxReadBytes", 1}}}});
  EXPECT_EQ((*limited)["result"]["contentPreview"], "h");
  EXPECT_EQ(Op("toolcalls.toolhost").run({{"tool", "fs.read"}}).error().message,
            "/mounts: expected object, got nothing (the field is required)");
  EXPECT_EQ(Op("toolcalls.toolhost")
                .run({{"mounts", mounts},
                      {"tool", "fs.read"},
                      {"args", {}},
                      {"limits", {{"maxReadBytes", -1}}}})
                .error()
                .message,
            "/limits/maxReadBytes: expected a positive integer, got -1");
  fs::remove_all(root);
}

TEST(ToolcallsOracle, SystemMessagesOpenEveryRequest) {
  auto run = Op("toolcalls.composeSystemMessages")
                 .run({{"persona", "You are Bob."}, {"limits", {{"maxReadBytes", 200}}}});
  ASSERT_TRUE(run) << run.error().message;
  const Json& m = (*run)["messages"];
  ASSERT_EQ(m.size(), 3u);
  EXPECT_TRUE(m[0]["content"].get<std::string>().starts_with("You are running a CrewAgent"));
  EXPECT_NE(m[1]["content"].get<std::string>().find("maxReadBytes=200, maxWriteBytes=100000"),
            std::string::npos);
  EXPECT_EQ(m[2], Json({{"role", "system"}, {"content", "You are Bob."}}));
  auto chat = Op("toolcalls.composeSystemMessages")
                  .run({{"mode", "chat"}, {"persona", "ignored"}, {"tools", {"fs_read"}}});
  ASSERT_TRUE(chat) << chat.error().message;
  ASSERT_EQ((*chat)["messages"].size(), 2u);
  EXPECT_NE((*chat)["messages"][1]["content"].get<std::string>().find("- tools: fs.read\n"),
            std::string::npos);
  EXPECT_EQ(Op("toolcalls.composeSystemMessages").run({{"mode", "ask"}}).error().message,
            "/mode: expected \"run\" or \"chat\", got \"ask\"");
}

TEST(ToolcallsOracle, ComposeOperations) {
  auto d = Op("toolcalls.composeRunDirective")
               .run({{"intent", "resume"},
                     {"workflow", "w"},
                     {"currentNodeId", "n"},
                     {"effectiveAgentId", "sm"},
                     {"autopilot", false}});
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ((*d)["text"],
            "RUN_DIRECTIVE\n- runType: bmad-micro\n- intent: resume\n- workflow: w\n- state: "
            "@state/workflow.md\n"
            "- graph: @pkg/workflow.graph.json\n- artifactsRoot: @project/artifacts/\n- "
            "currentNodeId: n\n"
            "- effectiveAgentId: sm\n- autopilot: false\n");
  EXPECT_EQ(Op("toolcalls.composeRunDirective").run({{"intent", "go"}}).error().message,
            "/intent: expected \"start\", \"continue\" or \"resume\", got \"go\"");
  auto b = Op("toolcalls.composeNodeBrief")
               .run({{"currentNodeId", "s1"},
                     {"stepFile", "@pkg/steps/s1.md"},
                     {"outputsMap", {"artifacts/t.md"}},
                     {"allowedNext", {{{"nodeId", "s2"}, {"label", "next"}}}}});
  EXPECT_EQ((*b)["text"],
            "NODE_BRIEF\n- currentNodeId: s1\n- stepFile: @pkg/steps/s1.md\n- outputsMap:\n  - "
            "artifacts/t.md -> "
            "@project/artifacts/t.md\n- allowedNext:\n  - s2 (label=next)\n");
  EXPECT_EQ((*Op("toolcalls.composeUserInput").run({{"text", "hi"}, {"forNodeId", "s1"}}))["text"],
            "USER_INPUT\n- forNodeId: s1\nhi");
  EXPECT_EQ((*Op("toolcalls.composeUserInput").run({{"text", "hi"}}))["text"], "USER_INPUT\nhi");
}

TEST(ToolcallsOracle, CheckConversationAndFunctionTools) {
  auto r = Op("toolcalls.checkConversation")
               .run({{"messages",
                      {{{"role", "assistant"},
                        {"tool_calls",
                         {{{"id", "a"},
                           {"type", "function"},
                           {"function", {{"name", "fs_read"}, {"arguments", "{}"}}}}}}}}}});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["findings"][0]["rule"], "TC-3.2-3");
  EXPECT_EQ((*Op("toolcalls.functionTools").run({{"tools", {"fs.read"}}}))["tools"].size(), 1u);
  EXPECT_EQ((*Op("toolcalls.functionTools").run(Json::object()))["tools"].size(), 5u);
}

}  // namespace
}  // namespace llmconform::toolcalls
