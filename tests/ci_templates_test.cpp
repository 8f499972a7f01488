// The CI templates in docs/ci/ parse as YAML, have the shape their CI system
// needs (4 shards, a merge job, JUnit published), and call only commands that
// exist: llmconform subcommands and options (asked of the real binary's
// --help), repository scripts and their options, and CMake presets.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using testing::ReadWholeFile;
using testing::RunProcess;

const std::string kBinary = ::llmconform::test_paths::LlmconformBinary();
using ::llmconform::test_paths::kRoot;

// Words of a shell command line: split on blanks, quotes removed (enough for
// the templates, which use no nested quoting).
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool any = false;
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      any = true;
    } else if (c == ' ' || c == '\t') {
      if (any || !word.empty()) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
    }
  }
  if (any || !word.empty()) words.push_back(word);
  return words;
}

// Each command of a script: its lines, cut at ||, &&, ; and |.
std::vector<std::vector<std::string>> Commands(const std::string& script) {
  std::vector<std::vector<std::string>> out;
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);) {
    if (auto hash = line.find(" #"); hash != std::string::npos) line.resize(hash);
    if (line.starts_with("#")) continue;
    const std::regex sep(R"(\|\||&&|;|\|)");
    for (std::sregex_token_iterator it(line.begin(), line.end(), sep, -1), end; it != end; ++it) {
      auto words = Words(*it);
      if (!words.empty()) out.push_back(words);
    }
  }
  return out;
}

// What a command calls, checked: returns how many commands it recognised.
class CommandChecker {
 public:
  CommandChecker() {
    const auto presets = nlohmann::json::parse(ReadWholeFile(kRoot / "CMakePresets.json"));
    for (const auto& p : presets["configurePresets"]) presets_.insert(p["name"]);
  }

  void Check(const std::vector<std::string>& w, const std::string& where) {
    const std::string& program = w[0];
    if (program.ends_with("llmconform")) {
      ++checked;
      EXPECT_EQ(program, "build/release/harness/llmconform") << where;
      ASSERT_GE(w.size(), 2u) << where;
      const std::string help = Help(w[1]);
      ASSERT_FALSE(help.empty()) << where << ": no subcommand " << w[1];
      for (std::size_t i = 2; i < w.size(); ++i) {
        if (w[i].starts_with("-")) {
          EXPECT_NE(help.find(w[i]), std::string::npos)
              << where << ": `llmconform " << w[1] << "` has no option " << w[i];
        }
      }
    } else if (program.starts_with("scripts/") || program.starts_with("docs/")) {
      ++checked;
      ASSERT_TRUE(fs::exists(kRoot / program)) << where << ": " << program;
      const std::string text = ReadWholeFile(kRoot / program);
      for (std::size_t i = 1; i < w.size(); ++i) {
        if (w[i].starts_with("--")) {
          EXPECT_NE(text.find(w[i]), std::string::npos) << where << ": " << program << " " << w[i];
        }
      }
    } else if (program == "cmake") {
      ++checked;
      for (std::size_t i = 1; i + 1 < w.size(); ++i) {
        if (w[i] == "--preset") {
          EXPECT_TRUE(presets_.contains(w[i + 1])) << where << ": " << w[i + 1];
        }
        if (w[i] == "--target") {
          EXPECT_NE(ReadWholeFile(kRoot / "harness" / "CMakeLists.txt")
                        .find("add_executable(" + w[i + 1]),
                    std::string::npos)
              << where << ": target " << w[i + 1];
        }
      }
    }
  }

  int checked = 0;

 private:
  std::string Help(const std::string& sub) {
    auto [it, fresh] = help_.emplace(sub, "");
    if (fresh) {
      auto r = RunProcess({kBinary, sub, "--help"});
      if (r.exit_code == 0) it->second = r.out;
    }
    return it->second;
  }

  std::set<std::string> presets_;
  std::map<std::string, std::string> help_;
};

TEST(CiTemplates, GitHubActionsShardsMergesAndPublishes) {
  const YAML::Node wf = YAML::LoadFile((kRoot / "docs/ci/github-actions.yml").string());
  const YAML::Node jobs = wf["jobs"];
  ASSERT_TRUE(jobs.IsMap());
  const YAML::Node shards = jobs["shard"]["strategy"]["matrix"]["shard"];
  ASSERT_TRUE(shards.IsSequence());
  EXPECT_EQ(shards.size(), 4u);
  EXPECT_EQ(jobs["merge"]["needs"].as<std::string>(), "shard");

  CommandChecker checker;
  bool uploads_html = false, publishes_junit = false, merges = false, runs_shard = false;
  for (const auto& job : jobs) {
    const YAML::Node steps = job.second["steps"];
    ASSERT_TRUE(steps.IsSequence()) << job.first.as<std::string>();
    for (const auto& step : steps) {
      if (step["run"]) {
        const std::string script = step["run"].as<std::string>();
        merges |= script.find("llmconform merge") != std::string::npos;
        runs_shard |= script.find("--shard ${{ matrix.shard }}/4") != std::string::npos;
        for (const auto& cmd : Commands(script)) checker.Check(cmd, step["run"].as<std::string>());
      }
      if (step["uses"] && step["uses"].as<std::string>().starts_with("actions/upload-artifact") &&
          step["with"]["path"].as<std::string>().find("report.html") != std::string::npos)
        uploads_html = true;
      if (step["with"] && step["with"]["report_paths"] &&
          step["with"]["report_paths"].as<std::string>() == "merged/junit.xml")
        publishes_junit = true;
    }
  }
  EXPECT_TRUE(uploads_html);
  EXPECT_TRUE(publishes_junit);
  EXPECT_TRUE(merges);
  EXPECT_TRUE(runs_shard);
  EXPECT_GE(checker.checked, 6);
}

TEST(CiTemplates, GitLabRunsFourParallelShardsAndReportsJUnit) {
  const YAML::Node ci = YAML::LoadFile((kRoot / "docs/ci/gitlab-ci.yml").string());
  EXPECT_EQ(ci["conformance"]["parallel"].as<int>(), 4);
  EXPECT_EQ(ci["report"]["artifacts"]["reports"]["junit"].as<std::string>(), "merged/junit.xml");
  std::set<std::string> stages;
  for (const auto& s : ci["stages"]) stages.insert(s.as<std::string>());
  CommandChecker checker;
  for (const auto& entry : ci) {
    const YAML::Node job = entry.second;
    if (!job.IsMap() || !job["script"]) continue;
    EXPECT_TRUE(stages.contains(job["stage"].as<std::string>())) << entry.first.as<std::string>();
    for (const auto& line : job["script"]) {
      for (const auto& cmd : Commands(line.as<std::string>()))
        checker.Check(cmd, line.as<std::string>());
    }
  }
  EXPECT_GE(checker.checked, 6);
}

TEST(CiTemplates, ShellRecipeParsesAndCallsRealCommands) {
  const std::string recipe = (kRoot / "docs/ci/shard-and-merge.sh").string();
  auto syntax = RunProcess({"/bin/sh", "-n", recipe});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  const std::string text = ReadWholeFile(recipe);
  for (const char* needed : {"run", "--shard", "--out", "--report", "-j", "--timings", "--specs"})
    EXPECT_NE(RunProcess({kBinary, "run", "--help"}).out.find(needed), std::string::npos) << needed;
  EXPECT_NE(text.find("\"$bin\" merge"), std::string::npos);
}

TEST(CiTemplates, CommandSplittingIsWhatTheChecksAssume) {
  EXPECT_EQ(
      Commands("a --x \"1/2\" || [ $? -eq 1 ]"),
      (std::vector<std::vector<std::string>>{{"a", "--x", "1/2"}, {"[", "$?", "-eq", "1", "]"}}));
  EXPECT_EQ(Words("x '' y"), (std::vector<std::string>{"x", "", "y"}));
}

}  // namespace
}  // namespace llmconform
