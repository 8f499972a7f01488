#include "harness/gate_checks.h"

#include <array>
#include <string>
#include <string_view>

#include "base/format.h"
#include "harness/requests_sent.h"
#include "mockllm/trace.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

// The rule a journal finding of mockllm's belongs to; nullptr for findings
// that are not refusals (the client leaving, the upstream of --proxy failing,
// a dialect of another surface left unapplied).
const char* RefusalRule(mockllm::FindingKind kind) {
  using enum mockllm::FindingKind;
  switch (kind) {
    case kRequestMismatch:
      return "GATE-REQUEST-MISMATCH";
    case kTraceExhausted:
      return "GATE-TRACE-EXHAUSTED";
    case kUnknownTrace:
      return "GATE-UNKNOWN-TRACE";
    case kAdminRequest:
      return "GATE-ADMIN-REQUEST";
    case kNoMatch:
    case kMalformedRequest:
      return "GATE-REQUEST-REFUSED";
    case kProxyFailed:
    case kClientDisconnected:
    case kDialectOtherSurface:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

std::vector<CheckResult> RequestGateChecks(const Json& journal,
                                           std::optional<std::size_t> expected_requests) {
  struct Seen {
    const char* rule;
    const char* pass;
    std::size_t count = 0;
    std::size_t first = 0;
    std::string where;
    std::string message;
  };
  std::array<Seen, 5> seen = {{
      {"GATE-REQUEST-MISMATCH", "every request matched the recorded one at its position"},
      {"GATE-TRACE-EXHAUSTED", "no request came after the trace's last exchange"},
      {"GATE-UNKNOWN-TRACE", "every request went to a loaded trace"},
      {"GATE-REQUEST-REFUSED", "mockllm refused no request"},
      {"GATE-ADMIN-REQUEST", "the client sent nothing to mockllm's admin API"},
  }};
  std::size_t requests = 0;
  for (const SentRequest& r : ReadRequestsSent(journal)) {
    if (r.IsModelsList()) continue;
    if (!r.IsAdmin()) ++requests;
    auto note = [&](const char* rule, std::string message) {
      for (auto& s : seen) {
        if (std::string_view(s.rule) != rule) continue;
        if (s.count++ == 0) {
          s.first = r.index;
          s.where = r.Where();
          s.message = std::move(message);
        }
      }
    };
    const mockllm::JournalEntry& e = r.entry();
    bool refused = false;
    for (const mockllm::JournalFinding& f : e.findings) {
      const char* rule = RefusalRule(f.kind);
      if (!rule) continue;
      refused = true;
      note(rule, f.message);
    }
    // An error mockllm made itself (nothing replayed) without a finding: an
    // unknown route, for one.
    if (!refused && !e.replayed && e.status >= 400) {
      note("GATE-REQUEST-REFUSED",
           Format("mockllm answered {} {} with HTTP {}", e.method.empty() ? "?" : e.method,
                  e.path.empty() ? "?" : e.path, e.status));
    }
  }
  std::vector<CheckResult> out;
  for (const auto& s : seen) {
    if (s.count == 0) {
      out.push_back(CheckResult::Pass(s.rule, s.pass));
      continue;
    }
    out.push_back(CheckResult::Fail(
        s.rule,
        Format("mockllm refused {} request(s); the first, request {}: {}", s.count, s.first + 1,
               s.message),
        reports::Evidence{.expected = "no refusal", .actual = s.message, .where = s.where}));
  }
  if (!expected_requests) {
    for (const char* rule : {"GATE-TOO-FEW-REQUESTS", "GATE-TOO-MANY-REQUESTS"})
      out.push_back(CheckResult::Skip(rule, "the scenario replays no trace"));
    return out;
  }
  const std::size_t want = *expected_requests;
  const std::string counted =
      Format("the client sent {} request(s); the trace has {}", requests, want);
  const reports::Evidence evidence{.expected = Format("{} request(s)", want),
                                   .actual = Format("{} request(s)", requests),
                                   .where = "journal"};
  out.push_back(requests < want ? CheckResult::Fail("GATE-TOO-FEW-REQUESTS",
                                                    counted + ": it stopped early", evidence)
                                : CheckResult::Pass("GATE-TOO-FEW-REQUESTS", counted));
  out.push_back(requests > want
                    ? CheckResult::Fail("GATE-TOO-MANY-REQUESTS",
                                        counted + ": it sent more than recorded", evidence)
                    : CheckResult::Pass("GATE-TOO-MANY-REQUESTS", counted));
  return out;
}

std::optional<std::size_t> ExpectedRequests(const Scenario& scenario,
                                            const std::filesystem::path& source_root) {
  if (scenario.trace.empty()) return std::nullopt;
  auto trace = mockllm::LoadTraceFile(source_root / scenario.trace);
  if (!trace) return std::nullopt;
  return trace->exchanges.size();
}

}  // namespace llmconform::harness
