#include "harness/spec_hash.h"

#include <gtest/gtest.h>

#include <fstream>

#include "harness/scratch_dir.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST(SpecSetHash, CoversSpecFilesAndTheTracesScenariosName) {
  ScratchDir a, b;
  for (const ScratchDir* d : {&a, &b}) {
    Write(d->path() / "specs/p/rules.json", "[]");
    Write(d->path() / "specs/p/s.json", "{}");
    Write(d->path() / "fixtures/t.trace.jsonl", "trace");
    Write(d->path() / "fixtures/unused.trace.jsonl", "x");
  }
  SpecSet set;
  set.scenarios.push_back(
      Scenario{.protocol = "p", .name = "s", .trace = "fixtures/t.trace.jsonl"});
  auto ha = SpecSetHash(a.path() / "specs", set, a.path());
  auto hb = SpecSetHash(b.path() / "specs", set, b.path());
  ASSERT_TRUE(ha) << ha.error().message;
  ASSERT_TRUE(hb);
  EXPECT_EQ(*ha, *hb);  // the same content in another place
  EXPECT_EQ(ha->rfind("sha256:", 0), 0u);
  EXPECT_EQ(ha->size(), 7u + 64u);

  Write(b.path() / "fixtures/unused.trace.jsonl", "y");  // not named by a scenario
  EXPECT_EQ(*SpecSetHash(b.path() / "specs", set, b.path()), *ha);
  Write(b.path() / "fixtures/t.trace.jsonl", "trace2");
  EXPECT_NE(*SpecSetHash(b.path() / "specs", set, b.path()), *ha);
  Write(b.path() / "fixtures/t.trace.jsonl", "trace");
  Write(b.path() / "specs/p/notes.md", "new file");
  EXPECT_NE(*SpecSetHash(b.path() / "specs", set, b.path()), *ha);
}

TEST(SpecSetHash, AMissingTraceDiffersFromAnyContent) {
  ScratchDir d;
  Write(d.path() / "specs/p/rules.json", "[]");
  SpecSet set;
  set.scenarios.push_back(Scenario{.protocol = "p", .name = "s", .trace = "fixtures/t.jsonl"});
  auto missing = SpecSetHash(d.path() / "specs", set, d.path());
  ASSERT_TRUE(missing) << missing.error().message;
  Write(d.path() / "fixtures/t.jsonl", "");
  EXPECT_NE(*SpecSetHash(d.path() / "specs", set, d.path()), *missing);
  EXPECT_FALSE(SpecSetHash(d.path() / "nothing", set, d.path()));
}

}  // namespace
}  // namespace llmconform::harness
