// Reading and judging a GymBro-style event stream (seed 002 §5–§7): the logic
// of `llmconform sse-check URL [--request-id ID]`, which gates any team's
// service by the same rules the reference is held to, and the stream checks
// of the gymbro and thinkingml suites.
//
// Judging applies every event-contract rule (GYMBRO-6.1 … 6.12, 6.15, 6.16,
// 7.3, 7.4) to the events, and, when the stream completed, every ThinkingML
// rule (TML-*) to the reply joined from its deltas. Rules of severity
// "should" never fail: a breach passes with a message starting "warning:".
#pragma once

#include <chrono>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "net/http_client.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "reports/result.h"

namespace llmconform::harness {

// What a GET of an event stream gave.
struct CapturedStream {
  std::string url;
  int status = 0;                           // HTTP status
  std::string content_type;                 // the content-type header, as sent
  std::vector<gymbro::StreamEvent> events;  // in arrival order (WHATWG SSE parsing)
  // Why reading stopped before the server ended the stream (a broken
  // connection, the timeout); "" when the server ended it.
  std::string transport_error;
  friend bool operator==(const CapturedStream&, const CapturedStream&) = default;
};

// {"url","status","contentType","events":[{"event","data"}],"transportError"}
nlohmann::json ToJson(const CapturedStream& s);
// Errors name the field ("stream.events[2].data: expected string, got number").
std::expected<CapturedStream, Error> CapturedStreamFromJson(const nlohmann::json& j);

// What reading one stream may take. The timeout is a total deadline, from
// connecting to the last byte, however slowly bytes trickle in; past either
// count, reading stops and transport_error says which limit was hit (so a
// stream that never ends is judged, as unterminated, not held forever).
struct StreamLimits {
  std::size_t max_events = 100000;           // events kept
  std::size_t max_bytes = 64 * 1024 * 1024;  // body bytes read
};

// GETs `url` through `client` (with X-Request-Id when given, and Accept:
// text/event-stream) and reads the stream until the server ends it, `timeout`
// (connect, read and total) passes or a limit is reached. Errors: the URL is
// not http(s), or no HTTP response came at all (no connection, "no response
// within N ms").
std::expected<CapturedStream, Error> CaptureEventStream(
    const std::string& url, const std::optional<std::string>& request_id,
    std::chrono::milliseconds timeout, const StreamLimits& limits = {},
    net::HttpClient& client = *net::RealHttpClient());

struct StreamJudgeOptions {
  // The X-Request-Id the message was created with: request_id must echo it.
  std::optional<std::string> request_id;
  // The terminal event a scenario expects. Unset (sse-check): an `error`
  // terminal fails GYMBRO-7.4, since the reply is then a failure (§7.4).
  std::optional<gymbro::Termination> expected_termination;
  // Rule ids the stream or its reply is meant to break (a scenario's
  // deliberate violations): a finding for one of them passes, its absence fails.
  std::vector<std::string> violations;
};

// The stream rules sse-check judges, in catalogue order.
std::span<const std::string_view> StreamRuleIds();

// Results for each rule of `rules` this module knows (StreamRuleIds() and the
// TML ids); other ids are left out. One result per finding where a rule is
// broken (at most five per rule), else one Pass or Skip.
std::vector<reports::CheckResult> JudgeStream(const CapturedStream& stream,
                                              const StreamJudgeOptions& options,
                                              std::span<const std::string> rules);

struct SseCheckOptions {
  std::optional<std::string> request_id;
  std::chrono::milliseconds timeout{120000};  // total
  StreamLimits limits;
};

// Connects to `url`, reads the stream and judges it by every stream and
// ThinkingML rule; reported as the scenario "gymbro/sse-check". A stream that
// cannot be read at all gives Error results (the check could not be made).
reports::ScenarioResult SseCheck(const std::string& url, const SseCheckOptions& options,
                                 net::HttpClient& client = *net::RealHttpClient());

}  // namespace llmconform::harness
