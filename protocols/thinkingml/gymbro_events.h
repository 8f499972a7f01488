// The GymBro SSE event contract (seed 002 §6–§7; docs/protocols.md "gymbro SSE"):
// a checker for a received event sequence, and the client's reply assembly.
//
// A stream carries named events `status`, `content_delta`, `completed`,
// `error`, `heartbeat`, each with a JSON object as data holding `message_id`
// and `request_id`. `status.state` goes queued → working → routed;
// `content_delta.seq` counts 1, 2, 3, …; exactly one terminal event ends the
// stream — `completed` (with `reply_len`, never the reply text) or `error`
// (`code`, `message`, and the legacy `error` equal to `message`) — and nothing
// follows it; `heartbeat` carries `ts` in milliseconds.
//
// The client joins `content_delta.delta` by `seq`. A `reply_len` that differs
// from the code points of the joined reply is a warning (severity "should"),
// not a failure; an `error` terminal makes the reply a failure even after
// deltas (§7.4) — that is the stream's outcome, not a contract violation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::gymbro {

inline constexpr std::array<std::string_view, 5> kEventNames = {"status", "content_delta",
                                                                "completed", "error", "heartbeat"};
// The service splits deltas longer than this (GYMBRO-6.15).
inline constexpr std::size_t kMaxDeltaCodePoints = 256;
// A heartbeat `ts` below this is taken for seconds, not milliseconds.
inline constexpr std::int64_t kMinMillisecondTimestamp = 100'000'000'000;

// Every rule id CheckEvents can report, in catalogue order.
inline constexpr std::string_view kEventRuleIds[] = {
    "GYMBRO-6.1",  "GYMBRO-6.2",  "GYMBRO-6.3",  "GYMBRO-6.4", "GYMBRO-6.5",
    "GYMBRO-6.6",  "GYMBRO-6.7",  "GYMBRO-6.8",  "GYMBRO-6.9", "GYMBRO-6.10",
    "GYMBRO-6.11", "GYMBRO-6.12", "GYMBRO-6.15", "GYMBRO-7.3"};

struct StreamEvent {
  std::string event;  // the SSE event name ("message" for an unnamed frame)
  std::string data;   // the SSE data text, expected to be a JSON object
  friend bool operator==(const StreamEvent&, const StreamEvent&) = default;
};

enum class Severity { kMust, kShould };
std::string_view SeverityName(Severity s);  // "must" | "should"

struct EventFinding {
  std::string rule;  // id in specs/gymbro/rules.json, e.g. "GYMBRO-6.5"
  Severity severity = Severity::kMust;
  std::string message;
  std::optional<std::size_t> event_index;  // 0-based; nullopt for the stream as a whole
  friend bool operator==(const EventFinding&, const EventFinding&) = default;
};

enum class Termination { kCompleted, kError, kNone };
std::string_view TerminationName(Termination t);  // "completed" | "error" | "none"

struct EventCheckOptions {
  // The X-Request-Id the request sent; when set, every request_id must equal it.
  std::optional<std::string> request_id;
};

struct EventCheck {
  bool valid = false;  // no finding of severity must
  // content_delta.delta joined by seq (by arrival when any seq is missing or
  // not an integer); deltas after the terminal event are left out.
  std::string reply;
  Termination termination = Termination::kNone;  // the first terminal event
  std::optional<std::int64_t> reply_len;         // of the completed event
  std::string error_code;                        // of the error event
  std::string error_message;
  std::string message_id;  // as first seen
  std::string request_id;
  std::vector<std::string> states;  // status states, in order of arrival
  std::size_t deltas = 0;
  std::size_t heartbeats = 0;
  std::vector<EventFinding> findings;  // in order of the events

  // The client's verdict (§7.4): the reply is usable only after `completed`.
  bool Succeeded() const { return termination == Termination::kCompleted; }
};

// Checks a whole received sequence (the stream has ended). Never fails.
EventCheck CheckEvents(std::span<const StreamEvent> events, const EventCheckOptions& options = {});

}  // namespace llmconform::gymbro
