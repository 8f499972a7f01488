#include "harness/gate_checks.h"

#include <array>
#include <string>
#include <string_view>

#include "base/format.h"
#include "base/json_fields.h"
#include "mockllm/trace.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

// The rule a journal finding of mockllm's belongs to; nullptr for findings
// that are not refusals (client_disconnected, a fault note).
const char* RefusalRule(std::string_view finding) {
  if (finding == "request_mismatch") return "GATE-REQUEST-MISMATCH";
  if (finding == "trace_exhausted") return "GATE-TRACE-EXHAUSTED";
  if (finding == "unknown_trace") return "GATE-UNKNOWN-TRACE";
  if (finding == "admin_request") return "GATE-ADMIN-REQUEST";
  if (finding == "no_match" || finding == "malformed_request" || finding == "unknown_route" ||
      finding == "unsupported_media_type" || finding == "body_too_large")
    return "GATE-REQUEST-REFUSED";
  return nullptr;
}

bool IsRequest(const Json& entry) {
  return !(StringOf(entry, "method", "") == "GET" &&
           StringOf(entry, "path", "").ends_with("/models"));
}

std::string Where(std::size_t i) { return Format("journal[{}]", i); }

}  // namespace

bool IsAdminEntry(const Json& entry) {
  const std::string path = StringOf(entry, "path", "");
  return path == "/__admin" || path.starts_with("/__admin/");
}

std::vector<CheckResult> RequestGateChecks(const Json& journal,
                                           std::optional<std::size_t> expected_requests) {
  struct Seen {
    const char* rule;
    const char* pass;
    std::size_t count = 0;
    std::size_t first = 0;
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
  const Json entries = journal.is_array() ? journal : Json::array();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Json& entry = entries[i];
    if (!IsRequest(entry)) continue;
    if (!IsAdminEntry(entry)) ++requests;
    if (!entry.is_object()) continue;
    auto note = [&](const char* rule, std::string message) {
      for (auto& s : seen) {
        if (std::string_view(s.rule) != rule) continue;
        if (s.count++ == 0) {
          s.first = i;
          s.message = std::move(message);
        }
      }
    };
    bool refused = false;
    if (const auto findings = entry.find("findings");
        findings != entry.end() && findings->is_array()) {
      for (const Json& f : *findings) {
        if (!f.is_object() || !f.contains("rule") || !f["rule"].is_string()) continue;
        const std::string& name = f["rule"].get_ref<const std::string&>();
        const char* rule = RefusalRule(name);
        if (!rule) continue;
        refused = true;
        const auto message = f.find("message");
        note(rule, message != f.end() && message->is_string() ? message->get<std::string>() : name);
      }
    }
    // An error mockllm made itself (nothing replayed) without a finding: an
    // unknown route, for one.
    const auto response = entry.find("response");
    if (!refused && response != entry.end() && response->is_object() &&
        !response->contains("outcome")) {
      const auto status = response->find("status");
      if (status != response->end() && status->is_number_integer() && status->get<int>() >= 400) {
        note("GATE-REQUEST-REFUSED",
             Format("mockllm answered {} {} with HTTP {}", StringOf(entry, "method", "?"),
                    StringOf(entry, "path", "?"), status->get<int>()));
      }
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
        reports::Evidence{.expected = "no refusal", .actual = s.message, .where = Where(s.first)}));
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
