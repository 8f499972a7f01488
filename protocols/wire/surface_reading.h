// What the surfaces' readers share (protocols/wire/surface.h): located
// findings, the unmodelled event types, a named event's data and type.
//
// A surface's accumulator reports every broken contract rule to a FindingLog:
// the first
// place a rule breaks is kept as a LocatedFinding, the later ones are counted
// and said at the end ("(and 3 more)"), so a long stream that breaks a rule
// at every event costs one finding, not one per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/sse.h"
#include "protocols/wire/surface.h"

namespace llmconform::wire {

class FindingLog {
 public:
  // `body`: findings in a non-streamed body, placed by pointer alone
  // ("/usage: …", "/: …").
  explicit FindingLog(bool body = false) : body_(body) {}
  // Reports `rule` at `event` (1-based; 0 for the stream as a whole or a
  // body) and `pointer` in that event's data. The message is prefixed with
  // the place: "event 7 /index: …", "the stream: …".
  void Report(std::string_view rule, std::size_t event, std::string_view pointer,
              std::string message);
  // The findings in the order first reported, repeats counted; call once.
  std::vector<LocatedFinding> Take();

 private:
  bool body_ = false;
  std::vector<LocatedFinding> findings_;
  std::map<std::string, std::size_t, std::less<>> reported_;  // rule -> its finding
  std::map<std::string, std::size_t, std::less<>> repeats_;   // rule -> further breaks
};

// The event types a reader does not model, each named once in the order
// first seen; past 64 names the rest are counted ("… 3 more types").
class OtherEvents {
 public:
  void Note(std::string_view type, std::vector<std::string>& names);
  // Appends the count of those not named; call once.
  void Finish(std::vector<std::string>& names) const;

 private:
  std::set<std::string, std::less<>> seen_;
  std::size_t dropped_ = 0;
};

// An event of a named-event stream (the Responses API, Messages) as a
// client reads it: its data, a JSON object, and its type (`data.type`, else
// the event's name). Reports PREFIX-EVENT-JSON (data not JSON, not an
// object, no string type) and PREFIX-EVENT-NAME (no `event:` name, or one
// that differs from the type) at event `number`; nullopt when the event
// cannot be read at all.
struct NamedEvent {
  Json data;
  std::string type;
};
std::optional<NamedEvent> ReadNamedEvent(const SseEventView& event, std::string_view prefix,
                                         std::size_t number, FindingLog& log);

// `data[key]` as an index from 0 to 2^63 - 1; nullopt when absent or not one.
std::optional<std::int64_t> IndexAt(const Json& data, std::string_view key);
// `j[key]` when `j` is an object and that is a string, else "".
std::string StringAt(const Json& j, std::string_view key);

}  // namespace llmconform::wire
