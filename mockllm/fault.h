// Faults injected into a replayed response, from an exchange's `fault` object
// or from `mockllm serve --fault KEY[=VALUE]`. Every fault is deterministic:
// the same trace, fault and seed give the same bytes.
//
//   {"status": 429, "body": {...}|"text", "retry_after": 2, "retry_after_ms": 1500,
//    "headers": {"x-should-retry": "true"}}     answer with this status instead
//                                              (default body: the error of the
//                                              request's API; a `body` is sent as
//                                              given; a 429 gets the rate-limit
//                                              headers its API documents)
//   {"delay_ms": N}                            wait before the first byte (headers)
//   {"cut_after_bytes": N}                     close the connection after N body bytes
//   {"cut_after_events": N}                    close it after N SSE events
//   {"drop_done": true}                        leave out the event that ends the
//                                              stream: [DONE], the Responses terminal
//                                              event, message_stop, Gemini's last event
//   {"malformed_event": K}                     replace event K (0-based) with broken JSON
//   {"resplit": true, "seed": S}               re-split the stream into random pieces
//                                              (same bytes; seed from --seed if absent)
//   {"crlf": true}                             CRLF line ends
//   {"bom": true}                              a UTF-8 BOM before the body
//   {"keepalive_ms": N}                        `: keep-alive` comments every N ms of
//                                              the recorded timeline
//   {"error_event": {"after_events": K, "error": {...}, "as": "error"|"failed"}}
//                                              an error event after K events (HTTP
//                                              200), then the end, in the API's shape;
//                                              "failed": a Responses `response.failed`
//   {"stall_ms": N, "stall_after_events": K}   stop sending for N ms after K events
//                                              (0: right after the headers)
//   {"times": N}                               apply the other faults to the first N
//                                              attempts of an exchange only (a retry is
//                                              an attempt: docs/mockllm.md, "Retries")
// Times in faults are absolute milliseconds, not scaled by --speed.
// The shapes per API surface (bodies, 429 headers, end events, error events)
// are mockllm/surface_errors.h's and replay_plan.cpp's IsEndEvent; only the
// rate-limit headers an API documents are sent (docs/mockllm.md, "Faults per
// surface").
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "mockllm/trace.h"

namespace llmconform::mockllm {

struct Fault {
  std::optional<int> status;
  std::optional<OJson> body;
  std::optional<double> retry_after;  // seconds
  std::optional<std::int64_t> retry_after_ms;
  OJson headers = OJson::object();  // extra headers with a status fault
  std::int64_t delay_ms = 0;
  std::optional<std::int64_t> cut_after_bytes;
  std::optional<std::int64_t> cut_after_events;
  bool drop_done = false;
  std::optional<std::int64_t> malformed_event;
  bool resplit = false;
  std::optional<std::uint64_t> seed;
  bool crlf = false;
  bool bom = false;
  std::int64_t keepalive_ms = 0;
  std::optional<std::int64_t> error_event_after;  // events before the error event
  OJson error_event_error;          // the `error` object it carries (null: the surface's default)
  bool error_event_failed = false;  // Responses: a `response.failed` event, not `error`
  std::int64_t stall_ms = 0;
  std::int64_t stall_after_events = 0;
  std::optional<std::int64_t> times;  // attempts the fault applies to (absent: all)

  bool Empty() const;  // no fault applies (`times` alone changes nothing)
};

// Validates and reads a fault object. Errors carry the JSON pointer relative
// to the object ("/status") and say what was expected.
std::expected<Fault, Error> FaultFromJson(const OJson& j);

// Adds one `--fault KEY[=VALUE]` to `into` (an object): VALUE is read as JSON
// when it parses (`status=429`, `error_event={"after_events":2}`), else as a
// string; KEY alone means true. Error: unknown key or a malformed flag.
std::expected<void, Error> AddFaultFlag(OJson& into, std::string_view flag);

// `base` with every key of `over` set over it (exchange faults over --fault).
OJson MergeFaults(const OJson& base, const OJson& over);

}  // namespace llmconform::mockllm
