#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace llmconform {
namespace {

namespace fs = std::filesystem;

std::string Contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteFileAtomically, CreatesFoldersAndReplacesContent) {
  const fs::path dir =
      fs::temp_directory_path() / ("llmconform-atomic-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path file = dir / "a" / "b" / "report.json";
  ASSERT_TRUE(WriteFileAtomically(file, "one"));
  ASSERT_TRUE(WriteFileAtomically(file, "two"));
  EXPECT_EQ(Contents(file), "two");
  // No temporary file is left beside it.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u);
  fs::remove_all(dir);
}

TEST(WriteFileAtomically, ReportsWhereAndWhy) {
  auto r = WriteFileAtomically("/proc/llmconform-cannot/x.json", "x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.rfind("/proc/llmconform-cannot/x.json: cannot write: ", 0), 0u)
      << r.error().message;
}

TEST(AtomicFile, WritesInPiecesAndLeavesNothingWhenNotCommitted) {
  const fs::path dir =
      fs::temp_directory_path() / ("llmconform-atomic-pieces-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path file = dir / "t.jsonl";
  ASSERT_TRUE(WriteFileAtomically(file, "old"));
  {
    auto f = AtomicFile::Create(file);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->Write("abandoned"));
    EXPECT_EQ(Contents(file), "old");  // nothing shows before Commit
  }
  EXPECT_EQ(Contents(file), "old");
  {
    auto f = AtomicFile::Create(file);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->Write("one,"));
    ASSERT_TRUE(f->Write(""));
    ASSERT_TRUE(f->Write("two"));
    AtomicFile moved = std::move(*f);
    ASSERT_TRUE(moved.Commit());
    auto again = moved.Commit();
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().message.find("committing a closed file"), std::string::npos);
  }
  EXPECT_EQ(Contents(file), "one,two");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary file left, committed or not
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llmconform
