// `llmconform list` (harness/commands/command.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/json_fields.h"
#include "harness/commands/command.h"
#include "harness/data_dir.h"
#include "harness/rule_index.h"
#include "harness/runner.h"
#include "harness/scenario.h"

namespace llmconform::harness {
namespace {

class ListCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/")->capture_default_str();
    app.add_option("--filter", filter_,
                   "only scenarios whose <protocol>/<name> matches this glob (or one of several, "
                   "comma-separated)");
    app.add_option("--profile", profile_,
                   "protocols|client: only the seed protocols' scenarios, or only the client "
                   "profile's (specs/client/), each with its API surface and the features it "
                   "exercises (the matrix's columns); default: every scenario")
        ->check(CLI::IsMember({"protocols", "client"}));
    app.add_flag("--rules", rules_,
                 "list the rule catalogue instead of the scenarios: each rule (and each DIA-* "
                 "dialect) with the functions that decide it, at file:line");
    app.add_flag("--json", json_, "print JSON instead of text");
  }

  int Run() override {
    auto specs = LoadSpecs(specs_);
    if (!specs) {
      std::cerr << specs.error().message << '\n';
      return kExitUsage;
    }
    nlohmann::json doc = nlohmann::json::array();
    if (rules_) {
      WriteRuleCatalogue(
          specs->rules,
          [&](std::string_view protocol) {
            return filter_.empty() ||
                   MatchesFilter(Scenario{.protocol = std::string(protocol), .name = ""}, filter_);
          },
          json_ ? &doc : nullptr, std::cout);
    } else {
      for (const auto& s : specs->scenarios) {
        if (!MatchesFilter(s, filter_) || !InProfile(s, profile_)) continue;
        const bool client = s.protocol == kClientProfile;
        // A client-profile scenario's API surface ("chat" when it names none) and features.
        const std::string surface = client ? StringOf(s.input, "surface", "chat") : "";
        std::vector<std::string> features;
        for (const nlohmann::json& f : ArrayOf(s.raw, "features"))
          if (f.is_string()) features.push_back(f.get<std::string>());
        if (json_) {
          nlohmann::json item = {{"protocol", s.protocol},
                                 {"name", s.name},
                                 {"description", s.description},
                                 {"trace", s.trace},
                                 {"rules", s.rules}};
          if (client) {
            item["surface"] = surface;
            item["features"] = features;
          }
          doc.push_back(std::move(item));
        } else {
          std::cout << s.protocol << '/' << s.name << "  (" << s.rules.size() << " rules"
                    << (s.trace.empty() ? "" : ", " + s.trace) << ")\n";
          if (client) {
            std::string joined;
            for (const std::string& f : features) joined += (joined.empty() ? "" : ", ") + f;
            std::cout << "    surface " << surface << "; features "
                      << (joined.empty() ? "-" : joined) << '\n';
          }
          std::cout << "    " << s.description << '\n';
        }
      }
    }
    if (json_) std::cout << doc.dump(2) << '\n';
    return kExitOk;
  }

 private:
  fs::path specs_ = DefaultSpecsDir();
  std::string filter_;
  std::string profile_;
  bool rules_ = false;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeListCommand() { return std::make_unique<ListCommand>(); }

}  // namespace llmconform::harness
