// One suite of tests of the Filesystem contract (filesystem.h), run over both
// implementations: the real one (PosixFilesystem, in a scratch folder) and
// the one the ToolHost's tests use (MemoryFilesystem). What passes for one
// must pass for the other, so a test written against the fake holds for the
// real filesystem.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "protocols/toolcalls/filesystem.h"
#include "protocols/toolcalls/memory_filesystem.h"
#include "protocols/toolcalls/posix_filesystem.h"

namespace llmconform::toolcalls {
namespace {

// A filesystem with an empty folder `root`, and the two entries the
// interface cannot make: symlinks and fifos.
class PosixWorld {
 public:
  PosixWorld() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "llmconform-fs-contract-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~PosixWorld() {
    std::error_code ec;
    if (!root_.empty()) std::filesystem::remove_all(root_, ec);
  }
  Filesystem& Fs() { return fs_; }
  const std::string& Root() const { return root_; }
  bool AddSymlink(const std::string& name, const std::string& target) {
    return ::symlink(target.c_str(), (root_ + "/" + name).c_str()) == 0;
  }
  bool AddFifo(const std::string& name) {
    return ::mkfifo((root_ + "/" + name).c_str(), 0600) == 0;
  }

 private:
  PosixFilesystem fs_;
  std::string root_;
};

class MemoryWorld {
 public:
  MemoryWorld() { fs_.AddDir("/root"); }
  Filesystem& Fs() { return fs_; }
  std::string Root() const { return "/root"; }
  bool AddSymlink(const std::string& name, const std::string& target) {
    return fs_.AddSymlink("/root/" + name, target);
  }
  bool AddFifo(const std::string& name) { return fs_.AddFifo("/root/" + name); }

 private:
  MemoryFilesystem fs_;
};

template <typename World>
class FilesystemContract : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(world_.Root().empty());
    auto root = world_.Fs().OpenRoot(world_.Root());
    ASSERT_TRUE(root) << root.error().message;
    root_ = std::move(*root);
  }

  // The whole content of the file `name` of `dir`, read through the interface.
  std::string Content(Dir& dir, const std::string& name) {
    auto file = dir.OpenFile(name);
    EXPECT_TRUE(file) << name << ": " << file.error().message;
    if (!file) return "";
    std::string out;
    char buf[3];  // small, so a read takes several calls
    for (std::uint64_t at = 0;;) {
      auto n = (*file)->ReadAt(at, buf);
      EXPECT_TRUE(n) << n.error().message;
      if (!n || *n == 0) break;
      out.append(buf, *n);
      at += *n;
    }
    return out;
  }

  template <typename T>
  static FsErrorKind KindOf(const std::expected<T, FsError>& r) {
    EXPECT_FALSE(r.has_value());
    return r ? FsErrorKind::kIo : r.error().kind;
  }

  World world_;
  std::unique_ptr<Dir> root_;
};

using Worlds = ::testing::Types<PosixWorld, MemoryWorld>;

class WorldNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, PosixWorld> ? "Posix" : "Memory";
  }
};

TYPED_TEST_SUITE(FilesystemContract, Worlds, WorldNames);

TYPED_TEST(FilesystemContract, ReplaceFileCreatesAndReplacesWhatOpenFileReads) {
  Dir& root = *this->root_;
  ASSERT_TRUE(root.ReplaceFile("notes.md", "first version"));
  EXPECT_EQ(this->Content(root, "notes.md"), "first version");
  auto file = root.OpenFile("notes.md");
  ASSERT_TRUE(file);
  auto before = (*file)->Identity();
  ASSERT_TRUE(before);
  EXPECT_EQ(before->size, 13u);
  ASSERT_TRUE(root.ReplaceFile("notes.md", "v2"));
  EXPECT_EQ(this->Content(root, "notes.md"), "v2");
  auto after = root.OpenFile("notes.md");
  ASSERT_TRUE(after);
  auto identity = (*after)->Identity();
  ASSERT_TRUE(identity);
  EXPECT_EQ(identity->size, 2u);
  EXPECT_NE(identity->inode, before->inode) << "a replacement is a new file";
  char buf[8];
  auto past_end = (*after)->ReadAt(100, buf);
  ASSERT_TRUE(past_end);
  EXPECT_EQ(*past_end, 0u);
}

TYPED_TEST(FilesystemContract, AppendCreatesThenAppends) {
  Dir& root = *this->root_;
  ASSERT_TRUE(root.Append("audit.log", "one\n"));
  ASSERT_TRUE(root.Append("audit.log", "two\n"));
  EXPECT_EQ(this->Content(root, "audit.log"), "one\ntwo\n");
}

TYPED_TEST(FilesystemContract, FoldersAreMadeOnceOpenedAndListed) {
  Dir& root = *this->root_;
  ASSERT_TRUE(root.MakeDir("state"));
  EXPECT_EQ(this->KindOf(root.MakeDir("state")), FsErrorKind::kExists);
  ASSERT_TRUE(root.ReplaceFile("a.md", "a"));
  EXPECT_EQ(this->KindOf(root.MakeDir("a.md")), FsErrorKind::kExists);
  auto state = root.OpenDir("state");
  ASSERT_TRUE(state);
  ASSERT_TRUE((*state)->ReplaceFile("workflow.md", "w"));
  EXPECT_EQ(this->Content(**state, "workflow.md"), "w");
  auto listed = root.List();
  ASSERT_TRUE(listed);
  std::sort(listed->begin(), listed->end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  EXPECT_EQ(*listed,
            (std::vector<DirEntry>{{"a.md", EntryKind::kFile}, {"state", EntryKind::kDirectory}}));
  auto inner = (*state)->List();
  ASSERT_TRUE(inner);
  EXPECT_EQ(*inner, (std::vector<DirEntry>{{"workflow.md", EntryKind::kFile}}));
}

TYPED_TEST(FilesystemContract, AMissingEntryIsNotFound) {
  Dir& root = *this->root_;
  EXPECT_EQ(this->KindOf(root.Lstat("missing")), FsErrorKind::kNotFound);
  EXPECT_EQ(this->KindOf(root.OpenFile("missing")), FsErrorKind::kNotFound);
  EXPECT_EQ(this->KindOf(root.OpenDir("missing")), FsErrorKind::kNotFound);
  EXPECT_EQ(this->KindOf(root.ReadLink("missing")), FsErrorKind::kNotFound);
  EXPECT_EQ(this->KindOf(this->world_.Fs().OpenRoot(this->world_.Root() + "/missing")),
            FsErrorKind::kNotFound);
}

TYPED_TEST(FilesystemContract, AFileIsNoFolderAndAFolderNoFile) {
  Dir& root = *this->root_;
  ASSERT_TRUE(root.MakeDir("folder"));
  ASSERT_TRUE(root.ReplaceFile("file.md", "x"));
  EXPECT_EQ(*root.Lstat("folder"), EntryKind::kDirectory);
  EXPECT_EQ(*root.Lstat("file.md"), EntryKind::kFile);
  EXPECT_EQ(this->KindOf(root.OpenFile("folder")), FsErrorKind::kIsDirectory);
  EXPECT_EQ(this->KindOf(root.OpenDir("file.md")), FsErrorKind::kNotDirectory);
  EXPECT_EQ(this->KindOf(root.ReplaceFile("folder", "x")), FsErrorKind::kIsDirectory);
  EXPECT_EQ(this->KindOf(root.Append("folder", "x")), FsErrorKind::kIsDirectory);
}

TYPED_TEST(FilesystemContract, ASymlinkIsReportedNeverFollowed) {
  Dir& root = *this->root_;
  ASSERT_TRUE(root.MakeDir("real"));
  ASSERT_TRUE(root.ReplaceFile("target.md", "target"));
  ASSERT_TRUE(this->world_.AddSymlink("to-file", "target.md"));
  ASSERT_TRUE(this->world_.AddSymlink("to-folder", "real"));
  EXPECT_EQ(*root.Lstat("to-file"), EntryKind::kSymlink);
  auto target = root.ReadLink("to-file");
  ASSERT_TRUE(target);
  EXPECT_EQ(*target, "target.md");
  EXPECT_EQ(this->KindOf(root.ReadLink("target.md")), FsErrorKind::kNotRegular)
      << "only a symlink has a target";
  EXPECT_EQ(this->KindOf(root.OpenFile("to-file")), FsErrorKind::kIsSymlink);
  EXPECT_EQ(this->KindOf(root.OpenDir("to-folder")), FsErrorKind::kIsSymlink);
  EXPECT_EQ(this->KindOf(root.Append("to-file", "x")), FsErrorKind::kIsSymlink);
  EXPECT_EQ(this->Content(root, "target.md"), "target");
  // ReplaceFile replaces the symlink itself; its target is untouched.
  ASSERT_TRUE(root.ReplaceFile("to-file", "new"));
  EXPECT_EQ(*root.Lstat("to-file"), EntryKind::kFile);
  EXPECT_EQ(this->Content(root, "to-file"), "new");
  EXPECT_EQ(this->Content(root, "target.md"), "target");
}

TYPED_TEST(FilesystemContract, AFifoIsNeitherOpenedNorWritten) {
  Dir& root = *this->root_;
  ASSERT_TRUE(this->world_.AddFifo("pipe"));
  EXPECT_EQ(*root.Lstat("pipe"), EntryKind::kOther);
  EXPECT_EQ(this->KindOf(root.OpenFile("pipe")), FsErrorKind::kNotRegular);
  EXPECT_EQ(this->KindOf(root.ReplaceFile("pipe", "x")), FsErrorKind::kNotRegular);
  EXPECT_EQ(this->KindOf(root.Append("pipe", "x")), FsErrorKind::kNotRegular);
  EXPECT_EQ(*root.Lstat("pipe"), EntryKind::kOther) << "the fifo is still there";
}

TYPED_TEST(FilesystemContract, TheCanonicalRootIsAbsolute) {
  auto canonical = this->world_.Fs().CanonicalPath(this->world_.Root());
  ASSERT_TRUE(canonical) << canonical.error().message;
  EXPECT_TRUE(canonical->starts_with("/")) << *canonical;
  EXPECT_EQ(this->KindOf(this->world_.Fs().CanonicalPath(this->world_.Root() + "/missing")),
            FsErrorKind::kNotFound);
}

}  // namespace
}  // namespace llmconform::toolcalls
