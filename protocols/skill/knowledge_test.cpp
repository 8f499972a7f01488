#include "protocols/skill/knowledge.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace llmconform::skill {
namespace {

namespace fs = std::filesystem;

class LocalKnowledgeSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/skill_knowledge_XXXXXX";
    root_ = ::mkdtemp(tmpl);
    project_ = root_ / "project";
    home_ = root_ / "home";
    fs::create_directories(project_ / ".kosmos-panel");
    fs::create_directories(home_ / ".config" / "kosmos-panel");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  fs::path ProjectFile() const { return project_ / ".kosmos-panel" / "ai_system_promt.md"; }
  fs::path HomeFile() const { return home_ / ".config" / "kosmos-panel" / "ai_system_promt.md"; }

  fs::path root_, project_, home_;
};

TEST_F(LocalKnowledgeSourceTest, ProjectFileFirst) {
  Write(ProjectFile(), "\n  project context \n");
  Write(HomeFile(), "home context");
  EXPECT_EQ(LocalKnowledgeSource(project_, home_).Read(), "project context");
}

TEST_F(LocalKnowledgeSourceTest, HomeFileSecond) {
  Write(HomeFile(), "home context\n");
  EXPECT_EQ(LocalKnowledgeSource(project_, home_).Read(), "home context");
}

TEST_F(LocalKnowledgeSourceTest, AnEmptyProjectFileStillWins) {
  Write(ProjectFile(), "");
  Write(HomeFile(), "home context");
  EXPECT_EQ(LocalKnowledgeSource(project_, home_).Read(), "");
}

TEST_F(LocalKnowledgeSourceTest, NoFileNoContext) {
  EXPECT_EQ(LocalKnowledgeSource(project_, home_).Read(), "");
  EXPECT_EQ(LocalKnowledgeSource(project_, "").Read(), "");
}

TEST_F(LocalKnowledgeSourceTest, AFifoInPlaceIsSkippedNotWaitedOn) {
  ASSERT_EQ(::mkfifo(ProjectFile().c_str(), 0600), 0);
  Write(HomeFile(), "home context");
  EXPECT_EQ(LocalKnowledgeSource(project_, home_).Read(), "home context");
}

TEST(FixedKnowledgeSource, ReturnsItsText) { EXPECT_EQ(FixedKnowledgeSource("ctx").Read(), "ctx"); }

}  // namespace
}  // namespace llmconform::skill
