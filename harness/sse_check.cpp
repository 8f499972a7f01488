#include "harness/sse_check.h"

#include <algorithm>
#include <map>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/utf8.h"
#include "protocols/thinkingml/thinkingml.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/sse.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::Evidence;

constexpr std::size_t kMaxResultsPerRule = 5;

constexpr std::string_view kTransportRule = "GYMBRO-6.16";
constexpr std::string_view kErrorIsFailureRule = "GYMBRO-7.4";

std::vector<std::string_view> MakeStreamRuleIds() {
  std::vector<std::string_view> ids(std::begin(gymbro::kEventRuleIds),
                                    std::end(gymbro::kEventRuleIds));
  ids.push_back(kTransportRule);
  ids.push_back(kErrorIsFailureRule);
  return ids;
}

bool Contains(std::span<const std::string> v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// One rule's results from its breaches: Pass when none (and none expected),
// one result per breach otherwise, capped.
struct Breach {
  std::string message;
  std::string where;
  bool warning = false;  // of a "should" rule: reported, never failed
};

void AddRuleResults(std::vector<CheckResult>& out, std::string_view rule,
                    const std::vector<Breach>& breaches, bool expected_violation,
                    std::string_view pass_message) {
  const std::string id(rule);
  if (expected_violation) {
    if (breaches.empty()) {
      out.push_back(CheckResult::Fail(
          id, Format("the scenario breaks {} on purpose, but it was not reported", id),
          Evidence{Format("a {} finding", id), "none", "/stream"}));
    } else {
      out.push_back(CheckResult::Pass(
          id, Format("reported as the scenario intends: {}", breaches[0].message)));
    }
    return;
  }
  if (breaches.empty()) {
    out.push_back(CheckResult::Pass(id, std::string(pass_message)));
    return;
  }
  for (std::size_t i = 0; i < breaches.size() && i < kMaxResultsPerRule; ++i) {
    std::string message = breaches[i].message;
    if (i + 1 == kMaxResultsPerRule && breaches.size() > kMaxResultsPerRule) {
      message += Format(" (and {} more)", breaches.size() - kMaxResultsPerRule);
    }
    if (breaches[i].warning) {
      out.push_back(CheckResult::Pass(id, "warning: " + message));
    } else {
      out.push_back(CheckResult::Fail(
          id, message, Evidence{Format("no breach of {}", id), message, breaches[i].where}));
    }
  }
}

std::string TransportProblem(const CapturedStream& s) {
  if (s.status != 200) return Format("the event stream answered HTTP {}, expected 200", s.status);
  if (!s.content_type.starts_with("text/event-stream")) {
    return Format("the event stream has content-type \"{}\", expected text/event-stream",
                  s.content_type);
  }
  return "";
}

}  // namespace

std::span<const std::string_view> StreamRuleIds() {
  static const std::vector<std::string_view> ids = MakeStreamRuleIds();
  return ids;
}

Json ToJson(const CapturedStream& s) {
  Json events = Json::array();
  for (const auto& e : s.events) {
    events.push_back({{"event", ToValidUtf8(e.event)}, {"data", ToValidUtf8(e.data)}});
  }
  return {{"url", s.url},
          {"status", s.status},
          {"contentType", s.content_type},
          {"events", std::move(events)},
          {"transportError", s.transport_error}};
}

std::expected<CapturedStream, Error> CapturedStreamFromJson(const Json& j) {
  // `j` is the observation's "stream": errors point from there.
  auto fail = [](std::string_view at, const Error& e) {
    return std::unexpected(e.Under(Format("/stream{}", at)));
  };
  if (auto ok = RequireObjectInput(j); !ok) return fail("", ok.error());
  CapturedStream s;
  auto url = OptionalString(j, "url");
  if (!url) return fail("", url.error());
  s.url = url->value_or("");
  auto status = RequireInt(j, "status");
  if (!status) return fail("", status.error());
  s.status = static_cast<int>(*status);
  auto ct = OptionalString(j, "contentType");
  if (!ct) return fail("", ct.error());
  s.content_type = ct->value_or("");
  auto te = OptionalString(j, "transportError");
  if (!te) return fail("", te.error());
  s.transport_error = te->value_or("");
  auto events = RequireArray(j, "events");
  if (!events) return fail("", events.error());
  for (std::size_t i = 0; i < events->size(); ++i) {
    const Json& e = (*events)[i];
    auto name = RequireString(e, "event");
    if (!name) return fail(Format("/events/{}", i), name.error());
    auto data = RequireString(e, "data");
    if (!data) return fail(Format("/events/{}", i), data.error());
    s.events.push_back({std::move(*name), std::move(*data)});
  }
  return s;
}

std::expected<CapturedStream, Error> CaptureEventStream(
    const std::string& url, const std::optional<std::string>& request_id,
    std::chrono::milliseconds timeout, const StreamLimits& limits, net::HttpClient& client) {
  net::HttpRequest request{"GET", url, {{"Accept", "text/event-stream"}}, ""};
  if (request_id) request.headers.emplace_back("X-Request-Id", *request_id);

  CapturedStream out;
  out.url = url;
  wire::SseParser parser;
  std::vector<wire::SseEvent> parsed;
  bool got_response = false;
  std::string limit_hit;
  std::size_t bytes = 0;
  auto result = client.Send(
      request, net::HttpTimeouts::All(timeout),
      {.on_head =
           [&](const net::HttpResponse& head) {
             got_response = true;
             out.status = head.status;
             auto ct = head.headers.find("content-type");
             out.content_type = ct == head.headers.end() ? "" : ct->second;
             return true;
           },
       .on_body =
           [&](std::string_view data) {
             bytes += data.size();
             if (bytes > limits.max_bytes) {
               limit_hit = Format("reading stopped after {} bytes: more than --max-bytes {}",
                                  bytes - data.size(), limits.max_bytes);
               return false;
             }
             parser.Feed(data, parsed);
             if (parsed.size() > limits.max_events) {
               parsed.resize(limits.max_events);
               limit_hit = Format("reading stopped after {} events: more than --max-events {}",
                                  limits.max_events, limits.max_events);
               return false;
             }
             return true;
           }});
  if (limit_hit.empty()) parser.Finish();
  for (auto& e : parsed) out.events.push_back({std::move(e.event), std::move(e.data)});
  if (!limit_hit.empty()) {
    out.transport_error = limit_hit;
  } else if (!result) {
    const net::HttpError& e = result.error();
    const bool timed_out = e.failure == net::HttpFailure::kTimeout;
    if (!got_response) {
      return std::unexpected(
          Error::Io(timed_out ? Format("GET {}: no response within {} ms", url, timeout.count())
                              : e.message));
    }
    out.transport_error =
        timed_out ? Format("reading stopped after {} ms: timed out", timeout.count()) : e.what;
  }
  return out;
}

std::vector<CheckResult> JudgeStream(const CapturedStream& stream,
                                     const StreamJudgeOptions& options,
                                     std::span<const std::string> rules) {
  std::vector<CheckResult> out;
  const gymbro::EventCheck check = gymbro::CheckEvents(stream.events, {options.request_id});
  std::map<std::string, std::vector<Breach>, std::less<>> breaches;
  for (const auto& f : check.findings) {
    std::string message = f.message;
    if (f.rule == "GYMBRO-6.8" && !stream.transport_error.empty()) {
      message += Format(" ({})", stream.transport_error);
    }
    breaches[f.rule].push_back(
        {std::move(message),
         f.event_index ? Format("/stream/events/{}", *f.event_index) : "/stream",
         f.severity == gymbro::Severity::kShould});
  }
  const bool completed = check.termination == gymbro::Termination::kCompleted;
  std::optional<thinkingml::Validation> validation;
  if (completed) validation = thinkingml::Validate(check.reply);

  for (const std::string& rule : rules) {
    const bool expected = Contains(options.violations, rule);
    if (rule == kTransportRule) {
      const std::string problem = TransportProblem(stream);
      std::vector<Breach> b;
      if (!problem.empty()) b.push_back({problem, "/stream"});
      AddRuleResults(out, rule, b, expected, "the event stream is served as 200 text/event-stream");
    } else if (rule == kErrorIsFailureRule) {
      if (options.expected_termination) {
        const gymbro::Termination want = *options.expected_termination;
        if (check.termination == want) {
          out.push_back(CheckResult::Pass(
              rule, Format("the stream ended with {} as the scenario expects{}",
                           gymbro::TerminationName(want),
                           want == gymbro::Termination::kError
                               ? Format(" ({}: {})", check.error_code, check.error_message)
                               : "")));
        } else {
          out.push_back(CheckResult::Fail(
              rule,
              Format("the stream ended with {}, the scenario expects {}",
                     gymbro::TerminationName(check.termination), gymbro::TerminationName(want)),
              Evidence{std::string(gymbro::TerminationName(want)),
                       std::string(gymbro::TerminationName(check.termination)), "/stream/events"}));
        }
      } else if (check.termination == gymbro::Termination::kError) {
        const std::string message = Format(
            "the stream ended with error {}: {} after {} content deltas; the reply is a failure",
            check.error_code, check.error_message, check.deltas);
        out.push_back(
            CheckResult::Fail(rule, message, Evidence{"completed", "error", "/stream/events"}));
      } else if (completed) {
        out.push_back(CheckResult::Pass(rule, "the stream completed; no error event"));
      } else {
        out.push_back(CheckResult::Skip(rule, "the stream has no terminal event (see GYMBRO-6.8)"));
      }
    } else if (rule.starts_with("GYMBRO-")) {
      if (std::find(std::begin(gymbro::kEventRuleIds), std::end(gymbro::kEventRuleIds), rule) ==
          std::end(gymbro::kEventRuleIds)) {
        continue;  // a rule of the service's behaviour: the suite judges it
      }
      auto it = breaches.find(rule);
      AddRuleResults(out, rule, it == breaches.end() ? std::vector<Breach>{} : it->second, expected,
                     Format("{} events, none breaks it", stream.events.size()));
    } else if (rule.starts_with("TML-")) {
      if (!validation) {
        out.push_back(CheckResult::Skip(
            rule, Format("the stream ended with {}, so there is no complete reply to validate",
                         gymbro::TerminationName(check.termination))));
        continue;
      }
      std::vector<Breach> b;
      for (const auto& f : validation->findings) {
        if (f.rule != rule) continue;
        b.push_back({Format("reply {}:{}: {}", f.position.line, f.position.column, f.message),
                     Format("/reply:{}:{}", f.position.line, f.position.column)});
      }
      AddRuleResults(
          out, rule, b, expected,
          Format("the joined reply ({} characters) keeps it", CountCodePoints(check.reply)));
    }
  }
  return out;
}

reports::ScenarioResult SseCheck(const std::string& url, const SseCheckOptions& options,
                                 net::HttpClient& client) {
  const auto t0 = std::chrono::steady_clock::now();
  reports::ScenarioResult result;
  result.info = {.protocol = "gymbro",
                 .name = "sse-check",
                 .description = Format("the GymBro event stream at {}", url),
                 .file = "",
                 .trace = "",
                 .provider = ""};
  std::vector<std::string> rules;
  for (std::string_view id : StreamRuleIds()) rules.emplace_back(id);
  for (std::string_view id : thinkingml::kReplyRuleIds) rules.emplace_back(id);
  auto stream =
      CaptureEventStream(url, options.request_id, options.timeout, options.limits, client);
  if (!stream) {
    for (const auto& rule : rules) {
      result.checks.push_back(CheckResult::Error(
          rule, Format("the stream could not be read: {}", stream.error().message)));
    }
  } else {
    result.checks = JudgeStream(*stream, {options.request_id, std::nullopt, {}}, rules);
  }
  result.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace llmconform::harness
