// `llmconform run --client-cmd CMD`: gates another team's client. Per client
// scenario, mockllm replays the scenario's trace in-process (pinned), the
// client runs as `/bin/sh -c CMD` with
//   OPENAI_BASE_URL     the pinned URL (…/t/<trace id>/v1)
//   OPENAI_API_KEY      "mockllm"
//   ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL  the same without its "/v1"
//                       (those SDKs add their API version)
//   ANTHROPIC_API_KEY, GEMINI_API_KEY  "mockllm"
//   LLMCONFORM_SCENARIO <protocol>/<name>
//   LLMCONFORM_INPUT    a JSON file: the scenario's "input" object
//   LLMCONFORM_OUTPUT   where the client writes a JSON object of what it
//                       produced (per protocol, docs/gate.md)
//   LLMCONFORM_TIMEOUT_MS  client profile, when the scenario gives the call a
//                       timeout (input.options.timeout_ms): the milliseconds
//                       the client gives its SDK's timeout option
//   LLMCONFORM_WORKSPACE toolcalls only: a folder holding pkg/ (@pkg),
//                       project/ (@project) and state/ (@state), prepared as
//                       for the reference driver (harness/suites/toolcalls_suite.h)
// and then the scenario's rules judge mockllm's journal and that output
// (mapped into the observation by harness/client_output.h; for toolcalls
// with what the run left in the workspace, read from disk), with
// the gate's rules (harness/gate_checks.h) and GATE-CLIENT-EXIT,
// GATE-CLIENT-TIMEOUT and GATE-CLIENT-OUTPUT.
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "reports/result.h"

namespace llmconform::harness {

// The most of LLMCONFORM_OUTPUT read: a longer file fails GATE-CLIENT-OUTPUT
// ("… longer than 67108864 bytes") rather than filling memory.
inline constexpr std::size_t kMaxClientOutputBytes = std::size_t{64} << 20;

// Whether --client-cmd gates the scenario: one with a trace; the others are
// skipped with the reason.
bool HasClientSide(const Scenario& scenario, std::string* why_not = nullptr);

// The folder of one client-profile scenario's evidence under
// `options.evidence_dir`: "<name>" or "<name>@<dialect>".
std::string EvidenceFolder(const Scenario& scenario, const std::string& dialect);

// Keeps what judged a client-profile scenario in `dir` (created):
//   sent.txt   every reply mockllm sent (the journal's "refused" and
//              "replied", harness/replies_sent.h), each after a line
//              "--- request N, attempt A: HTTP S content-type[, stream][, cut]"
//   read.json  the client's LLMCONFORM_OUTPUT as it wrote it (`output`; not
//              written when it wrote none)
// Error: a file could not be written.
std::expected<void, Error> WriteClientEvidence(const std::filesystem::path& dir,
                                               const Json& journal,
                                               const std::optional<std::string>& output);

// One scenario with the client command of `options`, its trace's replies
// rewritten into `dialect` ("" for none), judged as a run judges the
// reference client (JournalTurns, then the request gate). Its evidence is
// kept under EvidenceFolder(scenario, `row` when not "", else `dialect`): the
// name its results carry. Never throws.
std::vector<reports::CheckResult> RunClientScenario(const Scenario& scenario,
                                                    const RunOptions& options,
                                                    const std::string& dialect = "",
                                                    const std::string& row = "");

}  // namespace llmconform::harness
