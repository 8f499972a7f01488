#include "protocols/toolcalls/mount_path.h"

#include <gtest/gtest.h>

namespace llmconform::toolcalls {
namespace {

TEST(ParseMountPath, AcceptsTheThreeMounts) {
  auto p = ParseMountPath("@project/artifacts/create-story/target.md");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->mount, Mount::kProject);
  EXPECT_EQ(p->segments, (std::vector<std::string>{"artifacts", "create-story", "target.md"}));
  EXPECT_EQ(p->Display(), "@project/artifacts/create-story/target.md");
  EXPECT_EQ(ParseMountPath("@pkg/workflow.graph.json")->mount, Mount::kPkg);
  EXPECT_EQ(ParseMountPath("@state/workflow.md")->mount, Mount::kState);
}

TEST(ParseMountPath, NormalisesEmptyAndDotSegments) {
  EXPECT_EQ(ParseMountPath("@project//a/./b/")->Display(), "@project/a/b");
  EXPECT_EQ(ParseMountPath("@project")->Display(), "@project");
  EXPECT_EQ(ParseMountPath("@project/")->segments.size(), 0u);
  // Names that merely contain dots are names.
  EXPECT_EQ(ParseMountPath("@project/.../..a/a..")->segments,
            (std::vector<std::string>{"...", "..a", "a.."}));
}

TEST(ParseMountPath, RefusesWithTheReason) {
  EXPECT_EQ(ParseMountPath("@project/../x").error(),
            "path must not contain a '..' segment: @project/../x");
  EXPECT_EQ(ParseMountPath("@project/a/..").error(),
            "path must not contain a '..' segment: @project/a/..");
  EXPECT_EQ(
      ParseMountPath("/etc/passwd").error(),
      "path must be a mount path (@project/, @pkg/ or @state/), not an absolute path: /etc/passwd");
  EXPECT_EQ(ParseMountPath("@projectx/a").error(),
            "path must start with @project/, @pkg/ or @state/: @projectx/a");
  EXPECT_EQ(ParseMountPath("artifacts/a.md").error(),
            "path must start with @project/, @pkg/ or @state/: artifacts/a.md");
  EXPECT_EQ(ParseMountPath("@project\\..\\x").error(),
            "path must not contain a backslash: @project\\..\\x");
  EXPECT_EQ(ParseMountPath(std::string_view("@project/a\0b", 12)).error(),
            "path must not contain a NUL byte: @project/a\\x00b");
  EXPECT_EQ(ParseMountPath("").error(), "path is empty: ");
  EXPECT_EQ(ParseMountPath("@project/" + std::string(256, 'a')).error().substr(0, 41),
            "path segment is longer than 255 bytes: @p");
  EXPECT_TRUE(ParseMountPath("@project/" + std::string(255, 'a')));
  EXPECT_EQ(ParseMountPath("@project/" + std::string(5000, 'a')).error().substr(0, 34),
            "path is longer than 4096 bytes: @p");
  EXPECT_FALSE(ParseMountPath("C:/Windows"));
  EXPECT_FALSE(ParseMountPath("~/.ssh/id_rsa"));
  EXPECT_FALSE(ParseMountPath("@Project/a"));
}

}  // namespace
}  // namespace llmconform::toolcalls
