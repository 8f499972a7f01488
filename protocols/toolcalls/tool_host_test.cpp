// ToolHost as a whole: dispatch, the tool policy, the audit log, limits
// parsing, and all tools on a real folder. Each tool's own tests are in
// fs_<tool>_test.cpp.
#include "protocols/toolcalls/tool_host.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/format.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/sha256.h"
#include "protocols/toolcalls/tool_host_test_support.h"

namespace llmconform::toolcalls {
namespace {

TEST_F(ToolHostTest, UnknownToolsAndArgumentsThatAreNotAnObjectAreRefused) {
  EXPECT_EQ(Message(Call("fs.delete", {{"path", "@project/a"}})),
            "unknown tool \"fs.delete\"; available: fs.read, fs.list, fs.search, fs.write, "
            "fs.apply_patch");
  EXPECT_EQ(Message(host_.Run("tc", "fs.read", std::string_view("{not json")).result),
            "arguments are not valid JSON");
  EXPECT_EQ(Message(host_.Run("tc", "fs.read", std::string_view("[1]")).result),
            "arguments must be a JSON object");
  EXPECT_EQ(Message(Call("fs.read", OJson::array({1}))), "arguments must be a JSON object");
  EXPECT_EQ(Code(Call("fs.delete", {{"path", "@project/a"}})), "E_SCHEMA_VALIDATION");
}

TEST_F(ToolHostTest, DisabledToolsAreRefused) {
  host_.SetEnabledTools({Tool::kRead});
  OJson r = Call("fs_write", {{"path", "@project/x.md"}, {"content", "x"}});
  EXPECT_EQ(Message(r), "tool fs.write is not enabled by the tool policy");
  EXPECT_FALSE(fs_.Exists("/p/x.md"));
  EXPECT_EQ(Call("fs.read", {{"path", "@project/README.md"}})["ok"], true);
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

TEST(LimitsFromJson, ReadsEachLimitOverTheDefaults) {
  auto defaults = LimitsFromJson(nullptr);
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ(defaults->max_read_bytes, 50'000u);
  EXPECT_EQ(defaults->context_lines, 1);
  auto l = LimitsFromJson(nlohmann::json{{"maxReadBytes", 10},
                                         {"maxWriteBytes", 20},
                                         {"maxListEntries", 3},
                                         {"maxMatches", 4},
                                         {"contextLines", 0},
                                         {"maxFileBytes", 1000},
                                         {"maxLineBytes", 80}});
  ASSERT_TRUE(l.has_value()) << l.error().message;
  EXPECT_EQ(l->max_read_bytes, 10u);
  EXPECT_EQ(l->max_write_bytes, 20u);
  EXPECT_EQ(l->max_list_entries, 3u);
  EXPECT_EQ(l->max_matches, 4u);
  EXPECT_EQ(l->context_lines, 0);
  EXPECT_EQ(l->max_file_bytes, 1000u);
  EXPECT_EQ(l->max_line_bytes, 80u);
  auto partial = LimitsFromJson(nlohmann::json{{"maxMatches", 7}});
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->max_matches, 7u);
  EXPECT_EQ(partial->max_read_bytes, 50'000u);
}

TEST(LimitsFromJson, RefusesWhatIsNotAPositiveInteger) {
  EXPECT_EQ(LimitsFromJson(nlohmann::json::array()).error().message,
            "/: expected object, got array");
  EXPECT_EQ(LimitsFromJson(nlohmann::json{{"maxReadBytes", 0}}).error().message,
            "/maxReadBytes: expected a positive integer, got 0");
  EXPECT_EQ(LimitsFromJson(nlohmann::json{{"maxMatches", "5"}}).error().message,
            "/maxMatches: expected a positive integer, got \"5\"");
  EXPECT_EQ(LimitsFromJson(nlohmann::json{{"contextLines", -1}}).error().message,
            "/contextLines: expected a positive integer, got -1");
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
