// fs.write (fs_write.cpp) through ToolHost::Run.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

TEST_F(ToolHostTest, WriteIsAtomicCreatesParentsAndReportsTheHash) {
  const std::string content = "# Target Story\n";
  OJson r = Call("fs.write", {{"path", "@project/artifacts/create-story/deep/target.md"},
                              {"content", content}});
  EXPECT_EQ(r, (OJson{{"ok", true},
                      {"path", "@project/artifacts/create-story/deep/target.md"},
                      {"bytesWritten", content.size()},
                      {"sha256After", Sha256Hex(content)}}));
  EXPECT_EQ(fs_.ReadFile("/p/artifacts/create-story/deep/target.md"), content);
}

TEST_F(ToolHostTest, WriteChecksIfMatchSha256) {
  const std::string old_hash = Sha256Hex("hello\n");
  OJson stale = Call("fs.write",
                     {{"path", "@project/README.md"}, {"content", "new"}, {"ifMatchSha256", "00"}});
  EXPECT_EQ(Code(stale), "E_PRECONDITION_FAILED");
  EXPECT_EQ(stale["error"]["details"], (OJson{{"expected", "00"}, {"actual", old_hash}}));
  EXPECT_EQ(fs_.ReadFile("/p/README.md"), "hello\n");
  EXPECT_EQ(
      Call("fs.write",
           {{"path", "@project/README.md"}, {"content", "new"}, {"ifMatchSha256", old_hash}})["ok"],
      true);
  EXPECT_EQ(fs_.ReadFile("/p/README.md"), "new");
  OJson absent =
      Call("fs.write", {{"path", "@project/x.md"}, {"content", "x"}, {"ifMatchSha256", old_hash}});
  EXPECT_EQ(absent["error"]["details"]["actual"], nullptr);
  EXPECT_FALSE(fs_.Exists("/p/x.md"));
}

TEST_F(ToolHostTest, WriteRefusals) {
  OJson pkg = Call("fs.write", {{"path", "@pkg/steps/step-01.md"}, {"content", "x"}});
  EXPECT_EQ(Code(pkg), "E_SANDBOX_VIOLATION");
  EXPECT_EQ(Message(pkg), "@pkg is read-only: fs.write to @pkg/steps/step-01.md refused");
  EXPECT_EQ(fs_.ReadFile("/k/steps/step-01.md"), "step one\n");
  OJson big =
      Call("fs.write", {{"path", "@project/big.md"}, {"content", std::string(100'001, 'x')}});
  EXPECT_EQ(Code(big), "E_WRITE_LIMIT");
  EXPECT_EQ(Message(big), "content is 100001 bytes, over maxWriteBytes=100000");
  EXPECT_EQ(Message(Call("fs.write", {{"path", "@project/artifacts"}, {"content", "x"}})),
            "@project/artifacts is a folder; fs.write replaces files only");
  OJson under_file = Call("fs.write", {{"path", "@project/README.md/x.md"}, {"content", "x"}});
  EXPECT_EQ(Code(under_file), "E_PRECONDITION_FAILED");
  EXPECT_EQ(Message(Call("fs.write", {{"path", "@project/a.md"}})),
            "argument content: expected string, got nothing (the argument is required)");
}

TEST_F(ToolHostTest, StateWritesAreGuardedToo) {
  const std::string jump = "---\ncurrentNodeId: end-99\nstepsCompleted: []\n---\n";
  EXPECT_EQ(Code(Call("fs.write", {{"path", "@state/workflow.md"}, {"content", jump}})),
            "E_INVALID_TRANSITION");
  // Through a symlink as well.
  fs_.AddSymlink("/s/alias.md", "workflow.md");
  EXPECT_EQ(Code(Call("fs.write", {{"path", "@state/alias.md"}, {"content", jump}})),
            "E_INVALID_TRANSITION");
  EXPECT_EQ(
      Code(Call("fs.write", {{"path", "@state/workflow.md"}, {"content", "---\na: [1\n---\n"}})),
      "E_INVALID_FRONTMATTER");
  EXPECT_EQ(
      Code(Call("fs.write", {{"path", "@state/workflow.md"}, {"content", "no front matter"}})),
      "E_INVALID_FRONTMATTER");
  OJson types =
      Call("fs.write", {{"path", "@state/workflow.md"},
                        {"content", "---\ncurrentNodeId: step-01\nstepsCompleted: oops\n---\n"}});
  EXPECT_EQ(Code(types), "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Message(types),
            "front matter field stepsCompleted: expected array of strings, got string");
  EXPECT_EQ(fs_.ReadFile("/s/workflow.md"), kState);
  // A legal move passes.
  EXPECT_EQ(
      Call("fs.write",
           {{"path", "@state/workflow.md"},
            {"content", "---\ncurrentNodeId: step-02\nstepsCompleted: [step-01]\n---\n"}})["ok"],
      true);
  // stepsCompleted may only grow.
  OJson shrink =
      Call("fs.write", {{"path", "@state/workflow.md"},
                        {"content", "---\ncurrentNodeId: step-02\nstepsCompleted: []\n---\n"}});
  EXPECT_EQ(Code(shrink), "E_INVALID_TRANSITION");
  EXPECT_EQ(shrink["error"]["details"],
            (OJson{{"field", "stepsCompleted"}, {"removed", {"step-01"}}}));
}

TEST_F(ToolHostTest, AFailedReplaceLeavesTheFileAsItWas) {
  fs_.SetHook([](std::string_view op, const std::string&) -> std::optional<FsError> {
    if (op == "ReplaceFile")
      return FsError{FsErrorKind::kIo, "renameat(\"README.md\"): No space left on device"};
    return std::nullopt;
  });
  OJson r = Call("fs.write", {{"path", "@project/README.md"}, {"content", "new"}});
  EXPECT_EQ(Code(r), "E_INTERNAL");
  EXPECT_EQ(Message(r), "@project/README.md: renameat(\"README.md\"): No space left on device");
  EXPECT_EQ(fs_.ReadFile("/p/README.md"), "hello\n");
}

}  // namespace
}  // namespace llmconform::toolcalls
