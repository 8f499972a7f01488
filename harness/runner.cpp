#include "harness/runner.h"

#include <fnmatch.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <set>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/client_cmd.h"
#include "harness/gate_checks.h"
#include "harness/parallel.h"
#include "harness/replies_sent.h"
#include "harness/requests_sent.h"
#include "harness/scratch_dir.h"
#include "harness/suites/registry.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/server.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
namespace fs = std::filesystem;

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

reports::ScenarioInfo InfoOf(const Scenario& s, const fs::path& source_root) {
  reports::ScenarioInfo info;
  info.protocol = s.protocol;
  info.name = s.name;
  info.description = s.description;
  std::error_code ec;
  const fs::path rel = fs::relative(s.file, source_root, ec);
  info.file = (ec || rel.empty() ? s.file : rel).generic_string();
  info.trace = s.trace;
  info.provider = s.raw.value("provider", "");
  // Tags and client features (validated by the loader) label matrix columns.
  for (const char* key : {"features", "tags"}) {
    if (!s.raw.contains(key) || !s.raw[key].is_array()) continue;
    for (const auto& t : s.raw[key])
      if (t.is_string()) info.tags.push_back(t.get<std::string>());
  }
  return info;
}

// Every rule the scenario names must be judged: one the suite left out is an Error.
void CompleteChecks(const Scenario& s, std::vector<CheckResult>& checks) {
  std::set<std::string> judged;
  for (const auto& c : checks) judged.insert(c.rule);
  for (const auto& rule : s.rules) {
    if (!judged.contains(rule)) {
      checks.push_back(CheckResult::Error(
          rule, Format("the {} suite reported no result for this rule", s.protocol)));
    }
  }
}

std::vector<CheckResult> CheckObservation(const ProtocolSuite& suite, const Scenario& s,
                                          const Observation& raw) {
  Observation obs{.outputs = raw.outputs, .journal = JournalTurns(raw.journal)};
  std::vector<CheckResult> checks;
  try {
    checks = suite.Check(s, obs);
  } catch (const std::exception& e) {
    return ErrorsForAll(s, Format("a check threw: {}", e.what()));
  }
  CompleteChecks(s, checks);
  return checks;
}

}  // namespace

std::vector<CheckResult> ErrorsForAll(const Scenario& s, const std::string& message) {
  std::vector<CheckResult> out;
  for (const auto& rule : s.rules) out.push_back(CheckResult::Error(rule, message));
  return out;
}

std::optional<UnjudgeableReason> UnjudgeableJournal(const Json& journal) {
  for (const SentRequest& r : ReadRequestsSent(journal)) {
    const std::string seq = r.read.seq ? std::to_string(*r.read.seq) : "null";
    if (r.read.dropped_before) {
      return UnjudgeableReason{Format("mockllm's journal dropped {} request(s) before seq {}",
                                      *r.read.dropped_before, seq)};
    }
    if (r.entry().body_cut)
      return UnjudgeableReason{
          Format("the body of request seq {} was cut by mockllm's journal bounds", seq), true};
  }
  return std::nullopt;
}

Json JournalTurns(const Json& journal) {
  if (!journal.is_array()) return journal;
  const std::vector<SentRequest> requests = ReadRequestsSent(journal);
  Json turns = Json::array();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const SentRequest& r = requests[i];
    if (r.IsAdmin()) continue;  // judged by the request gate alone
    if (i + 1 < requests.size() && !r.body().is_null() && requests[i + 1].body() == r.body())
      continue;
    turns.push_back(*r.json);
  }
  return turns;
}

std::expected<Observation, Error> ObserveScenario(ProtocolSuite& suite, const Scenario& s,
                                                  const fs::path& source_root,
                                                  const fs::path& work_dir, double speed,
                                                  const std::string& dialect) {
  DriveContext ctx{.llm_base_url = "", .source_root = source_root, .work_dir = work_dir};
  if (const mockllm::Dialect* d = mockllm::FindDialect(dialect)) {
    const auto ids = d->Ids();
    ctx.inline_reasoning =
        std::find(ids.begin(), ids.end(), "DIA-THINK-TAGS-IN-CONTENT") != ids.end();
  }
  std::unique_ptr<mockllm::Server> server;
  std::optional<mockllm::Trace> replayed;  // kept for the client profile's reading of the replies
  if (!s.trace.empty()) {
    auto trace = mockllm::LoadTraceFile(source_root / s.trace);
    if (!trace)
      return std::unexpected(
          Error{Format("trace {}: {}", s.trace, trace.error().message), trace.error().kind});
    const std::string trace_id = trace->id;
    mockllm::ServerOptions server_options;  // 127.0.0.1:0, strict matching
    server_options.speed = speed;
    // One scenario's client: two workers at once, more started while both are
    // busy (32, mockllm serve's default, were started and joined per scenario).
    server_options.listen.threads = 2;
    // The rules judge every request by its whole body.
    server_options.journal_whole_bodies = true;
    server_options.journal_max_bytes = std::numeric_limits<std::size_t>::max();
    // The client must not change what judges it (reset the journal, unload
    // or replace the trace): the admin API is closed (GATE-ADMIN-REQUEST).
    server_options.admin_api = false;
    if (!dialect.empty()) {
      server_options.dialect = dialect;
      for (const char* field : {"reasoning_content", "reasoning", "reasoning_details"})
        server_options.ignore_paths.push_back(Format("/messages/*/{}", field));
    }
    if (s.protocol == kClientProfile) {
      // The client profile judges what a client read, not how its SDK shapes
      // a request: the API's default values and a tool's `strict` flag (SDKs
      // differ in sending them) are left out of matching.
      server_options.pinned_match = mockllm::MatchMode::kSdk;
      server_options.ignore_paths.emplace_back("/tools/*/function/strict");
      replayed = *trace;
    }
    std::vector<mockllm::Trace> traces;
    traces.push_back(std::move(*trace));
    auto started = mockllm::Server::Start(std::move(traces), server_options);
    if (!started)
      return std::unexpected(Error{Format("mockllm could not start: {}", started.error().message),
                                   started.error().kind});
    server = std::move(*started);
    ctx.llm_base_url = server->TraceBaseUrl(trace_id);
  }
  std::expected<Observation, Error> obs;
  try {
    obs = suite.Drive(s, ctx);
  } catch (const std::exception& e) {
    return std::unexpected(Error::Internal(Format("the driver threw: {}", e.what())));
  }
  if (!obs) {
    return std::unexpected(
        Error{Format("the driver could not run the scenario: {}", obs.error().message),
              obs.error().kind});
  }
  if (server) {
    obs->journal = server->Journal();
    server->Stop();
    if (replayed) AnnotateReplies(obs->journal, *replayed, dialect);
    // The rules judge every request: a journal that lost some is no ground.
    if (auto why = UnjudgeableJournal(obs->journal)) {
      return std::unexpected(
          Error{Format("{} for its limit of {} entries, so the client's requests cannot all be "
                       "judged",
                       why->message, mockllm::ServerOptions{}.journal_limit)});
    }
  }
  return obs;
}

namespace {

// Drives one scenario; the checks it yields are in the suite's order.
std::vector<CheckResult> RunOne(const Scenario& s, const RunOptions& options,
                                const std::string& dialect) {
  const SuiteKind* kind = FindSuite(s.protocol);
  if (!kind) return ErrorsForAll(s, Format("no suite drives protocol \"{}\"", s.protocol));
  std::unique_ptr<ProtocolSuite> suite = kind->make();

  ScratchDir scratch;
  if (scratch.path().empty())
    return ErrorsForAll(s, "cannot create a scratch folder in the temp directory");
  auto obs =
      ObserveScenario(*suite, s, options.source_root, scratch.path(), options.speed, dialect);
  if (!obs) return ErrorsForAll(s, obs.error().message);
  return CheckObservation(*suite, s, *obs);
}

const std::string kNoDialect;

// The surface of `s`'s replies: a client-profile scenario names it; every
// other scenario replays Chat Completions.
wire::Surface SurfaceOfScenario(const Scenario& s) {
  if (s.protocol != kClientProfile) return wire::Surface::kChat;
  const nlohmann::json& surface = MemberOf(s.input, "surface");
  if (!surface.is_string()) return wire::Surface::kChat;
  return wire::SurfaceFromName(surface.get<std::string>()).value_or(wire::Surface::kChat);
}

// The row a client-profile scenario of the Responses, Messages or Gemini
// surface runs under in a run with --dialects that asks none of its
// surface's dialects (it runs once, its surface's own wire, labelled with
// that surface's canonical dialect: mockllm::CanonicalDialectName); "" for
// any other scenario.
std::string_view NativeWireOf(const Scenario& s) {
  const wire::Surface surface = SurfaceOfScenario(s);
  return surface == wire::Surface::kChat ? "" : mockllm::CanonicalDialectName(surface);
}

// The deviations of `dialect` that change the replies of `s`'s trace; empty
// when the trace cannot be read (the scenario's own error says why).
std::vector<std::string> DeviationsIn(const Scenario& s, const fs::path& source_root,
                                      const std::string& dialect) {
  const mockllm::Dialect* d = mockllm::FindDialect(dialect);
  if (!d || s.trace.empty()) return {};
  auto trace = mockllm::LoadTraceFile(source_root / s.trace);
  if (!trace) return {};
  return mockllm::DeviationsApplied(trace->exchanges, *d);
}

// The run skeleton shared by RunScenarios and JudgeObservation: checks_for
// runs on up to options.jobs threads, the reporter hears of each scenario in
// `selected` order on this thread.
// `dialects`: empty, or the dialect of each selected scenario ("" for none);
// `labels`: the name its results carry instead, where not "".
template <typename ChecksFor>
reports::RunResult Run(const SpecSet& specs, const std::vector<const Scenario*>& selected,
                       const RunOptions& options, reports::Reporter& reporter, ChecksFor checks_for,
                       const std::vector<std::string>& dialects = {},
                       const std::vector<std::string>& labels = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  reports::RunResult run;
  run.tool_version = options.tool_version;
  run.started_at = UtcTimestamp(std::time(nullptr));
  run.spec_hash = options.spec_hash;
  if (options.shard) run.shard = FormatShard(*options.shard);
  for (const auto& [protocol, rules] : specs.rules)
    run.rules.insert(run.rules.end(), rules.begin(), rules.end());
  reporter.OnRunStart(reports::RunStartInfo{.tool_version = run.tool_version,
                                            .started_at = run.started_at,
                                            .scenario_count = static_cast<int>(selected.size()),
                                            .spec_dir = options.spec_dir});
  std::vector<reports::ScenarioResult> results(selected.size());
  // Written by work(i), moved into results[i].info by deliver(i): before(i)
  // may read results[i].info while work(i) runs.
  std::vector<std::vector<std::string>> deviations(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    results[i].info = InfoOf(*selected[i], options.source_root);
    if (i < dialects.size()) results[i].info.dialect = dialects[i];
    if (i < labels.size() && !labels[i].empty()) results[i].info.dialect = labels[i];
  }
  RunInOrder(
      selected.size(), options.jobs,
      [&](std::size_t i) {
        const auto st = std::chrono::steady_clock::now();
        const std::string& dialect = i < dialects.size() ? dialects[i] : kNoDialect;
        results[i].checks = checks_for(*selected[i], dialect);
        results[i].duration_ms = MsSince(st);
        const reports::Outcome o = results[i].Overall();
        if (!dialect.empty() && (o == reports::Outcome::kFail || o == reports::Outcome::kError))
          deviations[i] = DeviationsIn(*selected[i], options.source_root, dialect);
      },
      [&](std::size_t i) {
        reports::ScenarioResult& result = results[i];
        result.info.deviations = std::move(deviations[i]);
        if (options.expected_failures)
          reports::ApplyExpectedFailures(*options.expected_failures, result);
        for (const auto& c : result.checks) reporter.OnCheckResult(result.info, c);
        reporter.OnScenarioEnd(result);
        run.scenarios.push_back(std::move(result));
      },
      [&](std::size_t i) { reporter.OnScenarioStart(results[i].info); });
  run.duration_ms = MsSince(t0);
  reporter.OnRunEnd(run);
  return run;
}

}  // namespace

bool InProfile(const Scenario& s, std::string_view profile) {
  return profile.empty() || (s.protocol == kClientProfile) == (profile == kClientProfile);
}

namespace {

bool MatchesGlob(const Scenario& s, const std::string& glob) {
  const std::string full = s.protocol + "/" + s.name;
  if (fnmatch(glob.c_str(), full.c_str(), 0) == 0) return true;
  if (glob.find('/') == std::string::npos) {
    return fnmatch(glob.c_str(), s.protocol.c_str(), 0) == 0 ||
           fnmatch(glob.c_str(), s.name.c_str(), 0) == 0;
  }
  return false;
}

}  // namespace

bool MatchesFilter(const Scenario& s, std::string_view filter) {
  if (filter.empty()) return true;
  for (std::size_t begin = 0; begin <= filter.size();) {
    const std::size_t comma = std::min(filter.find(',', begin), filter.size());
    const std::string glob(filter.substr(begin, comma - begin));
    if (!glob.empty() && MatchesGlob(s, glob)) return true;
    begin = comma + 1;
  }
  return false;
}

reports::RunResult RunScenarios(const SpecSet& specs, const RunOptions& options,
                                reports::Reporter& reporter) {
  std::vector<const Scenario*> selected;
  for (const auto& s : specs.scenarios) {
    if (MatchesFilter(s, options.filter)) selected.push_back(&s);
  }
  if (options.shard) selected = SelectShard(selected, *options.shard, options.timings);
  std::vector<std::string> dialects, labels;
  if (!options.dialects.empty()) {
    // Each scenario with a trace once per asked dialect of its own surface
    // (a dialect rewrites the replies of one surface), dialect by dialect;
    // then, once each, those without a trace and those no asked dialect
    // rewrites (a client-profile scenario of another surface than Chat then
    // carries its surface's provider as its row).
    std::vector<const Scenario*> expanded;
    std::set<wire::Surface> asked;
    for (const std::string& d : options.dialects) {
      const mockllm::Dialect* dialect = mockllm::FindDialect(d);
      const wire::Surface surface = dialect ? dialect->surface : wire::Surface::kChat;
      asked.insert(surface);
      for (const Scenario* s : selected) {
        if (s->trace.empty() || SurfaceOfScenario(*s) != surface) continue;
        expanded.push_back(s);
        dialects.push_back(d);
      }
    }
    labels.resize(expanded.size());
    for (const Scenario* s : selected) {
      if (!s->trace.empty() && asked.contains(SurfaceOfScenario(*s))) continue;
      expanded.push_back(s);
      dialects.emplace_back();
      labels.emplace_back(NativeWireOf(*s));
    }
    selected = std::move(expanded);
  }
  return Run(
      specs, selected, options, reporter,
      [&](const Scenario& s, const std::string& dialect) {
        if (options.client_cmd.empty()) return RunOne(s, options, dialect);
        const std::string row = options.dialects.empty() ? "" : std::string(NativeWireOf(s));
        return RunClientScenario(s, options, dialect, row);
      },
      dialects, labels);
}

reports::RunResult JudgeObservation(const SpecSet& specs, const Scenario& scenario,
                                    const Observation& observation, const RunOptions& options,
                                    reports::Reporter& reporter) {
  return Run(specs, {&scenario}, options, reporter, [&](const Scenario& s, const std::string&) {
    return JudgeChecks(s, observation, options.source_root);
  });
}

std::vector<CheckResult> JudgeChecks(const Scenario& s, const Observation& observation,
                                     const fs::path& source_root) {
  const SuiteKind* kind = FindSuite(s.protocol);
  if (!kind) return ErrorsForAll(s, Format("no suite judges protocol \"{}\"", s.protocol));
  auto checks = CheckObservation(*kind->make(), s, observation);
  auto gate = RequestGateChecks(observation.journal, ExpectedRequests(s, source_root));
  checks.insert(checks.end(), gate.begin(), gate.end());
  return checks;
}

}  // namespace llmconform::harness
