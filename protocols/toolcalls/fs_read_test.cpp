// fs.read (fs_read.cpp) through ToolHost::Run.
#include <gtest/gtest.h>

#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

TEST_F(ToolHostTest, ReadReturnsContentBytesAndSha256) {
  const std::string text = "# Epics\nline two\nline three\n";
  OJson r = Call("fs.read", {{"path", "@project/artifacts/epics.md"}});
  EXPECT_EQ(r, (OJson{{"ok", true},
                      {"path", "@project/artifacts/epics.md"},
                      {"bytes", text.size()},
                      {"sha256", Sha256Hex(text)},
                      {"truncated", false},
                      {"content", text}}));
  // Field order is the seed's.
  EXPECT_TRUE(r.dump().starts_with(
      R"({"ok":true,"path":"@project/artifacts/epics.md","bytes":28,"sha256":")"));
  EXPECT_EQ(Call("fs_read", {{"path", "@project/artifacts/epics.md"}}), r);  // wire name
}

TEST_F(ToolHostTest, ReadWindowIsOneBasedInclusive) {
  OJson r =
      Call("fs.read", {{"path", "@project/artifacts/epics.md"}, {"startLine", 2}, {"endLine", 3}});
  EXPECT_EQ(r["content"], "line two\nline three\n");
  EXPECT_EQ(r["bytes"], 28);  // the whole file
  EXPECT_EQ(Call("fs.read", {{"path", "@project/artifacts/epics.md"}, {"startLine", 3}})["content"],
            "line three\n");
  EXPECT_EQ(Call("fs.read", {{"path", "@project/artifacts/epics.md"}, {"startLine", 9}})["content"],
            "");
  OJson bad =
      Call("fs.read", {{"path", "@project/artifacts/epics.md"}, {"startLine", 3}, {"endLine", 2}});
  EXPECT_EQ(Code(bad), "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Message(bad), "argument endLine: expected at least startLine (3), got 2");
  EXPECT_EQ(Message(Call("fs.read", {{"path", "@project/artifacts/epics.md"}, {"startLine", 0}})),
            "argument startLine: expected an integer from 1 to 9223372036854775807, got 0");
}

TEST_F(ToolHostTest, ReadTruncatesWithPreviewAndHint) {
  const std::string big = std::string(60'000, 'x');
  fs_.AddFile("/p/big.md", big);
  OJson r = Call("fs.read", {{"path", "@project/big.md"}});
  EXPECT_EQ(r["truncated"], true);
  EXPECT_FALSE(r.contains("content"));
  EXPECT_EQ(r["contentPreview"].get<std::string>(), std::string(50'000, 'x'));
  EXPECT_EQ(r["bytes"], 60'000);
  EXPECT_EQ(r["sha256"], Sha256Hex(big));
  EXPECT_EQ(r["hint"],
            "The file is 60000 bytes, over maxReadBytes=50000; contentPreview holds the first "
            "50000 bytes. Use "
            "fs.search to find what you need, then fs.read with startLine and endLine.");
  // Exactly at the limit is not truncated.
  fs_.AddFile("/p/edge.md", std::string(50'000, 'y'));
  EXPECT_EQ(Call("fs.read", {{"path", "@project/edge.md"}})["truncated"], false);
}

TEST_F(ToolHostTest, ReadPreviewNeverSplitsACharacter) {
  std::string text(49'999, 'a');
  text += "中中";  // bytes 49999..50004
  fs_.AddFile("/p/cjk.md", text);
  OJson r = Call("fs.read", {{"path", "@project/cjk.md"}});
  EXPECT_EQ(r["contentPreview"].get<std::string>(), std::string(49'999, 'a'));
  fs_.AddFile("/p/bin.dat", std::string("ok\xff\xfe", 4));
  EXPECT_EQ(Call("fs.read", {{"path", "@project/bin.dat"}})["content"],
            "ok\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_F(ToolHostTest, ReadErrors) {
  OJson missing = Call("fs.read", {{"path", "@project/artifacts/sprint-status.yaml"}});
  EXPECT_EQ(missing,
            (OJson{{"ok", false},
                   {"error",
                    {{"code", "ENOENT"},
                     {"message", "File not found: @project/artifacts/sprint-status.yaml"}}}}));
  EXPECT_EQ(Message(Call("fs.read", {{"path", "@project/artifacts"}})),
            "@project/artifacts is a folder, not a file");
  EXPECT_EQ(Code(Call("fs.read", {{"path", "/etc/passwd"}})), "E_SANDBOX_VIOLATION");
  EXPECT_EQ(Message(Call("fs.read", OJson::object())),
            "argument path: expected string, got nothing (the argument is required)");
  EXPECT_EQ(Message(Call("fs.read", {{"path", 3}})), "argument path: expected string, got number");
  fs_.AddFifo("/p/pipe");
  EXPECT_EQ(Message(Call("fs.read", {{"path", "@project/pipe"}})),
            "@project/pipe is not a regular file");
  ToolHost small(sandbox_, clock_, Limits{.max_file_bytes = 10});
  OJson limit = small.Run("tc", "fs.read", OJson{{"path", "@project/artifacts/epics.md"}}).result;
  EXPECT_EQ(Code(limit), "E_READ_LIMIT");
  EXPECT_EQ(limit["error"]["details"], (OJson{{"bytes", 28}, {"maxFileBytes", 10}}));
}

TEST_F(ToolHostTest, ReadHashIsFreshAfterTheFileChanges) {
  Call("fs.read", {{"path", "@project/README.md"}});
  fs_.AddFile("/p/README.md", "changed\n");
  EXPECT_EQ(Call("fs.read", {{"path", "@project/README.md"}})["sha256"], Sha256Hex("changed\n"));
}

}  // namespace
}  // namespace llmconform::toolcalls
