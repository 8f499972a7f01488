// Runs scenarios: for each, replay its trace with an in-process mockllm on an
// ephemeral loopback port, drive the protocol's reference client against it,
// check the observation, and tell the reporter as results arrive.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/scenario.h"
#include "harness/shard.h"
#include "harness/suite.h"
#include "mockllm/journal_entry.h"
#include "reports/expected_failures.h"
#include "reports/reporter.h"
#include "reports/result.h"

namespace llmconform::harness {

struct RunOptions {
  std::string spec_dir = "specs";           // as the user gave it, for reports
  std::filesystem::path source_root = ".";  // scenario "trace" paths are relative to it
  std::string filter;                       // glob on "<protocol>/<name>"; "" = all
  double speed = 0;                         // mockllm --speed: 0 replays streams without waiting
  std::string tool_version;
  // Scenarios run at once (each with its own mockllm server and scratch
  // folder); reporters still see them one by one in spec order, so reports
  // equal a jobs = 1 run's apart from timings.
  int jobs = 1;
  std::optional<Shard> shard;  // run only this slice of the filtered scenarios
  Timings timings;             // durations for balancing shards (empty: by name hash)
  std::string spec_hash;       // SpecSetHash of the specs, written into the report
  // run --client-cmd: the user's client instead of the reference driver
  // (harness/client_cmd.h); "" = the reference.
  std::string client_cmd;
  std::chrono::milliseconds client_timeout{60000};
  // run --profile client with a client command: each scenario's evidence
  // (harness/client_cmd.h, WriteClientEvidence) goes to a folder of its own
  // here; "" = none kept.
  std::filesystem::path evidence_dir;
  // run --dialects: every scenario with a trace runs once per dialect, its
  // replies rewritten into it (mockllm/dialect_rewrite.h), the dialect in its
  // result; scenarios without a trace run once. Empty: a plain run.
  std::vector<std::string> dialects;
  // run --expected-failures: applied to each scenario's result before any
  // reporter sees it (reports/expected_failures.h); null: none. Not owned.
  const reports::ExpectedFailures* expected_failures = nullptr;
};

// True when "<protocol>/<name>" matches one of the comma-separated globs of
// `filter` (fnmatch; a glob without '/' also matches the protocol alone or the
// name alone); "" matches every scenario.
bool MatchesFilter(const Scenario& scenario, std::string_view filter);

// True when the scenario belongs to `profile`: "client" the client profile's
// (specs/client/), "protocols" every other one, "" any.
bool InProfile(const Scenario& scenario, std::string_view profile);

// The journal as the protocol rules read it: an entry whose next entry
// carries the same request body is left out, so a refused attempt and its
// retry are one turn, whatever the refusal looked like (a 429, or a 200 with
// an error body as OpenRouter sends; docs/protocols.md, "Rate limits").
// Anything that is not an array is returned as it is; never throws. The
// request gate reads the whole journal, so a client that sends a request
// twice unasked still fails there.
Json JournalTurns(const Json& journal);

// Why mockllm's journal cannot ground a judgement of every request, or
// nothing when it can: its limits dropped entries ("dropped_before": "mockllm's
// journal dropped N request(s) before seq S"), or its bounds cut a body
// ("body_cut": "the body of request seq S was cut by mockllm's journal
// bounds"). The caller adds what to do about it. Never throws.
struct UnjudgeableReason {
  std::string message;
  bool body_cut = false;  // else entries were dropped
};
std::optional<UnjudgeableReason> UnjudgeableJournal(const Json& journal);

// The protocol of the client profile (specs/client/): its journal entries
// carry what mockllm sent (harness/replies_sent.h, AnnotateReplies).
inline constexpr std::string_view kClientProfile = "client";

// One scenario's observation, as a run makes it: the scenario's trace (if it
// names one) replayed by an in-process mockllm on an ephemeral loopback port
// at `speed`, `suite` driven against it with `work_dir` as its scratch
// folder, and mockllm's journal attached. Trace paths are relative to
// `source_root`. With a `dialect`, replies are rewritten into it and the
// reasoning fields a client echoes back in later requests (reasoning_content,
// reasoning, reasoning_details of messages) are left out of request matching.
// For a scenario of the client profile, each journal entry gets the reply
// mockllm sent for it (AnnotateReplies).
// Errors say which step failed ("trace …: …", "mockllm could
// not start: …", "the driver threw: …", "the driver could not run the
// scenario: …").
std::expected<Observation, Error> ObserveScenario(ProtocolSuite& suite, const Scenario& s,
                                                  const std::filesystem::path& source_root,
                                                  const std::filesystem::path& work_dir,
                                                  double speed = 0,
                                                  const std::string& dialect = "");

// Every rule of `s` as an Error carrying `message` (a scenario that could not
// be driven or judged).
std::vector<reports::CheckResult> ErrorsForAll(const Scenario& s, const std::string& message);

// The checks of `s` on an observation made by another implementation (judge,
// run --client-cmd): the suite's rules on JournalTurns of the journal — a
// rule the suite leaves out is an Error, a check that throws makes every rule
// an Error — then the request gate (harness/gate_checks.h) on the whole
// journal, with the requests the scenario's trace expects under
// `source_root`. Never throws.
std::vector<reports::CheckResult> JudgeChecks(const Scenario& s, const Observation& observation,
                                              const std::filesystem::path& source_root);

// Runs every scenario of `specs` that matches the filter. Never throws: a
// scenario that cannot run (a missing trace, a suite that failed) yields
// Error results for its rules, and the run goes on.
reports::RunResult RunScenarios(const SpecSet& specs, const RunOptions& options,
                                reports::Reporter& reporter);

// Judges an observation made elsewhere — another implementation's traffic,
// captured in mockllm's journal — by the scenario's rules, with no driving.
// Reported like a run of that one scenario.
reports::RunResult JudgeObservation(const SpecSet& specs, const Scenario& scenario,
                                    const Observation& observation, const RunOptions& options,
                                    reports::Reporter& reporter);

// Reads a journal (mockllm/journal_entry.h: the one reader of its JSON form).
using mockllm::ParseJournal;

}  // namespace llmconform::harness
