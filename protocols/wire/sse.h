// WHATWG Server-Sent Events (HTML §9.2.6): an incremental parser and a writer.
//
// The parser follows the standard exactly (docs/protocols.md "wire"): one leading
// BOM is stripped, also when split across reads; CR, LF and CRLF end lines,
// also when a CRLF is split across reads; ':' lines are comments; one space
// after the colon is stripped; data lines join with LF; an `id` holding U+0000
// is ignored; `retry` is taken only when all ASCII digits; an event is
// dispatched only at a blank line and only when its data buffer is non-empty;
// a partial event at end of stream is discarded. Any split of the input into
// Feed() calls yields the same events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace llmconform::wire {

struct SseEvent {
  std::string event = "message";  // the `event` field, "message" when unnamed
  std::string data;
  std::string id;  // the last-event-ID in force when the event was dispatched

  friend bool operator==(const SseEvent&, const SseEvent&) = default;
};

// An event as the parser dispatches it: views valid only during the
// callback that receives it (they may point into the bytes being fed).
struct SseEventView {
  std::string_view event;  // "message" when unnamed
  std::string_view data;
  std::string_view id;
};

class SseParser {
 public:
  // Parses `bytes` (the next read of the stream) and calls `on_event` for
  // every event it completes, without copying data that lies whole in
  // `bytes`. Never fails: every byte sequence is a valid stream. `on_event`
  // must not call back into this parser.
  template <typename F>
  void Feed(std::string_view bytes, F&& on_event) {
    FeedImpl(
        bytes,
        [](void* fn, const SseEventView& ev) {
          (*static_cast<std::remove_reference_t<F>*>(fn))(ev);
        },
        static_cast<void*>(&on_event));
  }

  // Parses `bytes` and appends every event it completes to `out`, owned.
  void Feed(std::string_view bytes, std::vector<SseEvent>& out);

  // Ends the stream: a pending partial line is processed as the standard says
  // (a line without its end is discarded along with an undispatched event).
  void Finish();

  // The last valid `retry` value seen, in milliseconds.
  std::optional<std::uint64_t> retry() const { return retry_; }
  // Number of comment lines seen (`: keep-alive` and friends).
  std::size_t comment_count() const { return comments_; }
  // Bytes fed so far.
  std::uint64_t bytes_fed() const { return bytes_fed_; }

 private:
  using Sink = void (*)(void*, const SseEventView&);
  void FeedImpl(std::string_view bytes, Sink sink, void* ctx);
  // `in_input`: the line lies in the bytes of the current Feed call, so a
  // view of it stays valid until that call returns.
  void ProcessLine(std::string_view line, bool in_input, Sink sink, void* ctx);
  void OwnData();  // turns a data view into an owned copy

  std::string partial_;       // bytes of an unfinished line
  bool bom_checked_ = false;  // past the point where a BOM could appear
  bool skip_lf_ = false;      // the previous read ended in CR: a leading LF is its pair
  // The data buffer: either `data_view_` (one data line, still in the input)
  // or `data_` (owned), with `has_data_` telling whether any data line came.
  std::string data_;
  std::string_view data_view_;
  bool data_is_view_ = false;
  bool has_data_ = false;
  std::string event_type_;
  std::string last_event_id_;
  std::optional<std::uint64_t> retry_;
  std::size_t comments_ = 0;
  std::uint64_t bytes_fed_ = 0;
};

// Parses a whole stream, optionally split into reads at the given byte
// offsets (offsets outside the stream or out of order are clamped/sorted).
struct SseParseResult {
  std::vector<SseEvent> events;
  std::optional<std::uint64_t> retry;
  std::size_t comments = 0;
};
SseParseResult ParseSse(std::string_view stream, std::vector<std::size_t> splits = {});

// Writes one event in standard framing: `event: NAME\n` unless the name is
// empty or "message", `id: ID\n` when `id` is non-empty, one `data: LINE\n`
// per line of `data` (split at CRLF, CR or LF), then a blank line.
std::string WriteSseEvent(const SseEvent& event);
// `data: PAYLOAD\n\n`, the framing of OpenAI's Chat Completions streams.
std::string WriteSseData(std::string_view payload);
// `: TEXT\n` (a comment line, e.g. a keep-alive).
std::string WriteSseComment(std::string_view text);

}  // namespace llmconform::wire
