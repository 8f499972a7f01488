#include "protocols/toolcalls/sandbox.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "protocols/toolcalls/memory_filesystem.h"

namespace llmconform::toolcalls {
namespace {

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.AddFile("/host/project/docs/a.md", "A");
    fs_.AddFile("/host/outside/secret.txt", "S");
    fs_.AddSymlink("/host/project/inside-rel", "docs/a.md");
    fs_.AddSymlink("/host/project/docs/up", "../docs");
    fs_.AddSymlink("/host/project/inside-abs", "/host/project/docs/a.md");
    fs_.AddSymlink("/host/project/out-rel", "../outside/secret.txt");
    fs_.AddSymlink("/host/project/out-abs", "/host/outside");
    fs_.AddSymlink("/host/project/prefix", "/host/projectx/a");
    fs_.AddFile("/host/projectx/a", "X");
    fs_.AddSymlink("/host/project/loop", "loop");
    fs_.AddDir("/host/state");
  }
  MountPath P(std::string_view text) { return *ParseMountPath(text); }

  MemoryFilesystem fs_;
  Sandbox sandbox_{fs_, {"/host/project", "", "/host/state"}};
};

TEST_F(SandboxTest, FollowsSymlinksThatStayInside) {
  MountPath physical;
  ASSERT_TRUE(sandbox_.OpenFile(P("@project/inside-rel"), &physical));
  EXPECT_EQ(physical.Display(), "@project/docs/a.md");
  ASSERT_TRUE(sandbox_.OpenFile(P("@project/inside-abs"), &physical));
  EXPECT_EQ(physical.Display(), "@project/docs/a.md");
  ASSERT_TRUE(sandbox_.OpenFile(P("@project/docs/up/up/a.md"), &physical));
  EXPECT_EQ(physical.Display(), "@project/docs/a.md");
}

TEST_F(SandboxTest, RefusesSymlinksThatLeave) {
  auto rel = sandbox_.OpenFile(P("@project/out-rel"));
  ASSERT_FALSE(rel);
  EXPECT_EQ(rel.error().kind, SandboxErrorKind::kViolation);
  EXPECT_EQ(rel.error().message,
            "@project/out-rel leads outside @project through the symlink @project/out-rel");
  auto abs = sandbox_.OpenFile(P("@project/out-abs/secret.txt"));
  ASSERT_FALSE(abs);
  EXPECT_EQ(
      abs.error().message,
      "@project/out-abs/secret.txt leads outside @project through the symlink @project/out-abs");
  // A root path that merely shares a prefix is outside too.
  EXPECT_EQ(sandbox_.OpenFile(P("@project/prefix")).error().kind, SandboxErrorKind::kViolation);
  EXPECT_EQ(sandbox_.OpenFile(P("@project/loop")).error().message,
            "@project/loop: more than 40 symlinks");
  EXPECT_EQ(sandbox_.OpenFile(P("@pkg/x")).error().message, "mount @pkg is not available");
  EXPECT_EQ(sandbox_.OpenFile(P("@pkg/x")).error().kind, SandboxErrorKind::kUnmounted);
}

TEST_F(SandboxTest, ReportsMissingEntries) {
  EXPECT_EQ(sandbox_.OpenFile(P("@project/nope.md")).error().message,
            "File not found: @project/nope.md");
  EXPECT_EQ(sandbox_.OpenFile(P("@project/no/such/file.md")).error().message,
            "File not found: @project/no/such/file.md");
  EXPECT_EQ(sandbox_.OpenFile(P("@project/docs")).error().kind, SandboxErrorKind::kIsDirectory);
  EXPECT_EQ(sandbox_.OpenDir(P("@project/docs/a.md")).error().kind,
            SandboxErrorKind::kNotDirectory);
  auto r = sandbox_.Resolve(P("@project/new/dir/file.md"), true);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->kind.has_value());
  EXPECT_TRUE(fs_.Exists("/host/project/new/dir"));
}

TEST_F(SandboxTest, AFolderSwappedForASymlinkBetweenCheckAndUseIsCaught) {
  // Resolve sees a real folder; just before the file is opened, the folder is
  // replaced by a symlink to the outside. The open refuses the symlink and
  // the second resolution refuses the escape.
  int opens = 0;
  fs_.SetHook([&](std::string_view op, const std::string& name) -> std::optional<FsError> {
    if (op == "OpenFile" && name == "a.md" && opens++ == 0) {
      fs_.Remove("/host/project/docs");
      fs_.AddSymlink("/host/project/docs", "/host/outside");
      fs_.AddFile("/host/outside/a.md", "OUTSIDE");
    }
    return std::nullopt;
  });
  auto file = sandbox_.OpenFile(P("@project/docs/a.md"));
  // The already-open folder still holds the original file (as an fd would);
  // any later resolution sees the symlink and refuses it.
  if (file) {
    char buf[8];
    auto n = (*file)->ReadAt(0, buf);
    ASSERT_TRUE(n);
    EXPECT_EQ(std::string(buf, *n), "A");
  }
  auto again = sandbox_.OpenFile(P("@project/docs/a.md"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, SandboxErrorKind::kViolation);
}

TEST_F(SandboxTest, AFileSwappedForASymlinkIsResolvedAgain) {
  int opens = 0;
  fs_.SetHook([&](std::string_view op, const std::string& name) -> std::optional<FsError> {
    if (op == "OpenFile" && name == "a.md" && opens++ == 0) {
      fs_.Remove("/host/project/docs/a.md");
      fs_.AddSymlink("/host/project/docs/a.md", "../../outside/secret.txt");
    }
    return std::nullopt;
  });
  auto file = sandbox_.OpenFile(P("@project/docs/a.md"));
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().kind, SandboxErrorKind::kViolation);
}

}  // namespace
}  // namespace llmconform::toolcalls

namespace llmconform::toolcalls {
namespace {

// Random trees of folders, files and symlinks with hostile targets: whatever
// a path resolves to, it is inside the mount, and a file opened through the
// sandbox is the file at its physical mount path.
RC_GTEST_PROP(SandboxProperties, NothingResolvesOutsideTheMount, ()) {
  MemoryFilesystem fs;
  fs.AddFile("/outside/f", "OUTSIDE");
  fs.AddFile("/m2/f", "OUTSIDE");
  fs.AddDir("/m");
  const std::vector<std::string> names = {"a", "b", "f"};
  const std::vector<std::string> targets = {
      "a",     "b/f", "../f",    "..",       "../..", "/outside/f", "/m/a", "/m/../outside/f",
      "/m2/f", "/",   "b/../..", "a/b/../f", ".",     "/m"};
  const int entries = *rc::gen::inRange(5, 40);
  for (int i = 0; i < entries; ++i) {
    std::string path = "/m";
    const int depth = *rc::gen::inRange(1, 3);
    for (int d = 0; d < depth; ++d) path += "/" + *rc::gen::elementOf(names);
    if (fs.Exists(path)) continue;
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        fs.AddDir(path);
        break;
      case 1:
        fs.AddFile(path, "inside:" + path);
        break;
      default:
        fs.AddSymlink(path, *rc::gen::elementOf(targets));
        break;
    }
  }
  Sandbox sandbox(fs, {"/m", "", ""});
  std::string text = "@project";
  const int depth = *rc::gen::inRange(1, 4);
  for (int d = 0; d < depth; ++d) text += "/" + *rc::gen::elementOf(names);
  MountPath physical;
  auto file = sandbox.OpenFile(*ParseMountPath(text), &physical);
  RC_CLASSIFY(file.has_value(), "opened");
  RC_CLASSIFY(!file && file.error().kind == SandboxErrorKind::kViolation, "refused");
  if (!file) return;
  char buf[256];
  auto n = (*file)->ReadAt(0, buf);
  RC_ASSERT(n.has_value());
  const std::string content(buf, *n);
  RC_ASSERT(content != "OUTSIDE");
  std::string host = "/m";
  for (const auto& s : physical.segments) host += "/" + s;
  RC_ASSERT(fs.ReadFile(host) == std::optional<std::string>(content));
}

}  // namespace
}  // namespace llmconform::toolcalls
