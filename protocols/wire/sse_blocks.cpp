#include "protocols/wire/sse_blocks.h"

#include <algorithm>

namespace llmconform::wire {
namespace {

// The blocks of `stream`; `time_at` gives the time of a byte offset.
template <typename TimeAt>
std::vector<SseBlock> Split(std::string_view stream, TimeAt time_at) {
  std::vector<SseBlock> out;
  std::size_t begin = 0;
  std::size_t at = stream.starts_with(kSseBom) ? kSseBom.size() : 0;
  bool has_data = false;
  while (auto eol = FindSseLineEnd(stream, at)) {
    const std::string_view line = stream.substr(at, eol->end - at);
    if (line.empty()) {
      out.push_back(SseBlock{.begin = begin,
                             .end = eol->next,
                             .t_ms = time_at(eol->next - 1),
                             .has_data = has_data,
                             .complete = true});
      begin = eol->next;
      has_data = false;
    } else if (!has_data && ReadSseLine(line).IsData()) {
      has_data = true;
    }
    at = eol->next;
  }
  if (begin < stream.size()) {
    out.push_back(SseBlock{.begin = begin,
                           .end = stream.size(),
                           .t_ms = time_at(stream.size() - 1),
                           .has_data = has_data,
                           .complete = false});
  }
  return out;
}

}  // namespace

std::optional<SseLineEnd> FindSseLineEnd(std::string_view text, std::size_t from) {
  const std::size_t eol = text.find_first_of("\r\n", from);
  if (eol == std::string_view::npos) return std::nullopt;
  std::size_t next = eol + 1;
  if (text[eol] == '\r' && next < text.size() && text[next] == '\n') ++next;
  return SseLineEnd{.end = eol, .next = next};
}

void TimedStream::Append(std::string_view bytes, std::int64_t t_ms) {
  bytes_.append(bytes);
  reads_.push_back(Read{bytes_.size(), t_ms});
}

std::int64_t TimedStream::TimeAt(std::size_t offset) const {
  const auto it = std::upper_bound(reads_.begin(), reads_.end(), offset,
                                   [](std::size_t o, const Read& r) { return o < r.end; });
  if (it != reads_.end()) return it->t_ms;
  return reads_.empty() ? 0 : reads_.back().t_ms;
}

std::vector<SseBlock> SplitSseBlocks(const TimedStream& stream) {
  return Split(stream.bytes(), [&stream](std::size_t offset) { return stream.TimeAt(offset); });
}

std::vector<SseBlock> SplitSseBlocks(std::string_view stream) {
  return Split(stream, [](std::size_t) { return std::int64_t{0}; });
}

std::vector<std::size_t> SseEventEnds(std::string_view stream) {
  std::vector<std::size_t> ends;
  for (const SseBlock& b : SplitSseBlocks(stream))
    if (b.IsEvent()) ends.push_back(b.end);
  return ends;
}

}  // namespace llmconform::wire
