#include "protocols/skill/skill_document.h"

#include <gtest/gtest.h>

namespace llmconform::skill {
namespace {

TEST(SkillBody, RemovesAnExactDashBlock) {
  EXPECT_EQ(SkillBody("---\nname: a\n---\n\n## Body\n"), "## Body");
  EXPECT_EQ(SkillBody("---\r\nname: a\r\n---\r\nBody\r\n"), "Body");
  EXPECT_EQ(SkillBody("---\n---\nBody"), "Body");
  EXPECT_EQ(SkillBody("---\nname: a\n---"), "");
}

TEST(SkillBody, WithoutFrontMatterTheWholeTextTrimmed) {
  EXPECT_EQ(SkillBody("\n## Body\n\n"), "## Body");
  EXPECT_EQ(SkillBody("---\nname: never closed\nBody"), "---\nname: never closed\nBody");
  EXPECT_EQ(SkillBody(" ---\nname: a\n---\nBody"), "---\nname: a\n---\nBody");
  EXPECT_EQ(SkillBody("----\nname: a\n----\nBody"), "----\nname: a\n----\nBody");
  // The closing line must be exactly "---".
  EXPECT_EQ(SkillBody("---\na: 1\n--- \nBody"), "---\na: 1\n--- \nBody");
  EXPECT_EQ(SkillBody(""), "");
}

TEST(SkillBody, ATableRuleInTheBodyStays) {
  EXPECT_EQ(SkillBody("---\nname: a\n---\nOne\n---\nTwo"), "One\n---\nTwo");
}

TEST(ParseSkillDocument, ReadsNameAndDescription) {
  auto doc = ParseSkillDocument("---\nname: git-quick-commit\ndescription: \"Коммит\"\n---\nBody",
                                "fallback");
  EXPECT_EQ(doc.name, "git-quick-commit");
  EXPECT_EQ(doc.description, "Коммит");
  EXPECT_EQ(doc.body, "Body");
  EXPECT_EQ(doc.front_matter_problem, "");
}

TEST(ParseSkillDocument, FallbacksAndProblems) {
  auto plain = ParseSkillDocument("Body", "fallback");
  EXPECT_EQ(plain.name, "fallback");
  EXPECT_EQ(plain.body, "Body");
  auto list = ParseSkillDocument("---\n- a\n- b\n---\nBody", "fb");
  EXPECT_EQ(list.name, "fb");
  EXPECT_EQ(list.body, "Body");
  EXPECT_EQ(list.front_matter_problem, "front matter: expected a YAML mapping");
  auto broken = ParseSkillDocument("---\nname: [unclosed\n---\nBody", "fb");
  EXPECT_EQ(broken.body, "Body");
  EXPECT_TRUE(broken.front_matter_problem.starts_with("front matter: yaml-cpp: "))
      << broken.front_matter_problem;
  auto nested = ParseSkillDocument("---\nname: {a: 1}\n---\n", "fb");
  EXPECT_EQ(nested.name, "fb");
}

}  // namespace
}  // namespace llmconform::skill
