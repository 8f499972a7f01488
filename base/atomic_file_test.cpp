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

}  // namespace
}  // namespace llmconform
