#include "base/file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace llmconform {
namespace {

namespace fs = std::filesystem;

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "llmconform-file-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ReadFileTest, ReadsEveryByte) {
  std::string bytes(200000, 'x');
  bytes[7] = '\0';
  bytes.back() = '\xFF';
  std::ofstream(dir_ / "f", std::ios::binary) << bytes;
  auto r = ReadFile(dir_ / "f");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, bytes);
}

TEST_F(ReadFileTest, SaysWhichFileAndWhyWithAKind) {
  auto missing = ReadFile(dir_ / "nope.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(missing.error().message, (dir_ / "nope.json").string() + ": cannot read: no such file");

  auto folder = ReadFile(dir_);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(folder.error().message.find("it is a folder"), std::string::npos);
}

TEST_F(ReadFileTest, RefusesAFileLongerThanTheLimit) {
  std::ofstream(dir_ / "big", std::ios::binary) << std::string(100001, 'a');
  auto r = ReadFile(dir_ / "big", 100000);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("longer than 100000 bytes"), std::string::npos);
  EXPECT_TRUE(ReadFile(dir_ / "big", 100001));
}

}  // namespace
}  // namespace llmconform
