#include "base/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

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

TEST_F(ReadFileTest, RefusesADeviceBeforeReadingIt) {
  // /dev/zero never ends: read, it would take all of memory.
  auto r = ReadFile("/dev/zero");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(r.error().message, "/dev/zero: cannot read: it is a device, not a file");
}

TEST_F(ReadFileTest, ReadsAFifoUpToTheLimit) {
  const auto fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer that never stops: the reader ends at the limit with an error.
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    const std::string chunk(1 << 16, 'z');
    while (out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()))) {
    }
  });
  auto r = ReadFile(fifo, 1 << 20);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("longer than 1048576 bytes"), std::string::npos);
  // Its reader gone, the writer's next write fails.
  writer.join();
}

}  // namespace
}  // namespace llmconform
