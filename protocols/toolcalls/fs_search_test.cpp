// fs.search (fs_search.cpp) through ToolHost::Run.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "protocols/toolcalls/memory_filesystem.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

using namespace std::chrono_literals;

TEST_F(ToolHostTest, SearchFindsSubstringsWithContext) {
  OJson r = Call("fs.search", {{"query", "line two"}});
  EXPECT_EQ(
      r, (OJson{{"ok", true},
                {"matches",
                 {{{"path", "@project/artifacts/epics.md"},
                   {"line", 2},
                   {"column", 1},
                   {"text", "line two"},
                   {"before", {"# Epics"}},
                   {"after", {"line three"}}}}},
                {"truncated", false},
                {"stats", {{"filesScanned", 3}, {"matchesFound", 1}}}}));  // hidden files are read
}

TEST_F(ToolHostTest, SearchRegexIgnoresCaseWithTheFlag) {
  fs_.AddFile("/p/notes.md", "Alpha\nbeta ALPHA\n");
  OJson r =
      Call("fs.search",
           {{"query", "/alp+ha/i"}, {"path", "@project/notes.md"}, {"before", 0}, {"after", 0}});
  ASSERT_EQ(r["matches"].size(), 2u);
  EXPECT_EQ(r["matches"][1]["column"], 6);
  EXPECT_EQ(r["matches"][1]["before"], OJson::array());
  EXPECT_EQ(
      Call("fs.search", {{"query", "/alp+ha/"}, {"path", "@project/notes.md"}})["matches"].size(),
      0u);
  EXPECT_EQ(Code(Call("fs.search", {{"query", "/(/"}})), "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Message(Call("fs.search", {{"query", ""}})), "argument query: must not be empty");
}

TEST_F(ToolHostTest, SearchRunsAPathologicalPatternOnAMebibyteLine) {
  // std::regex recursed once per character here and overflowed the stack.
  std::string line(1 << 20, 'a');
  line += "c\n";
  fs_.AddFile("/p/min.js", "ab\n" + line);
  OJson r = Call("fs.search", {{"query", "/(a|b)*c/"}, {"path", "@project/min.js"}});
  ASSERT_TRUE(r.contains("matches")) << r.dump();
  EXPECT_EQ(r["matches"].size(), 0u);  // the match lies past the matched head of the line
  fs_.AddFile("/p/short.js", std::string(70000, 'a') + "c\n");
  r = Call("fs.search", {{"query", "/(a|b)*c/"}, {"path", "@project/short.js"}});
  ASSERT_EQ(r["matches"].size(), 0u) << "the 64 KiB head holds no c";
  fs_.AddFile("/p/hit.js", std::string(60000, 'b') + "c\n");
  r = Call("fs.search", {{"query", "/(a|b)*c/"}, {"path", "@project/hit.js"}});
  ASSERT_EQ(r["matches"].size(), 1u);
  EXPECT_EQ(r["matches"][0]["column"], 1);
}

TEST_F(ToolHostTest, SearchRefusesConstructsRe2CannotRunNamingThem) {
  EXPECT_EQ(Code(Call("fs.search", {{"query", "/a(?=b)/"}})), "E_SCHEMA_VALIDATION");
  EXPECT_NE(Message(Call("fs.search", {{"query", "/a(?=b)/"}})).find("lookahead"),
            std::string::npos);
  EXPECT_NE(Message(Call("fs.search", {{"query", "/a(?<!b)/"}})).find("lookbehind"),
            std::string::npos);
  EXPECT_NE(Message(Call("fs.search", {{"query", "/(a)\\1/"}})).find("backreference \\1"),
            std::string::npos);
}

RC_GTEST_PROP(ToolHostProperties, RandomPatternsOnLongLinesNeverCrash, ()) {
  const auto alphabet = std::string("ab()|*+?[]{}^$.\\/-,0123456789=!<:dws");
  const auto pattern = *rc::gen::container<std::string>(rc::gen::elementOf(alphabet));
  const auto unit = *rc::gen::nonEmpty(
      rc::gen::container<std::string>(rc::gen::elementOf(std::string("abc( \xff"))));
  const auto repeat = *rc::gen::inRange<std::size_t>(1, 200000 / unit.size() + 2);
  std::string line;
  for (std::size_t i = 0; i < repeat; ++i) line += unit;
  MemoryFilesystem fs;
  fs.AddFile("/p/f.txt", line + "\n");
  fs.AddDir("/k");
  fs.AddDir("/s");
  Sandbox sandbox{fs, {"/p", "/k", "/s"}};
  FakeClock clock{std::chrono::system_clock::time_point{1766620800000ms}, 2ms};
  ToolHost host{sandbox, clock};
  const OJson r =
      host.Run("tc", "fs.search", {{"query", "/" + pattern + "/"}, {"path", "@project/f.txt"}})
          .result;
  RC_ASSERT(r.is_object());
  if (r.contains("error")) {
    RC_ASSERT(r["error"]["code"] == "E_SCHEMA_VALIDATION");
  } else {
    RC_ASSERT(r["matches"].size() <= 1u);
  }
}

TEST_F(ToolHostTest, SearchSkipsHiddenFoldersVendorAndBinaryFiles) {
  fs_.AddFile("/p/.git/config", "needle\n");
  fs_.AddFile("/p/node_modules/x/index.js", "needle\n");
  fs_.AddFile("/p/img.png", std::string("needle\0\x01", 8));
  fs_.AddFile("/p/src/a.txt", "needle\n");
  fs_.AddSymlink("/p/src/link.txt", "a.txt");
  OJson r = Call("fs.search", {{"query", "needle"}});
  ASSERT_EQ(r["matches"].size(), 1u);
  EXPECT_EQ(r["matches"][0]["path"], "@project/src/a.txt");
}

TEST_F(ToolHostTest, SearchTruncatesAtMaxMatchesAndCountsAll) {
  std::string text;
  for (int i = 0; i < 70; ++i) text += "hit\n";
  fs_.AddFile("/p/hits.md", text);
  OJson r = Call("fs.search", {{"query", "hit"}, {"path", "@project/hits.md"}});
  EXPECT_EQ(r["matches"].size(), 50u);
  EXPECT_EQ(r["truncated"], true);
  EXPECT_EQ(r["stats"]["matchesFound"], 70);
  EXPECT_EQ(Call("fs.search",
                 {{"query", "hit"}, {"path", "@project/hits.md"}, {"maxMatches", 3}})["matches"]
                .size(),
            3u);
}

}  // namespace
}  // namespace llmconform::toolcalls
