#include "base/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
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

TEST_F(ReadFileTest, RefusesAFifoWithoutOpeningIt) {
  // A FIFO blocks its reader's open(2) until a writer comes, and its reads
  // until the writer goes: one named by mistake would hang the program.
  const auto fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for a reader
    if (fd >= 0) {
      (void)!::write(fd, "abc", 3);
      ::close(fd);
    }
  });
  auto r = ReadFile(fifo);
  // Releases the writer when ReadFile did not open the FIFO.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (reader >= 0) ::close(reader);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(r.error().message,
            fifo.string() + ": cannot read: it is a FIFO (a named pipe), not a regular file");
  // Through a symlink as well.
  fs::create_symlink(fifo, dir_ / "link");
  auto via_link = ReadFile(dir_ / "link");
  ASSERT_FALSE(via_link);
  EXPECT_NE(via_link.error().message.find("FIFO"), std::string::npos);
}

TEST_F(ReadFileTest, RefusesASocket) {
  const auto path = dir_ / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  auto r = ReadFile(path);
  ::close(fd);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("it is a socket"), std::string::npos);
}

TEST_F(ReadFileTest, RefusesASymlinkWhenAskedTo) {
  std::ofstream(dir_ / "f", std::ios::binary) << "text";
  fs::create_symlink(dir_ / "f", dir_ / "link");
  EXPECT_EQ(ReadFile(dir_ / "link").value_or(""), "text");
  auto r = ReadFile(dir_ / "link", kMaxFileBytes, Symlinks::kRefuse);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("it is a symlink"), std::string::npos);
  EXPECT_EQ(ReadFile(dir_ / "f", kMaxFileBytes, Symlinks::kRefuse).value_or(""), "text");
}

}  // namespace
}  // namespace llmconform
