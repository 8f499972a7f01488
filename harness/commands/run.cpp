// `llmconform run` (harness/commands/command.h).
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
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
#include "mockllm/dialect_rewrite.h"
#include "protocols/wire/surface.h"
#include "reports/baseline.h"
#include "reports/compat_page.h"
#include "reports/registry.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

// Keeps the scenarios of `profile`: "client" those of the client profile
// (specs/client/), "protocols" every other one.
void SelectProfile(SpecSet& specs, std::string_view profile) {
  std::erase_if(specs.scenarios, [&](const Scenario& s) { return !InProfile(s, profile); });
}

class RunCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/ with rules.json and scenarios")
        ->capture_default_str();
    reports_.Setup(app);
    app.add_option(
        "--filter", filter_,
        "run only scenarios whose <protocol>/<name> matches this glob, or one of several "
        "separated by commas (e.g. 'skill/*', '*trim*', 'skill/*,action/*')");
    app.add_option("--root", root_,
                   "folder scenario trace paths are relative to (default: the parent of --specs)");
    app.add_option("--speed", speed_,
                   "mockllm replay speed: 0 replays streams without waiting, 1 at recorded pace")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    baseline_.Setup(app);
    expected_failures_.Setup(app);
    app.add_option("-j,--jobs", jobs_,
                   "scenarios run at once, each with its own mockllm (default: the number of "
                   "cores); reports are the same for any value apart from timings")
        ->check(CLI::Range(1, 1024));
    app.add_option(
        "--shard", shard_,
        "run only slice K of N (K/N, 1-based): disjoint slices covering every "
        "scenario, for a CI job matrix; merge their report.json with `llmconform merge`");
    app.add_option("--timings", timings_,
                   "a previous report.json: balance --shard slices by its scenario durations "
                   "(default: by a hash of the scenario name)");
    auto* client_cmd = app.add_option(
        "--client-cmd", client_cmd_,
        "gate YOUR client instead of the reference: run /bin/sh -c CMD per scenario "
        "with a trace with OPENAI_BASE_URL, OPENAI_API_KEY, LLMCONFORM_SCENARIO, "
        "LLMCONFORM_INPUT and LLMCONFORM_OUTPUT set, and for toolcalls "
        "LLMCONFORM_WORKSPACE (its pkg/, project/ and state/ folders; docs/gate.md)");
    app.add_option("--client", clients_,
                   "NAME=CMD, repeatable, with --profile client: gate several clients in one "
                   "run, each as --client-cmd CMD; each client's reports go to <out>/NAME/ (its "
                   "evidence to "
                   "<out>/NAME/evidence/), and one page, compatibility.md and compatibility.html "
                   "in <out>, has a summary client x dialect (worst cell), a dialect x feature "
                   "grid per client and every failure with its rule, deviations and evidence "
                   "(docs/compatibility.md)")
        ->excludes(client_cmd);
    app.add_option("--client-timeout", client_timeout_s_, "seconds the client command may take")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--profile", profile_,
                   "protocols|client: the seed protocols' scenarios (default), or the client "
                   "profile's (specs/client/: one exchange of one API surface each, judged on "
                   "what any SDK read; docs/gate.md \"Client profile\")")
        ->check(CLI::IsMember({"protocols", "client"}));
    app.add_option("--dialects", dialects_,
                   "all|NAME,...: run every scenario with a trace once per provider dialect, its "
                   "replies rewritten into it (`mockllm dialects` lists them; docs/dialects.md); "
                   "the matrix then has a row per dialect; with --client-cmd, your client meets "
                   "every dialect");
  }

  int Run() override {
    auto specs = LoadSpecs(specs_, root_);
    if (!specs) {
      std::cerr << specs.error().message << '\n';
      return kExitUsage;
    }
    SelectProfile(*specs, profile_);
    if (specs->scenarios.empty()) {
      std::cerr << "llmconform run: no scenarios of profile " << profile_ << " under " << specs_
                << '\n';
      return kExitUsage;
    }
    if (!baseline_.Load("run")) return kExitUsage;
    {
      std::vector<std::string> names;
      std::vector<reports::RuleInfo> rules;
      for (const auto& sc : specs->scenarios) names.push_back(sc.protocol + "/" + sc.name);
      for (const auto& [protocol, list] : specs->rules)
        rules.insert(rules.end(), list.begin(), list.end());
      if (!expected_failures_.Load("run", &names, &rules)) return kExitUsage;
    }
    RunOptions options;
    options.expected_failures = expected_failures_.get();
    if (!shard_.empty()) {
      auto shard = ParseShard(shard_);
      if (!shard) {
        std::cerr << "llmconform run: " << shard.error().message << '\n';
        return kExitUsage;
      }
      options.shard = *shard;
    }
    if (!timings_.empty()) {
      auto timings = LoadTimings(timings_);
      if (!timings) {
        std::cerr << "llmconform run: --timings " << timings.error().message << '\n';
        return kExitUsage;
      }
      options.timings = std::move(*timings);
    }
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform run: " << built.error().message << '\n';
      return kExitUsage;
    }
    if (!clients_.empty() && !CheckClients()) return kExitUsage;
    options.spec_dir = specs_.string();
    options.source_root = root_.empty() ? DefaultSourceRoot(specs_) : fs::path(root_);
    options.filter = filter_;
    options.speed = speed_;
    options.tool_version = LLMCONFORM_VERSION;
    options.jobs = jobs_ > 0 ? jobs_ : DefaultJobs();
    auto hash = SpecSetHash(specs_, *specs, options.source_root);
    if (!hash) {
      std::cerr << "llmconform run: " << hash.error().message << '\n';
      return kExitUsage;
    }
    options.spec_hash = std::move(*hash);
    if (options.shard && !AnyMatches(*specs, filter_)) options.shard.reset();  // say no match below
    options.client_cmd = client_cmd_;
    if (!dialects_.empty()) {
      auto names = ParseDialectList(dialects_);
      if (!names) {
        std::cerr << "llmconform run: --dialects " << names.error().message << '\n';
        return kExitUsage;
      }
      options.dialects = std::move(*names);
    }
    options.client_timeout =
        std::chrono::milliseconds(static_cast<long long>(client_timeout_s_ * 1000));
    if (!clients_.empty()) return RunClients(*specs, options);
    if (!client_cmd_.empty() && profile_ == kClientProfile)
      options.evidence_dir = reports_.out() / "evidence";
    reports::RunResult run = RunScenarios(*specs, options, fan);
    if (!options.dialects.empty()) {
      std::cerr << Format("llmconform run: {} scenario run(s) in {} dialect(s) took {:.0f} ms\n",
                          run.scenarios.size(), options.dialects.size(), run.duration_ms);
    }
    if (run.scenarios.empty() && !options.shard) {
      std::cerr << "llmconform run: --filter '" << filter_
                << "' matches no scenario (see `llmconform list`)\n";
      return kExitUsage;
    }
    if (!baseline_.AddDiff("run", run, reports_)) return kExitUsage;
    if (!reports_.WriteFiles("run")) return kExitInternal;
    return run.ExitCode();
  }

 private:
  // --client NAME=CMD: the names are folder names, each once; not with --baseline.
  bool CheckClients() {
    for (const std::string& spec : clients_) {
      const auto eq = spec.find('=');
      const std::string name = spec.substr(0, eq);
      const bool name_ok = eq != std::string::npos && !name.empty() && name != "." &&
                           name != ".." && name != "evidence" &&
                           std::all_of(name.begin(), name.end(), [](unsigned char ch) {
                             return std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
                           });
      if (!name_ok || eq + 1 == spec.size()) {
        std::cerr << "llmconform run: --client '" << spec
                  << "': expected NAME=CMD, NAME of letters, digits, '.', '_' and '-'\n";
        return false;
      }
      for (const auto& [other, cmd] : named_)
        if (other == name) {
          std::cerr << "llmconform run: --client " << name << " is given twice\n";
          return false;
        }
      named_.emplace_back(name, spec.substr(eq + 1));
    }
    if (profile_ != kClientProfile) {
      std::cerr << "llmconform run: --client needs --profile client\n";
      return false;
    }
    if (baseline_.given()) {
      std::cerr << "llmconform run: --baseline compares one run; with --client, give each "
                   "client's report.json to `llmconform run --client-cmd` instead\n";
      return false;
    }
    return true;
  }

  // Runs the scenarios once per --client, each with its reports under
  // <out>/NAME/, then writes the compatibility page. The exit code is the
  // worst of the clients' (3, then 1, then 0).
  int RunClients(const SpecSet& specs, RunOptions options) {
    std::vector<reports::ClientRun> runs;
    const auto started = std::chrono::steady_clock::now();
    int exit = 0;
    for (const auto& [name, cmd] : named_) {
      ReportOptions sub = reports_.Under(name);
      reports::MultiReporter fan;
      if (auto built = sub.Build(fan); !built) return kExitUsage;  // checked by Build above
      options.client_cmd = cmd;
      options.evidence_dir = sub.out() / "evidence";
      std::cerr << Format("llmconform run: client {}: {}\n", name, cmd);
      reports::RunResult run = RunScenarios(specs, options, fan);
      std::cerr << Format("llmconform run: client {}: {} scenario run(s) took {:.0f} ms\n", name,
                          run.scenarios.size(), run.duration_ms);
      if (!sub.WriteFiles("run")) return kExitInternal;
      const int code = run.ExitCode();
      exit = code == kExitInternal || exit == kExitInternal ? kExitInternal : std::max(exit, code);
      runs.push_back({name, cmd, std::move(run)});
    }
    // Each dialect's surface, for the page's table per surface (a dialect
    // mockllm does not know, a scenario's own provider, goes under none).
    reports::DialectSurfaces surfaces;
    for (const reports::ClientRun& r : runs)
      for (const reports::ScenarioResult& s : r.run.scenarios)
        if (const mockllm::Dialect* d = mockllm::FindDialect(s.info.dialect))
          surfaces.emplace(s.info.dialect, std::string(wire::SurfaceName(d->surface)));
    for (const auto& [file, text] :
         {std::pair{"compatibility.md", reports::RenderCompatMarkdown(runs, surfaces)},
          std::pair{"compatibility.html", reports::RenderCompatHtml(runs, surfaces)}}) {
      if (auto ok = WriteFileAtomically(reports_.out() / file, text); !ok) {
        std::cerr << "llmconform run: " << ok.error().message << '\n';
        return kExitInternal;
      }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    std::cerr << Format(
        "llmconform run: {} client(s) took {:.0f} ms; the page: {}/compatibility.md and "
        "compatibility.html\n",
        runs.size(), ms, reports_.out().string());
    return exit;
  }

  fs::path specs_ = DefaultSpecsDir();
  ReportOptions reports_;
  std::string filter_;
  std::string root_;
  double speed_ = 0;
  BaselineOption baseline_;
  ExpectedFailuresOption expected_failures_;
  int jobs_ = 0;
  std::string shard_;
  fs::path timings_;
  std::string client_cmd_;
  std::vector<std::string> clients_;
  std::vector<std::pair<std::string, std::string>> named_;  // clients_ as (NAME, CMD)
  double client_timeout_s_ = 60;
  std::string dialects_;
  std::string profile_ = "protocols";
};

}  // namespace

std::unique_ptr<Command> MakeRunCommand() { return std::make_unique<RunCommand>(); }

}  // namespace llmconform::harness
