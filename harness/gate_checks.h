// The gate's own rules (specs/gate/rules.json): what makes a client's traffic
// acceptable before any protocol rule looks at it. `judge` and
// `run --client-cmd` add these checks to every scenario they judge.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "harness/suite.h"
#include "reports/result.h"

namespace llmconform::harness {

// The requests mockllm refused (GATE-REQUEST-MISMATCH, GATE-TRACE-EXHAUSTED,
// GATE-UNKNOWN-TRACE, GATE-REQUEST-REFUSED, GATE-ADMIN-REQUEST: one result
// each, Fail naming the first offending journal entry and how many there
// were) and the request count against `expected_requests`
// (GATE-TOO-FEW-REQUESTS, GATE-TOO-MANY-REQUESTS; Skip when nullopt, i.e. the
// scenario replays no trace). A request is a journal entry other than GET
// …/models and an admin request (the gated server journals those it refused,
// with the finding admin_request). Refusals are read from each entry's
// findings (harness/requests_sent.h: request_mismatch, trace_exhausted,
// unknown_trace, no_match, malformed_request, admin_request; not
// proxy_failed, client_disconnected, dialect_other_surface) and from an error status mockllm
// answered itself; a recorded error status replayed from the trace is not a
// refusal. An entry the journal's reader refuses counts as a request and
// refuses nothing.
std::vector<reports::CheckResult> RequestGateChecks(const Json& journal,
                                                    std::optional<std::size_t> expected_requests);

// How many exchanges the scenario's trace records (its "trace", relative to
// `source_root`); nullopt when it names none or it cannot be read (the
// protocol checks report that).
std::optional<std::size_t> ExpectedRequests(const Scenario& scenario,
                                            const std::filesystem::path& source_root);

}  // namespace llmconform::harness
