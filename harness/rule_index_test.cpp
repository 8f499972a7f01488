// The index of rule deciders against the catalogues and the code: every rule
// of every specs/*/rules.json and every dialect ID has a decider, each
// decider names a file of the repository and a line inside it that shows the
// function or the rule, the index names no rule the catalogues lack, and a
// rule's source names documents the repository holds.
#include "harness/rule_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/test_paths.h"
#include "harness/scenario.h"
#include "protocols/wire/dialect.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

using ::llmconform::test_paths::kRoot;

// Every rule of every specs/<protocol>/rules.json.
std::vector<reports::RuleInfo> Catalogue() {
  std::vector<reports::RuleInfo> rules;
  for (const auto& entry : fs::directory_iterator(kRoot / "specs")) {
    const fs::path path = entry.path() / "rules.json";
    if (!fs::is_regular_file(path)) continue;
    auto text = ReadFile(path);
    EXPECT_TRUE(text) << path;
    if (!text) continue;
    auto catalog = ParseRuleCatalog(path.string(), *text, entry.path().filename().string());
    EXPECT_TRUE(catalog) << catalog.error().message;
    if (catalog) rules.insert(rules.end(), catalog->begin(), catalog->end());
  }
  return rules;
}

std::vector<std::string> LinesOf(const fs::path& path) {
  std::vector<std::string> lines;
  auto text = ReadFile(path);
  if (!text) return lines;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Empty when `d` names an existing file and a line of it that shows the
// decider: the function's head (kTable) or the rule's report (kReports:
// the ID, its pattern "{}-…", or the "Decides ID" note above the head).
std::string ProblemWith(const RuleDecider& d) {
  const fs::path path = kRoot / d.file;
  if (!fs::is_regular_file(path)) return std::string(d.file) + " does not exist";
  const std::vector<std::string> lines = LinesOf(path);
  if (d.line < 1 || d.line > static_cast<int>(lines.size())) {
    return std::string(d.file) + " has " + std::to_string(lines.size()) + " lines, not line " +
           std::to_string(d.line);
  }
  const std::string& line = lines[d.line - 1];
  std::string_view fn = d.function;
  if (auto colons = fn.rfind("::"); colons != std::string_view::npos) fn = fn.substr(colons + 2);
  const std::string shown_rule(d.rule);
  const bool shows_function = line.find(std::string(fn) + "(") != std::string::npos ||
                              line.find(std::string(fn) + "<") != std::string::npos;
  const bool shows_rule =
      line.find('"' + shown_rule + '"') != std::string::npos ||
      line.find("\"{}-") != std::string::npos ||
      (d.line > 1 && lines[d.line - 2].find("Decides " + shown_rule) != std::string::npos);
  if (d.kind == RuleDeciderKind::kTable ? !shows_function : !shows_rule) {
    return std::string(d.file) + ":" + std::to_string(d.line) + " shows neither: " + line;
  }
  return "";
}

TEST(RuleIndex, EveryCatalogueRuleHasADeciderInAFileThatExists) {
  const auto rules = Catalogue();
  ASSERT_GT(rules.size(), 200u);
  for (const auto& rule : rules) {
    const auto deciders = DecidersOf(rule.id);
    EXPECT_FALSE(deciders.empty()) << rule.id << " (" << rule.protocol << ") has no decider";
    for (const RuleDecider& d : deciders) {
      EXPECT_EQ(ProblemWith(d), "") << rule.id << " decided by " << d.function;
    }
  }
}

TEST(RuleIndex, EveryDialectHasADecider) {
  for (std::string_view id : wire::DialectIds()) {
    const auto deciders = DecidersOf(id);
    EXPECT_FALSE(deciders.empty()) << id << " has no decider";
    for (const RuleDecider& d : deciders) EXPECT_EQ(ProblemWith(d), "") << id;
  }
}

TEST(RuleIndex, NamesOnlyCataloguedRules) {
  std::set<std::string, std::less<>> known;
  for (const auto& rule : Catalogue()) known.insert(rule.id);
  for (std::string_view id : wire::DialectIds()) known.emplace(id);
  for (const RuleDecider& d : RuleDeciderIndex()) {
    EXPECT_TRUE(known.contains(d.rule)) << d.file << ":" << d.line << " (" << d.function
                                        << ") reports " << d.rule << ", which no catalogue holds";
  }
}

TEST(RuleIndex, ARuleNothingDecidesHasNoDecider) {
  EXPECT_TRUE(DecidersOf("ACT-999").empty());
  EXPECT_TRUE(DecidersOf("DIA-NOTHING").empty());
  // A table entry comes first, with the check's head.
  const auto act = DecidersOf("ACT-1");
  ASSERT_FALSE(act.empty());
  EXPECT_EQ(act.front().kind, RuleDeciderKind::kTable);
  EXPECT_EQ(act.front().function, "ReplyRule");
  EXPECT_EQ(act.front().file, "harness/suites/action_checks.cpp");
  // A dialect the stream accumulator reports is decided where it reports it.
  const auto done = DecidersOf("DIA-NO-DONE");
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.front().kind, RuleDeciderKind::kReports);
}

// A source is "DOCUMENT §section" parts joined by "; ". A part that cites a
// file (a seed document, a page of docs/) names it by its path in the
// repository, and the file is there; other parts cite outside documents by
// name and address.
TEST(RuleIndex, EverySourceThatCitesAFileNamesOneInTheRepository) {
  for (const auto& rule : Catalogue()) {
    std::string_view rest = rule.source;
    while (!rest.empty()) {
      const auto end = rest.find("; ");
      std::string_view part = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
      std::string_view first = part.substr(0, part.find(' '));
      const bool cites_file = first.ends_with(".txt") || first.ends_with(".md") ||
                              first.ends_with(".json") || first.starts_with("docs/");
      if (!cites_file) continue;
      EXPECT_TRUE(fs::is_regular_file(kRoot / first))
          << rule.id << ": source names " << first << ", which is not a file of the repository";
    }
  }
}

}  // namespace
}  // namespace llmconform::harness
