// fs.apply_patch (fs_apply_patch.cpp) through ToolHost::Run.
#include <gtest/gtest.h>

#include <string>

#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

TEST_F(ToolHostTest, ApplyPatchUpdatesFrontmatterAndKeepsTheBody) {
  OJson update = {
      {"stepsCompleted", {{"append", {"step-01"}}}},
      {"variables", {{"set", {{"storyKey", "1-2-user-authentication"}, {"epicNum", "1"}}}}},
      {"currentNodeId", {{"set", "step-02"}}},
      {"artifacts", {{"append", {"artifacts/create-story/target.md"}}}},
      {"decisionLog", {{"append", {{{"decision", "use key"}}}}}},
      {"updatedAt", {{"set", "2025-12-25T00:00:00Z"}}}};
  OJson r = Call(
      "fs.apply_patch",
      {{"path", "@state/workflow.md"}, {"operation", "updateFrontmatter"}, {"update", update}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  const std::string after = *fs_.ReadFile("/s/workflow.md");
  EXPECT_EQ(r, (OJson{{"ok", true},
                      {"path", "@state/workflow.md"},
                      {"sha256Before", Sha256Hex(kState)},
                      {"sha256After", Sha256Hex(after)}}));
  EXPECT_EQ(after,
            "---\nschemaVersion: \"1.1\"\ncurrentNodeId: \"step-02\"\nstepsCompleted:\n  - "
            "\"step-01\"\nvariables:\n"
            "  storyKey: \"1-2-user-authentication\"\n  epicNum: \"1\"\ndecisionLog:\n  - "
            "decision: \"use key\"\n"
            "artifacts:\n  - \"artifacts/create-story/target.md\"\nupdatedAt: "
            "\"2025-12-25T00:00:00Z\"\n---\n"
            "# Workflow\n");
  // Appends skip entries already present; variables merge shallowly.
  OJson again = Call("fs.apply_patch", {{"path", "@state/workflow.md"},
                                        {"operation", "updateFrontmatter"},
                                        {"update",
                                         {{"stepsCompleted", {{"append", {"step-01", "step-02"}}}},
                                          {"variables", {{"set", {{"epicNum", 2}}}}}}}});
  ASSERT_EQ(again["ok"], true) << again.dump();
  auto fm = ParseYamlMapping(SplitFrontmatter(*fs_.ReadFile("/s/workflow.md")).yaml);
  EXPECT_EQ((*fm)["stepsCompleted"], (OJson{"step-01", "step-02"}));
  EXPECT_EQ((*fm)["variables"], (OJson{{"storyKey", "1-2-user-authentication"}, {"epicNum", 2}}));
}

TEST_F(ToolHostTest, IllegalTransitionIsRefusedAndLeavesTheFileByteIdentical) {
  OJson r = Call("fs.apply_patch", {{"path", "@state/workflow.md"},
                                    {"operation", "updateFrontmatter"},
                                    {"update", {{"currentNodeId", {{"set", "end-99"}}}}}});
  EXPECT_EQ(
      r,
      (OJson{{"ok", false},
             {"error",
              {{"code", "E_INVALID_TRANSITION"},
               {"message",
                "transition step-01 -> end-99 is not an edge of @pkg/workflow.graph.json; allowed "
                "next: "
                "step-02, side"},
               {"details",
                {{"from", "step-01"}, {"to", "end-99"}, {"allowedNext", {"step-02", "side"}}}}}}}));
  EXPECT_EQ(fs_.ReadFile("/s/workflow.md"), kState);
  OJson unknown = Call("fs.apply_patch", {{"path", "@state/workflow.md"},
                                          {"operation", "updateFrontmatter"},
                                          {"update", {{"currentNodeId", {{"set", "nowhere"}}}}}});
  EXPECT_EQ(Message(unknown),
            "currentNodeId \"nowhere\" is not a node of @pkg/workflow.graph.json");
  EXPECT_EQ(fs_.ReadFile("/s/workflow.md"), kState);
}

TEST_F(ToolHostTest, ApplyPatchSchemaAndFrontmatterErrors) {
  auto patch = [&](const OJson& update) {
    return Call(
        "fs.apply_patch",
        {{"path", "@state/workflow.md"}, {"operation", "updateFrontmatter"}, {"update", update}});
  };
  EXPECT_EQ(Message(patch({{"stepsCompleted", {{"append", "step-01"}}}})),
            "argument update.stepsCompleted.append: expected array of strings, got string");
  EXPECT_EQ(Message(patch({{"stepsCompleted", {{"set", {"a"}}}}})),
            "update.stepsCompleted: expected {\"append\": array of strings}");
  EXPECT_EQ(Message(patch({{"color", {{"set", "red"}}}})),
            "update.color: unknown field; expected one of stepsCompleted, variables, decisionLog, "
            "artifacts, "
            "currentNodeId, updatedAt");
  EXPECT_EQ(
      Message(Call("fs.apply_patch",
                   {{"path", "@state/workflow.md"}, {"operation", "replace"}, {"update", {}}})),
      "argument operation: expected \"updateFrontmatter\", got \"replace\"");
  fs_.AddFile("/p/plain.md", "# no front matter\n");
  EXPECT_EQ(Message(Call("fs.apply_patch", {{"path", "@project/plain.md"},
                                            {"operation", "updateFrontmatter"},
                                            {"update", OJson::object()}})),
            "@project/plain.md has no YAML front matter between '---' lines");
  fs_.AddFile("/p/broken.md", "---\na: [1\n---\n");
  EXPECT_EQ(Code(Call("fs.apply_patch", {{"path", "@project/broken.md"},
                                         {"operation", "updateFrontmatter"},
                                         {"update", OJson::object()}})),
            "E_INVALID_FRONTMATTER");
  fs_.AddFile("/p/typed.md", "---\nartifacts: 5\n---\n");
  EXPECT_EQ(Message(Call("fs.apply_patch", {{"path", "@project/typed.md"},
                                            {"operation", "updateFrontmatter"},
                                            {"update", {{"artifacts", {{"append", {"a"}}}}}}})),
            "front matter field artifacts: expected array of strings, got number");
  EXPECT_EQ(fs_.ReadFile("/p/typed.md"), "---\nartifacts: 5\n---\n");
  EXPECT_EQ(Code(Call("fs.apply_patch", {{"path", "@pkg/steps/step-01.md"},
                                         {"operation", "updateFrontmatter"},
                                         {"update", OJson::object()}})),
            "E_SANDBOX_VIOLATION");
  EXPECT_EQ(Code(Call("fs.apply_patch", {{"path", "@state/workflow.md"},
                                         {"operation", "updateFrontmatter"},
                                         {"update", OJson::object()},
                                         {"ifMatchSha256", "ab"}})),
            "E_PRECONDITION_FAILED");
  EXPECT_EQ(fs_.ReadFile("/s/workflow.md"), kState);
}

}  // namespace
}  // namespace llmconform::toolcalls
