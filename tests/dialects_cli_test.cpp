// End to end: `llmconform run --dialects` on the bundled specs — every
// scenario with a trace once per dialect, the dialect kept in the JSON report,
// the JUnit classname and the matrix rows; bad lists are usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ReadWholeFile;
using testing::RunProcess;

const std::string kBinary = ::llmconform::test_paths::LlmconformBinary();
using ::llmconform::test_paths::kRoot;

TEST(RunDialects, EachScenarioOncePerDialect) {
  harness::ScratchDir out;
  const auto r = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--filter",
                             "toolcalls/*tool-calls", "--dialects", "gemini,openai,deepseek", "-j",
                             "2", "--report", "json:out=" + (out.path() / "report.json").string(),
                             "--report", "junit:out=" + (out.path() / "junit.xml").string(),
                             "--report", "matrix:out=" + (out.path() / "matrix.md").string()});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.err.find("in 3 dialect(s) took"), std::string::npos) << r.err;
  const json report = json::parse(ReadWholeFile(out.path() / "report.json"));
  std::multiset<std::string> ids;
  for (const auto& s : report["scenarios"])
    ids.insert(s["name"].get<std::string>() + "@" + s.value("dialect", ""));
  EXPECT_EQ(ids, (std::multiset<std::string>{
                     "parallel-tool-calls@deepseek", "parallel-tool-calls@gemini",
                     "parallel-tool-calls@openai", "streamed-tool-calls@deepseek",
                     "streamed-tool-calls@gemini", "streamed-tool-calls@openai"}));
  const std::string junit = ReadWholeFile(out.path() / "junit.xml");
  EXPECT_NE(junit.find("classname=\"toolcalls.streamed-tool-calls[gemini]\""), std::string::npos);
  const std::string matrix = ReadWholeFile(out.path() / "matrix.md");
  for (const char* row : {"| deepseek |", "| gemini |", "| openai |"})
    EXPECT_NE(matrix.find(row), std::string::npos) << row << "\n" << matrix;
  // Columns are the client features, in their fixed order, without "#".
  EXPECT_NE(
      matrix.find("| dialect | plain-text | streamed-text | tool-call | streamed-tool-calls | "
                  "parallel-tool-calls |"),
      std::string::npos)
      << matrix;
  EXPECT_EQ(matrix.find("| toolcalls |"), std::string::npos) << matrix;
}

// The matrix exists to find clients a dialect breaks: every reference client
// passes every bundled scenario in every dialect (Hugging Face's inline
// <think> block included, docs/protocols.md "Inline reasoning").
TEST(RunDialects, EveryReferenceClientPassesEveryDialect) {
  harness::ScratchDir out;
  const auto r = RunProcess(
      {kBinary, "run", "--specs", (kRoot / "specs").string(), "--dialects", "all", "-j", "2",
       "--report", "json:out=" + (out.path() / "report.json").string(), "--report",
       "matrix:out=" + (out.path() / "matrix.md").string()},
      "", "", {}, std::chrono::seconds(540));  // 16 × the suite: minutes on a busy 2-core box
  EXPECT_EQ(r.exit_code, 0) << r.err << ReadWholeFile(out.path() / "matrix.md");
  const json report = json::parse(ReadWholeFile(out.path() / "report.json"));
  std::set<std::string> dialects, failed;
  for (const auto& s : report["scenarios"]) {
    dialects.insert(s.value("dialect", ""));
    const std::string outcome = s.value("outcome", "");
    if (outcome == "fail" || outcome == "error")
      failed.insert(s["name"].get<std::string>() + "@" + s.value("dialect", ""));
  }
  EXPECT_TRUE(dialects.contains("huggingface"));
  EXPECT_GE(dialects.size(), 10u);
  EXPECT_TRUE(failed.empty()) << ::testing::PrintToString(failed);
}

TEST(RunDialects, UnknownDialectsAreUsageErrors) {
  const auto r = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--dialects",
                             "openai,klingon", "--report", "console"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dialects \"klingon\": unknown dialect (known: all, anthropic, "
                       "antseed-anthropic, azure,"),
            std::string::npos)
      << r.err;
  const auto e = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--dialects",
                             "openai,", "--report", "console"});
  EXPECT_EQ(e.exit_code, 2);
}

}  // namespace
}  // namespace llmconform
