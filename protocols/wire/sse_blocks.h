// SSE framing of a whole stream held in memory: the one line grammar of
// WHATWG Server-Sent Events (HTML §9.2.6) that the incremental parser
// (sse.h) reads with, and the stream cut into blocks with their byte spans.
//
// A line ends at CR, LF or CRLF. A line starting with ':' is a comment; any
// other non-blank line is a field: its name is the text before the first
// ':' (the whole line when there is none) and its value the text after it,
// less one leading space. Field names are compared exactly (`data`, never
// `data2`). A block is the lines up to and including a blank line; it is an
// event when it holds a `data` field. Whoever rewrites or re-times a
// recorded stream (mockllm's replay plans and dialect rewrites) works on
// these blocks, so its cuts fall where a client's parser dispatches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::wire {

// The byte order mark the standard strips once, at the start of a stream.
inline constexpr std::string_view kSseBom = "\xEF\xBB\xBF";

// One line of an SSE stream (without its line end), read as the standard says.
struct SseLine {
  enum class Kind { kBlank, kComment, kField };
  Kind kind = Kind::kBlank;
  std::string_view field;  // kField: the field name
  std::string_view value;  // kField: after the colon and one optional space ("" with no colon)
  bool IsData() const { return kind == Kind::kField && field == "data"; }
};
// Inline: the incremental parser calls it for every line it reads.
inline SseLine ReadSseLine(std::string_view line) {
  if (line.empty()) return SseLine{};
  if (line.front() == ':')
    return SseLine{.kind = SseLine::Kind::kComment, .field = {}, .value = {}};
  SseLine out{.kind = SseLine::Kind::kField, .field = line, .value = {}};
  if (const void* colon = std::memchr(line.data(), ':', line.size())) {
    const auto at = static_cast<std::size_t>(static_cast<const char*>(colon) - line.data());
    out.field = line.substr(0, at);
    out.value = line.substr(at + 1);
    if (!out.value.empty() && out.value.front() == ' ') out.value.remove_prefix(1);
  }
  return out;
}

// Where the line starting at `from` ends: `end` is the offset of its line
// end, `next` the offset just past it (a CRLF counts once). Nullopt when no
// line end follows `from` (a partial line).
struct SseLineEnd {
  std::size_t end = 0;
  std::size_t next = 0;
};
std::optional<SseLineEnd> FindSseLineEnd(std::string_view text, std::size_t from);

// Calls f(SseLine, std::string_view line) for every complete line of `text`
// in order (a trailing partial line is not a line). `text` is read from its
// first byte: a caller strips the stream's BOM first.
template <typename F>
void ForEachSseLine(std::string_view text, F&& f) {
  std::size_t at = 0;
  while (auto eol = FindSseLineEnd(text, at)) {
    const std::string_view line = text.substr(at, eol->end - at);
    f(ReadSseLine(line), line);
    at = eol->next;
  }
}

// A block of a stream: a byte span of it. The blocks of a stream tile it
// from offset 0 to its end: the BOM belongs to the first block, and the bytes
// after the last blank line form a last block that is not complete.
struct SseBlock {
  std::size_t begin = 0;
  std::size_t end = 0;    // just past the blank line (the stream's end when !complete)
  std::int64_t t_ms = 0;  // when its last byte arrived (0 for an untimed stream)
  bool has_data = false;  // it holds a `data` field
  bool complete = true;   // it ends with a blank line
  bool IsEvent() const { return complete && has_data; }  // what a parser dispatches
  std::string_view In(std::string_view stream) const { return stream.substr(begin, end - begin); }
};

// A stream as it arrived: its bytes and, for each read, where it ended and
// when (ms from the start of the response).
class TimedStream {
 public:
  void Append(std::string_view bytes, std::int64_t t_ms);
  const std::string& bytes() const { return bytes_; }
  // The time of the read that holds byte `offset`; past the end, the last
  // read's; 0 when nothing was read.
  std::int64_t TimeAt(std::size_t offset) const;

 private:
  struct Read {
    std::size_t end;
    std::int64_t t_ms;
  };
  std::string bytes_;
  std::vector<Read> reads_;
};

// The blocks of `stream`, each timed by the read holding its last byte.
std::vector<SseBlock> SplitSseBlocks(const TimedStream& stream);
// The same for an untimed stream (every t_ms 0).
std::vector<SseBlock> SplitSseBlocks(std::string_view stream);

// The byte offsets just past each event of `stream` (the end of each
// complete block holding a `data` field).
std::vector<std::size_t> SseEventEnds(std::string_view stream);

}  // namespace llmconform::wire
