#include "protocols/toolcalls/tool_host.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/format.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/memory_filesystem.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/sha256.h"

namespace llmconform::toolcalls {
namespace {

using namespace std::chrono_literals;

constexpr const char* kGraph =
    R"({"entryNodeId":"step-01","nodes":[{"id":"step-01"},{"id":"step-02"},
  {"id":"side"},{"id":"end-99","type":"end"}],"edges":[{"from":"step-01","to":"step-02"},
  {"from":"step-01","to":"side"},{"from":"step-02","to":"end-99"}]})";

constexpr const char* kState =
    "---\nschemaVersion: \"1.1\"\ncurrentNodeId: \"step-01\"\nstepsCompleted: []\nvariables: {}\n"
    "decisionLog: []\nartifacts: []\n---\n# Workflow\n";

class ToolHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.AddFile("/p/artifacts/epics.md", "# Epics\nline two\nline three\n");
    fs_.AddFile("/p/README.md", "hello\n");
    fs_.AddFile("/p/.hidden", "secret hello\n");
    fs_.AddDir("/p/artifacts/create-story");
    fs_.AddFile("/k/workflow.graph.json", kGraph);
    fs_.AddFile("/k/steps/step-01.md", "step one\n");
    fs_.AddFile("/s/workflow.md", kState);
  }
  OJson Call(std::string_view tool, const OJson& args) {
    return host_.Run("tc", tool, args).result;
  }
  static std::string Code(const OJson& r) { return r.at("error").at("code").get<std::string>(); }
  static std::string Message(const OJson& r) {
    return r.at("error").at("message").get<std::string>();
  }

  MemoryFilesystem fs_;
  Sandbox sandbox_{fs_, {"/p", "/k", "/s"}};
  FakeClock clock_{std::chrono::system_clock::time_point{1766620800000ms}, 2ms};
  ToolHost host_{sandbox_, clock_};
};

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
  EXPECT_EQ(Message(Call("fs.delete", {{"path", "@project/a"}})),
            "unknown tool \"fs.delete\"; available: fs.read, fs.list, fs.search, fs.write, "
            "fs.apply_patch");
  EXPECT_EQ(Message(host_.Run("tc", "fs.read", std::string_view("{not json")).result),
            "arguments are not valid JSON");
  EXPECT_EQ(Message(host_.Run("tc", "fs.read", std::string_view("[1]")).result),
            "arguments must be a JSON object");
  fs_.AddFifo("/p/pipe");
  EXPECT_EQ(Message(Call("fs.read", {{"path", "@project/pipe"}})),
            "@project/pipe is not a regular file");
  ToolHost small(sandbox_, clock_, Limits{.max_file_bytes = 10});
  OJson limit = small.Run("tc", "fs.read", OJson{{"path", "@project/artifacts/epics.md"}}).result;
  EXPECT_EQ(Code(limit), "E_READ_LIMIT");
  EXPECT_EQ(limit["error"]["details"], (OJson{{"bytes", 28}, {"maxFileBytes", 10}}));
}

TEST_F(ToolHostTest, DisabledToolsAreRefused) {
  host_.SetEnabledTools({Tool::kRead});
  OJson r = Call("fs_write", {{"path", "@project/x.md"}, {"content", "x"}});
  EXPECT_EQ(Message(r), "tool fs.write is not enabled by the tool policy");
  EXPECT_FALSE(fs_.Exists("/p/x.md"));
  EXPECT_EQ(Call("fs.read", {{"path", "@project/README.md"}})["ok"], true);
}

TEST_F(ToolHostTest, ReadHashIsFreshAfterTheFileChanges) {
  Call("fs.read", {{"path", "@project/README.md"}});
  fs_.AddFile("/p/README.md", "changed\n");
  EXPECT_EQ(Call("fs.read", {{"path", "@project/README.md"}})["sha256"], Sha256Hex("changed\n"));
}

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

TEST_F(ToolHostTest, AuditLogHasOneLinePerCall) {
  Call("fs.read", {{"path", "@project/README.md"}});
  host_.Run("tc-2", "fs_write",
            OJson{{"path", "@project/big.md"}, {"content", std::string(2000, 'z')}});
  Call("fs.read", {{"path", "@project/nope"}});
  const std::string log = *fs_.ReadFile("/s/logs/execution.jsonl");
  std::vector<OJson> lines;
  std::size_t pos = 0;
  while (pos < log.size()) {
    const std::size_t nl = log.find('\n', pos);
    lines.push_back(OJson::parse(log.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (OJson{{"time", "2025-12-25T00:00:00.004Z"},
                             {"toolCallId", "tc"},
                             {"tool", "fs.read"},
                             {"args", {{"path", "@project/README.md"}}},
                             {"ok", true},
                             {"errorCode", nullptr},
                             {"durationMs", 2.0},
                             {"sha256Before", Sha256Hex("hello\n")},
                             {"sha256After", Sha256Hex("hello\n")}}));
  EXPECT_EQ(lines[1]["args"]["content"],
            (OJson{{"elidedBytes", 2000}, {"sha256", Sha256Hex(std::string(2000, 'z'))}}));
  EXPECT_EQ(lines[1]["sha256Before"], nullptr);
  EXPECT_EQ(lines[1]["sha256After"], Sha256Hex(std::string(2000, 'z')));
  EXPECT_EQ(lines[2]["errorCode"], "ENOENT");
  EXPECT_EQ(host_.audit_error(), "");
}

TEST(ToolHostPosix, WorksOnARealFolder) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / Format("toolhost-{}", static_cast<long>(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "p" / "docs");
  fs::create_directories(root / "k");
  fs::create_directories(root / "s");
  std::ofstream(root / "p" / "docs" / "a.md") << "alpha\nbeta\n";
  PosixFilesystem pfs;
  Sandbox sandbox(pfs, {(root / "p").string(), (root / "k").string(), (root / "s").string()});
  SystemClock clock;
  ToolHost host(sandbox, clock);
  EXPECT_EQ(host.Run("1", "fs.read", OJson{{"path", "@project/docs/a.md"}}).result["content"],
            "alpha\nbeta\n");
  EXPECT_EQ(host.Run("2", "fs.write", OJson{{"path", "@project/out/b.md"}, {"content", "B"}})
                .result["ok"],
            true);
  EXPECT_EQ(host.Run("3", "fs.list", OJson{{"path", "@project"}}).result["entries"],
            (OJson{"docs/", "out/"}));
  EXPECT_EQ(host.Run("4", "fs.search", OJson{{"query", "beta"}}).result["matches"][0]["line"], 2);
  std::ifstream b(root / "p" / "out" / "b.md");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(b), {}), "B");
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(root / "p" / "out"), fs::directory_iterator{}), 1);
  EXPECT_TRUE(fs::exists(root / "s" / "logs" / "execution.jsonl"));
  EXPECT_EQ(host.audit_error(), "");
  fs::remove_all(root);
}

}  // namespace
}  // namespace llmconform::toolcalls
