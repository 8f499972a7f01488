// fs.list (fs_list.cpp) through ToolHost::Run.
#include <gtest/gtest.h>

#include "base/format.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

TEST_F(ToolHostTest, ListSortsMarksFoldersAndSkipsHidden) {
  EXPECT_EQ(Call("fs.list", {{"path", "@project"}}),
            (OJson{{"ok", true},
                   {"path", "@project"},
                   {"entries", {"README.md", "artifacts/"}},
                   {"truncated", false}}));
  EXPECT_EQ(Call("fs.list", {{"path", "@project/artifacts/"}})["entries"],
            (OJson{"create-story/", "epics.md"}));
  EXPECT_EQ(Message(Call("fs.list", {{"path", "@project/nope"}})),
            "Folder not found: @project/nope");
  EXPECT_EQ(Message(Call("fs.list", {{"path", "@project/README.md"}})),
            "@project/README.md is not a folder");
}

TEST_F(ToolHostTest, ListTruncatesOver200Entries) {
  for (int i = 0; i < 205; ++i) fs_.AddFile(Format("/p/many/f{}.md", 1000 + i), "x");
  OJson r = Call("fs.list", {{"path", "@project/many"}});
  EXPECT_EQ(r["truncated"], true);
  EXPECT_FALSE(r.contains("entries"));
  ASSERT_EQ(r["entriesPreview"].size(), 200u);
  EXPECT_EQ(r["entriesPreview"][0], "f1000.md");
  EXPECT_EQ(r["entriesPreview"][199], "f1199.md");
  EXPECT_EQ(
      r["hint"],
      "The folder holds 205 entries; entriesPreview shows the first 200 by name. List a subfolder "
      "or use fs.search.");
}

}  // namespace
}  // namespace llmconform::toolcalls
