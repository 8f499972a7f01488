// Every rule id the code can report is in the catalogue, and every catalogue
// entry is well-formed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::thinkingml {
namespace {

using ::llmconform::test_paths::kRoot;

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> CatalogueIds(const std::string& protocol) {
  const auto rules = nlohmann::json::parse(Slurp(kRoot / "specs" / protocol / "rules.json"));
  std::set<std::string> ids;
  for (const auto& r : rules) {
    EXPECT_TRUE(
        r.at("source").get<std::string>().starts_with("docs/seeds/002_d0b3e020b587eb9c.txt §"))
        << r.dump();
    const std::string severity = r.at("severity").get<std::string>();
    EXPECT_TRUE(severity == "must" || severity == "should") << r.dump();
    EXPECT_FALSE(r.at("text").get<std::string>().empty());
    EXPECT_TRUE(ids.insert(r.at("id").get<std::string>()).second) << "duplicate " << r.dump();
  }
  return ids;
}

std::set<std::string> IdsInSources(const std::regex& pattern,
                                   std::initializer_list<const char*> files) {
  std::set<std::string> ids;
  for (const char* f : files) {
    const std::string text = Slurp(kRoot / "protocols" / "thinkingml" / f);
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
      ids.insert(it->str(1));
  }
  return ids;
}

TEST(RulesCatalogue, EveryReportedThinkingmlRuleIsCatalogued) {
  const auto catalogue = CatalogueIds("thinkingml");
  const auto used =
      IdsInSources(std::regex("\"(TML-[0-9.]+)\""), {"thinkingml.cpp", "serp_queries.cpp"});
  const std::set<std::string> listed(std::begin(kReplyRuleIds), std::end(kReplyRuleIds));
  EXPECT_EQ(used, listed);
  EXPECT_EQ(catalogue, listed);
}

TEST(RulesCatalogue, EveryReportedGymbroRuleIsCatalogued) {
  const auto catalogue = CatalogueIds("gymbro");
  const auto used = IdsInSources(std::regex("\"(GYMBRO-[0-9.]+)\""), {"gymbro_events.cpp"});
  const std::set<std::string> listed(std::begin(gymbro::kEventRuleIds),
                                     std::end(gymbro::kEventRuleIds));
  EXPECT_EQ(used, listed);
  for (const auto& id : used) EXPECT_TRUE(catalogue.count(id)) << id;
}

}  // namespace
}  // namespace llmconform::thinkingml
