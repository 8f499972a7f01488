#include "harness/cli.h"

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

#include "base/format.h"
#include "base/json_read.h"
#include "harness/check/check_run.h"
#include "harness/check/generators.h"
#include "harness/check/op_schema.h"
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
#include "base/atomic_file.h"
#include "reports/baseline.h"
#include "reports/registry.h"
#include "reports/reporter.h"

#ifndef LLMCONFORM_VERSION
#define LLMCONFORM_VERSION "0.0.0"
#endif

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;

// One subcommand: registers its options on `app`, then runs when chosen.
class Command {
 public:
  virtual ~Command() = default;
  virtual void Setup(CLI::App& app) = 0;
  virtual int Run() = 0;
};

struct CommandKind {
  const char* name;
  const char* description;
  std::unique_ptr<Command> (*make)();
};

bool AnyMatches(const SpecSet& specs, const std::string& filter) {
  for (const auto& s : specs.scenarios) {
    if (MatchesFilter(s, filter)) return true;
  }
  return false;
}

fs::path DefaultSourceRoot(const fs::path& specs) {
  const fs::path abs = fs::absolute(specs).lexically_normal();
  fs::path parent = abs.has_filename() ? abs.parent_path() : abs.parent_path().parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// ---- reports shared by run, judge and sse-check ------------------------------

int TerminalWidth() {
  winsize ws{};
  return ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

std::string ReporterNames() {
  std::string names;
  for (const auto& kind : reports::ReporterKinds())
    names += (names.empty() ? "" : ", ") + std::string(kind.name);
  return names;
}

// The --out and --report options, the reporters they select, and the report
// files, written atomically once the run is over.
class ReportOptions {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--out", out_, "folder the report files are written to")->capture_default_str();
    app.add_option("--report", reports_,
                   "reporter to use, repeatable: NAME[:out=FILE] (FILE relative to --out, '-' for "
                   "stdout); names: " +
                       ReporterNames() +
                       " (default: console, json, junit, markdown, html, matrix, matrix-html)");
  }

  // Builds the reporters into `fan`. Error: an unknown reporter or option,
  // or two reporters writing one file.
  std::expected<void, Error> Build(reports::MultiReporter& fan) {
    static const std::vector<std::string> kDefault = {"console", "json",   "junit",      "markdown",
                                                      "html",    "matrix", "matrix-html"};
    auto requests = reports::ParseReportSpecs(reports_.empty() ? kDefault : reports_);
    if (!requests) return std::unexpected(requests.error());
    const bool tty = ::isatty(STDOUT_FILENO) == 1;
    for (const auto& req : *requests) {
      reports::ReporterOutputs outputs;
      if (req.out.empty() || req.out == "-") {
        outputs.out =
            &std::cout;  // the terminal: human output goes to stdout, diagnostics to stderr
        outputs.console = reports::ConsoleOptionsFor(tty, std::getenv("NO_COLOR"),
                                                     std::getenv("CI"), TerminalWidth());
      } else {
        outputs.out = AddFile(req.out);
      }
      if (!req.companion.empty()) outputs.companion = AddFile(req.companion);
      fan.Add(req.kind->factory(outputs));
    }
    return {};
  }

  // A buffer whose content becomes the file `name` (relative to --out).
  std::ostringstream* AddFile(const fs::path& name) {
    files_.emplace_back(name.is_absolute() ? name : out_ / name,
                        std::make_unique<std::ostringstream>());
    return files_.back().second.get();
  }

  // Writes every file; returns false (after saying why) when one could not be.
  bool WriteFiles(std::string_view command) {
    for (auto& [path, buffer] : files_) {
      if (auto written = WriteFileAtomically(path, buffer->str()); !written) {
        std::cerr << "llmconform " << command << ": " << written.error().message << '\n';
        return false;
      }
    }
    if (!files_.empty()) {
      std::cerr << "reports written to " << out_.string() << "/:";
      for (const auto& [path, buffer] : files_) std::cerr << ' ' << path.filename().string();
      std::cerr << '\n';
    }
    return true;
  }

  const fs::path& out() const { return out_; }

 private:
  fs::path out_ = "out/reports";
  std::vector<std::string> reports_;
  std::vector<std::pair<fs::path, std::unique_ptr<std::ostringstream>>> files_;
};

// The --baseline option of run and merge: a previous report.json whose diff
// against this run becomes baseline-diff.md.
class BaselineOption {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--baseline", path_,
                   "a previous report.json: also write baseline-diff.md of what changed");
  }
  // Reads the file; false (after saying why) when it is not a JSON report.
  bool Load(std::string_view command) {
    if (path_.empty()) return true;
    auto text = ReadFile(path_);
    if (!text) {
      std::cerr << "llmconform " << command << ": --baseline " << text.error().message << '\n';
      return false;
    }
    nlohmann::json doc = ReadJsonOrDiscarded(*text);
    if (doc.is_discarded() || !doc.is_object()) {
      std::cerr << "llmconform " << command << ": --baseline " << path_ << ": not a JSON report\n";
      return false;
    }
    doc_ = std::move(doc);
    return true;
  }
  // Adds baseline-diff.md to `reports`; false (after saying why) on a bad baseline.
  bool AddDiff(std::string_view command, const reports::RunResult& run, ReportOptions& reports) {
    if (!doc_) return true;
    auto diff = reports::DiffAgainstBaseline(*doc_, run);
    if (!diff) {
      std::cerr << "llmconform " << command << ": --baseline " << path_ << ": "
                << diff.error().message << '\n';
      return false;
    }
    *reports.AddFile("baseline-diff.md") << reports::RenderBaselineDiffMarkdown(*diff);
    return true;
  }

 private:
  std::string path_;
  std::optional<nlohmann::json> doc_;
};

// The --expected-failures option of run and check (reports/expected_failures.h).
class ExpectedFailuresOption {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--expected-failures", path_,
                   "YAML or JSON list of {scenario: PROTOCOL/NAME[@DIALECT][:RULE-ID], reason}: "
                   "those failures are reported apart and do not fail the run; an entry that "
                   "now passes does (stale baseline: remove it)");
  }
  // Reads the file; false (after saying why) when it cannot be used.
  // `scenarios` ("protocol/name") and `rules`, when given, must name every
  // entry's scenario and rule.
  bool Load(std::string_view command, const std::vector<std::string>* scenarios = nullptr,
            const std::vector<reports::RuleInfo>* rules = nullptr) {
    if (path_.empty()) return true;
    auto text = ReadFile(path_);
    if (!text) {
      std::cerr << "llmconform " << command << ": --expected-failures " << text.error().message
                << '\n';
      return false;
    }
    auto parsed = reports::ParseExpectedFailures(path_, *text);
    if (parsed && scenarios && rules) {
      if (auto known = reports::CheckExpectedFailuresKnown(*parsed, *scenarios, *rules); !known)
        parsed = std::unexpected(known.error());
    }
    if (!parsed) {
      std::cerr << "llmconform " << command << ": --expected-failures " << parsed.error().message
                << '\n';
      return false;
    }
    baseline_ = std::move(*parsed);
    return true;
  }
  // The loaded baseline; null when the option was not given.
  const reports::ExpectedFailures* get() const { return baseline_ ? &*baseline_ : nullptr; }

 private:
  std::string path_;
  std::optional<reports::ExpectedFailures> baseline_;
};

// ---- run -------------------------------------------------------------------

// Keeps the scenarios of `profile`: "client" those of the client profile
// (specs/client/), "protocols" every other one.
void SelectProfile(SpecSet& specs, std::string_view profile) {
  const bool client = profile == kClientProfile;
  std::erase_if(specs.scenarios,
                [&](const Scenario& s) { return (s.protocol == kClientProfile) != client; });
}

class RunCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/ with rules.json and scenarios")
        ->capture_default_str();
    reports_.Setup(app);
    app.add_option(
        "--filter", filter_,
        "run only scenarios whose <protocol>/<name> matches this glob (e.g. 'skill/*', '*trim*')");
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
    app.add_option("--client-cmd", client_cmd_,
                   "gate YOUR client instead of the reference: run /bin/sh -c CMD per scenario "
                   "with a trace with OPENAI_BASE_URL, OPENAI_API_KEY, LLMCONFORM_SCENARIO, "
                   "LLMCONFORM_INPUT and LLMCONFORM_OUTPUT set, and for toolcalls "
                   "LLMCONFORM_WORKSPACE (its pkg/, project/ and state/ folders; docs/gate.md)");
    app.add_option("--client-timeout", client_timeout_s_, "seconds the client command may take")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--profile", profile_,
                   "protocols|client: the seed protocols' scenarios (default), or the client "
                   "profile's (specs/client/: one Chat Completions exchange each, judged on what "
                   "any SDK read; docs/gate.md \"Client profile\")")
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
    if (!reports_.WriteFiles("run")) return 3;
    return run.ExitCode();
  }

 private:
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
  double client_timeout_s_ = 60;
  std::string dialects_;
  std::string profile_ = "protocols";
};

// ---- merge -----------------------------------------------------------------

class MergeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("reports", files_, "the report.json of each shard (`run --shard K/N`)")
        ->required();
    reports_.Setup(app);
    baseline_.Setup(app);
    app.footer(
        "Writes the reports one run of every shard's scenarios would have written, and exits as "
        "that run would\n(0 conformant, 1 failures, 3 harness errors). Refuses reports of "
        "different specs or fixtures\n(their spec_hash), of different llmconform versions, or "
        "that share a scenario (exit 2).");
  }

  int Run() override {
    std::vector<NamedReport> loaded;
    for (const auto& file : files_) {
      auto report = LoadReport(file);
      if (!report) {
        std::cerr << "llmconform merge: " << report.error().message << '\n';
        return kExitUsage;
      }
      loaded.push_back(std::move(*report));
    }
    auto merged = MergeReports(loaded);
    if (!merged) {
      std::cerr << "llmconform merge: " << merged.error().message << '\n';
      return kExitUsage;
    }
    if (!baseline_.Load("merge")) return kExitUsage;
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform merge: " << built.error().message << '\n';
      return kExitUsage;
    }
    reports::ReplayRun(*merged, Format("{} shard reports", files_.size()), fan);
    if (!baseline_.AddDiff("merge", *merged, reports_)) return kExitUsage;
    if (!reports_.WriteFiles("merge")) return 3;
    return merged->ExitCode();
  }

 private:
  std::vector<fs::path> files_;
  ReportOptions reports_;
  BaselineOption baseline_;
};

// ---- judge -----------------------------------------------------------------

class JudgeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/")->capture_default_str();
    app.add_option("--scenario", scenario_,
                   "the scenario, as <protocol>/<name> (see `llmconform list`)")
        ->required();
    app.add_option("--journal", journal_,
                   "mockllm's journal of your client's traffic (mockllm serve --journal FILE)")
        ->required();
    app.add_option("--outputs", outputs_,
                   "optional JSON of what your client produced, in the suite's output shape");
    reports_.Setup(app);
    app.footer(
        "Judges another implementation by the same rules as the reference:\n"
        "  mockllm serve --traces fixtures/synthesized/multiturn-s1-standard-assembly.trace.jsonl "
        "--journal j.json\n"
        "  (point your client at the printed URL + /t/<trace id>/v1, run it, stop mockllm)\n"
        "  llmconform judge --scenario multiturn/s1-standard-assembly --journal j.json\n"
        "Rules that need outputs the journal cannot show are skipped unless --outputs gives them.\n"
        "A request whose body the journal's bounds cut (\"body_cut\") cannot be judged (exit 2):\n"
        "give mockllm serve --journal-whole-bodies when your client sends strings over 64 KiB.\n"
        "Nor can a journal whose limits dropped requests (\"dropped_before\", exit 2): raise\n"
        "mockllm serve --journal-limit and --journal-max-bytes.\n"
        "A file that is not such a journal (an entry without a \"request\" object, a field of\n"
        "another type than mockllm writes) is refused with where and what (exit 2);\n"
        "docs/gate.md says what an entry holds.");
  }

  int Run() override {
    auto specs = LoadSpecs(specs_);
    if (!specs) {
      std::cerr << specs.error().message << '\n';
      return kExitUsage;
    }
    const Scenario* scenario = nullptr;
    for (const auto& s : specs->scenarios) {
      if (s.protocol + "/" + s.name == scenario_) scenario = &s;
    }
    if (!scenario) {
      std::cerr << "llmconform judge: --scenario '" << scenario_
                << "': no such scenario (see `llmconform list`)\n";
      return kExitUsage;
    }
    Observation obs;
    auto journal_text = ReadFile(journal_);
    if (!journal_text) {
      std::cerr << "llmconform judge: --journal " << journal_text.error().message << '\n';
      return kExitUsage;
    }
    auto journal = ParseJournal(journal_.string(), *journal_text);
    if (!journal) {
      std::cerr << "llmconform judge: " << journal.error().message << '\n';
      return kExitUsage;
    }
    obs.journal = std::move(*journal);
    if (obs.journal.empty()) {
      std::cerr << "llmconform judge: " << journal_.string()
                << ": no requests were journaled (did the client reach mockllm?)\n";
      return kExitUsage;
    }
    // A body mockllm's journal bounds cut cannot be judged by its content,
    // nor a client by a journal that lost some of its requests.
    if (auto why = UnjudgeableJournal(obs.journal)) {
      std::cerr << "llmconform judge: " << journal_.string() << ": " << why->message
                << (why->body_cut
                        ? "; serve with --journal-whole-bodies to judge it\n"
                        : " for its limits; serve with a larger --journal-limit and "
                          "--journal-max-bytes (or POST /__admin/reset between clients) to judge "
                          "every request\n");
      return kExitUsage;
    }
    if (!outputs_.empty()) {
      auto text = ReadFile(outputs_);
      auto doc = text ? ParseJsonText(outputs_.string(), *text)
                      : std::expected<Json, Error>(std::unexpected(text.error()));
      if (!doc) {
        std::cerr << "llmconform judge: --outputs " << doc.error().message << '\n';
        return kExitUsage;
      }
      obs.outputs = std::move(*doc);
    }
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform judge: " << built.error().message << '\n';
      return kExitUsage;
    }
    RunOptions options;
    options.spec_dir = specs_.string();
    options.source_root = DefaultSourceRoot(specs_);
    options.tool_version = LLMCONFORM_VERSION;
    reports::RunResult run = JudgeObservation(*specs, *scenario, obs, options, fan);
    if (!reports_.WriteFiles("judge")) return 3;
    return run.ExitCode();
  }

 private:
  fs::path specs_ = DefaultSpecsDir();
  std::string scenario_;
  fs::path journal_;
  fs::path outputs_;
  ReportOptions reports_;
};

// ---- sse-check -------------------------------------------------------------

class SseCheckCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("url", url_,
                   "the event stream, e.g. http://127.0.0.1:8080/api/v1/messages/ID/events")
        ->required();
    app.add_option("--request-id", request_id_,
                   "the X-Request-Id the events must carry as request_id");
    app.add_option("--timeout-ms", timeout_ms_,
                   "give up when the stream has not ended this long after connecting (a total "
                   "deadline, however slowly bytes arrive)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--max-events", max_events_,
                   "stop reading after this many events (the stream is then judged unterminated)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--max-bytes", max_bytes_,
                   "stop reading after this many body bytes (judged unterminated)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--specs", specs_, "folder of specs/ (for the rule catalogue in reports)")
        ->capture_default_str();
    reports_.Setup(app);
    app.footer(
        "Connects to any GymBro-style event stream (status, content_delta, heartbeat, completed | "
        "error),\n"
        "applies every event-contract rule (specs/gymbro) and validates the joined reply as "
        "ThinkingML\n"
        "(specs/thinkingml). Exit 0 conformant, 1 a rule broken, 3 the stream could not be read.");
  }

  int Run() override {
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform sse-check: " << built.error().message << '\n';
      return kExitUsage;
    }
    SseCheckOptions options;
    if (!request_id_.empty()) options.request_id = request_id_;
    options.timeout = std::chrono::milliseconds(timeout_ms_);
    options.limits = {.max_events = max_events_, .max_bytes = max_bytes_};
    reports::RunResult run;
    run.tool_version = LLMCONFORM_VERSION;
    if (auto specs = LoadSpecs(specs_)) {
      for (const char* p : {"gymbro", "thinkingml"}) {
        if (auto it = specs->rules.find(p); it != specs->rules.end()) {
          run.rules.insert(run.rules.end(), it->second.begin(), it->second.end());
        }
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    fan.OnRunStart(reports::RunStartInfo{
        .tool_version = run.tool_version, .scenario_count = 1, .spec_dir = specs_.string()});
    reports::ScenarioResult result = SseCheck(url_, options);
    fan.OnScenarioStart(result.info);
    for (const auto& c : result.checks) fan.OnCheckResult(result.info, c);
    fan.OnScenarioEnd(result);
    run.scenarios.push_back(std::move(result));
    run.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fan.OnRunEnd(run);
    if (!reports_.WriteFiles("sse-check")) return 3;
    return run.ExitCode();
  }

 private:
  std::string url_;
  std::string request_id_;
  long long timeout_ms_ = 120000;
  std::size_t max_events_ = StreamLimits{}.max_events;
  std::size_t max_bytes_ = StreamLimits{}.max_bytes;
  fs::path specs_ = DefaultSpecsDir();
  ReportOptions reports_;
};

// ---- list ------------------------------------------------------------------

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

// ---- ref -------------------------------------------------------------------

class RefCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("operation", op_, "the operation, e.g. multiturn.buildLLMMessages");
    app.add_flag("--list", list_, "print every operation with a one-line description");
    app.add_flag("--schema", schema_,
                 "print the operation's JSON Schemas of input and output, with its verdict "
                 "fields (\"compare\"), from specs/oracle/OP.json");
    app.add_option("--specs", specs_, "folder of specs/ (for --schema)")->capture_default_str();
    app.add_flag("--serve", serve_,
                 "answer JSON lines as a `llmconform check` SUT does ({\"id\",\"op\",\"input\"} "
                 "-> {\"id\",\"output\"|\"error\"}) until stdin ends");
    app.footer(
        "Reads one JSON document on stdin and writes the result on stdout.\n"
        "Exit 0 with a result (also when the input is invalid for the protocol: the result says "
        "so);\n"
        "exit 2 with {\"error\": \"stdin:LINE:COL: ...\"} on stderr for malformed JSON (also "
        "invalid\n"
        "UTF-8, a number beyond double's range, nesting deeper than 512), a missing or mistyped "
        "field,\n"
        "or an unknown operation.\n\n"
        "Example:\n"
        "  echo '{\"text\":\"介绍林默\"}' | llmconform ref multiturn.estimateMessageTokens\n"
        "  {\"tokens\":3}");
  }

  int Run() override {
    if (list_) {
      std::size_t width = 0;
      for (const auto& op : OracleOperations()) width = std::max(width, op.name.size());
      for (const auto& op : OracleOperations()) {
        std::cout << op.name << std::string(width + 2 - op.name.size(), ' ') << op.summary << '\n';
      }
      return kExitOk;
    }
    if (serve_) {
      std::ios::sync_with_stdio(false);
      return ServeOracle(std::cin, std::cout);
    }
    if (op_.empty()) {
      std::cerr << "llmconform ref: name an operation (see `llmconform ref --list`)\n";
      return kExitUsage;
    }
    if (schema_) {
      if (!FindOracleOperation(op_)) {
        std::cerr << "llmconform ref: unknown operation \"" << op_
                  << "\"; `llmconform ref --list` lists them\n";
        return kExitUsage;
      }
      auto schema = check::LoadOpSchema(specs_, op_);
      if (!schema) {
        std::cerr << "llmconform ref --schema: " << schema.error().message << '\n';
        return kExitUsage;
      }
      std::cout << schema->doc.dump(2) << '\n';
      return kExitOk;
    }
    return RunOracle(op_, std::cin, std::cout, std::cerr);
  }

 private:
  std::string op_;
  bool list_ = false;
  bool schema_ = false;
  bool serve_ = false;
  fs::path specs_ = "specs";
};

// ---- check -----------------------------------------------------------------

class CheckCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--sut", options_.sut_command,
                   "the implementation under test, run as /bin/sh -c CMD: JSON lines on stdin "
                   "({\"id\",\"op\",\"input\"}), JSON lines on stdout ({\"id\",\"output\"} or "
                   "{\"id\",\"error\"})")
        ->required();
    std::string ops;
    for (const auto& op : check::GeneratedOps()) ops += (ops.empty() ? "" : ", ") + op;
    app.add_option("--op", options_.ops, "operation to check, repeatable; with generators: " + ops)
        ->required();
    app.add_option("--cases", options_.cases, "inputs generated per op")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    seed_option_ =
        app.add_option("--seed", seed_, "generation seed (default: from the clock; printed)");
    app.add_option("--time-limit", options_.time_limit_s,
                   "seconds of generation per op at most (0: no limit)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--case-timeout-ms", timeout_ms_, "per-case time limit for the SUT's answer")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--pipeline", options_.window,
                   "requests in flight to the SUT at most (1: one at a time)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--corpus", options_.corpus,
                   "folder of saved failing cases: replayed first, new failures saved into it");
    app.add_option("--compare", options_.compare,
                   "verdict fields to compare, as JSON pointers ('*' maps over an array); "
                   "default: the op's \"compare\" in specs/oracle/OP.json");
    app.add_option("--max-failures", options_.max_failures,
                   "groups of disagreements reported and shrunk")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--replay", options_.replay,
                   "run only these saved cases (files or folders), no generation");
    app.add_flag("--coverage", coverage_,
                 "print, per op, which rules the generated cases exercised in the reference");
    app.add_option("--specs", options_.specs_dir, "folder of specs/ (rules, oracle schemas)")
        ->capture_default_str();
    reports_.Setup(app);
    expected_failures_.Setup(app);
    app.footer(
        "Differential property testing: inputs generated per op are sent to the SUT (pipelined)\n"
        "and to the reference; verdict fields are compared; each group of disagreements (deciding\n"
        "rule, differing pointers) is shrunk to a minimal input and saved as a --replay file.\n"
        "A SUT that crashes, hangs, prints garbage or answers out of order is reported with the\n"
        "case that caused it and restarted. Exit 0 all agree, 1 a disagreement, 2 usage error.\n\n"
        "Example:\n"
        "  llmconform check --sut 'python3 examples/check_adapter.py' --op action.parse --cases "
        "5000");
  }

  int Run() override {
    options_.seed = seed_option_->count() > 0
                        ? seed_
                        : static_cast<std::uint64_t>(
                              std::chrono::system_clock::now().time_since_epoch().count());
    options_.case_timeout = std::chrono::milliseconds(timeout_ms_);
    options_.failures_dir = reports_.out() / "check-cases";
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform check: " << built.error().message << '\n';
      return kExitUsage;
    }
    if (!expected_failures_.Load("check")) return kExitUsage;
    std::cerr << "llmconform check: seed " << options_.seed << '\n';
    auto report = check::RunCheck(options_, std::cerr);
    if (!report) {
      std::cerr << "llmconform check: " << report.error().message << '\n';
      return kExitUsage;
    }
    std::vector<reports::RuleInfo> catalog;
    if (auto specs = LoadSpecs(options_.specs_dir)) {
      for (const auto& [protocol, rules] : specs->rules)
        catalog.insert(catalog.end(), rules.begin(), rules.end());
    }
    reports::RunResult run = check::ToRunResult(*report, catalog);
    run.tool_version = LLMCONFORM_VERSION;
    run.started_at = UtcTimestamp(std::time(nullptr));
    if (const reports::ExpectedFailures* expected = expected_failures_.get()) {
      for (auto& s : run.scenarios) reports::ApplyExpectedFailures(*expected, s);
    }
    fan.OnRunStart(reports::RunStartInfo{.tool_version = run.tool_version,
                                         .started_at = run.started_at,
                                         .scenario_count = static_cast<int>(run.scenarios.size()),
                                         .spec_dir = options_.specs_dir.string()});
    for (const auto& s : run.scenarios) {
      fan.OnScenarioStart(s.info);
      for (const auto& c : s.checks) fan.OnCheckResult(s.info, c);
      fan.OnScenarioEnd(s);
    }
    fan.OnRunEnd(run);
    if (coverage_) std::cout << check::CoverageText(*report);
    std::cerr << "llmconform check: " << report->cases << " case(s) in " << report->seconds
              << " s (" << static_cast<long long>(report->cases / std::max(report->seconds, 1e-9))
              << " cases/s), " << report->sut_restarts << " SUT restart(s), seed " << options_.seed
              << '\n';
    if (!reports_.WriteFiles("check")) return 3;
    // With a baseline, expected disagreements pass and stale entries fail.
    if (expected_failures_.get()) return run.ExitCode();
    return report->AnyDisagreement() ? 1 : kExitOk;
  }

 private:
  check::CheckOptions options_;
  std::uint64_t seed_ = 0;
  CLI::Option* seed_option_ = nullptr;
  long long timeout_ms_ = 10000;
  bool coverage_ = false;
  ReportOptions reports_;
  ExpectedFailuresOption expected_failures_;
};

// ---- dialect (harness/dialect_cmd.h) --------------------------------------

class DialectCommand final : public Command {
 public:
  void Setup(CLI::App& app) override { SetupDialect(app, args_); }
  int Run() override { return RunDialect(args_); }

 private:
  DialectArgs args_;
};

// ---- probe (harness/probe.h) -----------------------------------------------

class ProbeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override { SetupProbe(app, args_); }
  int Run() override { return RunProbe(args_); }

 private:
  ProbeArgs args_;
};

template <typename T>
std::unique_ptr<Command> Make() {
  return std::make_unique<T>();
}

constexpr CommandKind kCommands[] = {
    {"run", "Run the conformance scenarios and write reports", &Make<RunCommand>},
    {"merge", "Merge shard reports (run --shard K/N) into the reports of one run",
     &Make<MergeCommand>},
    {"judge", "Judge another implementation's traffic (a mockllm journal) by a scenario's rules",
     &Make<JudgeCommand>},
    {"sse-check", "Judge a live GymBro-style SSE event stream by the gymbro and thinkingml rules",
     &Make<SseCheckCommand>},
    {"list", "List scenarios (or, with --rules, the rule catalogue)", &Make<ListCommand>},
    {"ref", "Call a reference operation: JSON on stdin, JSON on stdout", &Make<RefCommand>},
    {"check",
     "Differential property testing of your implementation (JSON lines) against the reference",
     &Make<CheckCommand>},
    {"dialect", "List the provider deviations each recorded exchange shows", &Make<DialectCommand>},
    {"probe", "Probe a live OpenAI-compatible endpoint: its features and deviations",
     &Make<ProbeCommand>},
};

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{
      "llmconform — record/replay conformance for LLM conversation protocols over "
      "OpenAI-compatible Chat "
      "Completions.\n\nIt replays recorded traces with mockllm, drives each protocol's reference "
      "client against "
      "them, evaluates every rule of specs/<protocol>/rules.json, and writes reports.",
      "llmconform"};
  app.set_version_flag("--version", "llmconform " LLMCONFORM_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  llmconform run                         all bundled scenarios; reports in out/reports/\n"
      "  llmconform run --filter 'multiturn/*'  one protocol\n"
      "  llmconform run -j 4 --shard 1/2        half of them, four at a time\n"
      "  llmconform merge a/report.json b/report.json --out merged\n"
      "                                         one run's reports from shard reports\n"
      "  llmconform list --rules                every rule, with the code that decides it\n"
      "  llmconform judge --scenario multiturn/s1-standard-assembly --journal j.json\n"
      "                                         judge your own client's traffic\n"
      "  llmconform ref --list                  the JSON oracle's operations\n"
      "  llmconform sse-check URL --request-id ID   judge a live GymBro event stream\n"
      "  llmconform probe --base-url URL --model M  an endpoint's features and deviations\n\n"
      "Exit codes: 0 all conformant, 1 conformance failures, 2 usage or input error, 3 harness "
      "failure.");
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  for (const auto& kind : kCommands) {
    CLI::App* sub = app.add_subcommand(kind.name, kind.description);
    auto command = kind.make();
    command->Setup(*sub);
    commands.emplace_back(sub, std::move(command));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  for (auto& [sub, command] : commands) {
    if (sub->parsed()) return command->Run();
  }
  return kExitUsage;
}

}  // namespace llmconform::harness
