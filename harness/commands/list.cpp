// `llmconform list` (harness/commands/command.h).
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/format.h"
#include "base/json_read.h"
#include "harness/commands/command.h"
#include "harness/commands/report_options.h"
#include "harness/data_dir.h"
#include "harness/dialect_cmd.h"
#include "harness/json_location.h"
#include "harness/merge.h"
#include "harness/oracle.h"
#include "harness/parallel.h"
#include "harness/probe.h"
#include "harness/rule_index.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "harness/spec_hash.h"
#include "harness/sse_check.h"
#include "harness/suites/registry.h"
#include "reports/baseline.h"
#include "reports/registry.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

class ListCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/")->capture_default_str();
    app.add_option("--filter", filter_, "only scenarios whose <protocol>/<name> matches this glob");
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
        if (!MatchesFilter(s, filter_)) continue;
        if (json_) {
          doc.push_back({{"protocol", s.protocol},
                         {"name", s.name},
                         {"description", s.description},
                         {"trace", s.trace},
                         {"rules", s.rules}});
        } else {
          std::cout << s.protocol << '/' << s.name << "  (" << s.rules.size() << " rules"
                    << (s.trace.empty() ? "" : ", " + s.trace) << ")\n    " << s.description
                    << '\n';
        }
      }
    }
    if (json_) std::cout << doc.dump(2) << '\n';
    return kExitOk;
  }

 private:
  fs::path specs_ = DefaultSpecsDir();
  std::string filter_;
  bool rules_ = false;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeListCommand() { return std::make_unique<ListCommand>(); }

}  // namespace llmconform::harness
