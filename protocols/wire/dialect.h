// Dialect detection: which documented deviations from a surface's canonical
// wire format an exchange shows, each with the id of its entry in
// specs/wire/dialects.json (DIA-* for Chat Completions, DIA-RESP-* for the
// Responses API, DIA-MSG-* for Anthropic Messages, DIA-GEM-* for Gemini).
//
// A stream is read event by event (WHATWG SSE, protocols/wire/sse.h); each
// deviation is reported once, at its first occurrence, located as
// "event N" plus the JSON pointer inside that event's chunk
// ("event 3 /choices/0/delta/reasoning_content"). The stream accumulator
// (protocols/wire/stream_accumulator.h) names the deviations it notices by
// the same ids; what the scan here does not place is reported at "stream",
// so nothing it notices is lost.
// A non-streamed body is read as JSON; its locations are JSON pointers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/chat.h"
#include "protocols/wire/surface.h"

namespace llmconform::wire {

struct Deviation {
  std::string id;       // "DIA-REASONING-CONTENT"
  std::string where;    // "event 3 /choices/0/delta/reasoning_content", "/error"
  std::string message;  // what was seen
  friend bool operator==(const Deviation&, const Deviation&) = default;
};

// The deviations of a raw SSE body of a Chat Completions stream.
std::vector<Deviation> DetectStreamDialect(std::string_view raw_sse);

// The deviations of a non-streamed response body (any bytes; `status` is the
// HTTP status when known).
std::vector<Deviation> DetectBodyDialect(std::string_view body, std::optional<int> status);

// The same for an exchange of `surface`: a surface's detector reports only
// that surface's deviations (kChat: the two functions above).
std::vector<Deviation> DetectStreamDialect(Surface surface, std::string_view raw_sse);
std::vector<Deviation> DetectBodyDialect(Surface surface, std::string_view body,
                                         std::optional<int> status);

// True for a deviation id (DialectIds()); false for the stream
// accumulator's other rules (malformed chunks, bytes after [DONE]).
bool IsDeviationId(std::string_view id);

// Every id the detectors can report (for the consistency test against
// specs/wire/dialects.json): DialectIds(surface) over AllSurfaces().
std::vector<std::string_view> DialectIds();

// The ids the detectors of `surface` can report (what
// DetectStreamDialect/DetectBodyDialect(surface, …) may name).
std::vector<std::string_view> DialectIds(Surface surface);

}  // namespace llmconform::wire
