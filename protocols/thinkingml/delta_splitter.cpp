#include "protocols/thinkingml/delta_splitter.h"

#include <optional>

#include "base/utf8.h"

namespace llmconform::gymbro {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Byte offsets (within `text`) of the starts of the first `limit` + 1 code
// points, the last being the offset after code point number `limit`.
std::vector<std::size_t> CodePointStarts(std::string_view text, std::size_t limit) {
  std::vector<std::size_t> starts;
  starts.reserve(limit + 1);
  for (std::size_t i = 0; i < text.size() && starts.size() <= limit; ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= limit) starts.push_back(text.size());
  return starts;
}

struct Cut {
  std::size_t bytes;        // the piece is text[0, bytes)
  std::size_t code_points;  // and holds this many code points
};

// Where the first piece of `text` ends, for text longer than kSplitAbove code
// points.
Cut CutPoint(std::string_view text) {
  const std::vector<std::size_t> starts = CodePointStarts(text, kSplitWindowMax + 1);
  // The piece may end after code point k (k in [kSplitWindowMin, kSplitWindowMax]):
  // a break "after code point k-1" means the piece holds k code points.
  std::optional<std::size_t> best_line, best_sentence;
  auto better = [](std::optional<std::size_t>& best, std::size_t k) {
    const auto dist = [](std::size_t x) {
      return x > kSplitTarget ? x - kSplitTarget : kSplitTarget - x;
    };
    if (!best || dist(k) < dist(*best)) best = k;
  };
  for (std::size_t k = kSplitWindowMin; k <= kSplitWindowMax && k < starts.size(); ++k) {
    const std::size_t end = starts[k];  // byte offset after k code points
    const std::string_view before = text.substr(0, end);
    if (before.ends_with('\n')) {
      better(best_line, k);
      continue;
    }
    const std::string_view next = text.substr(end);
    const bool followed_by_text = !next.empty() && !IsSpace(next.front());
    if (!followed_by_text) continue;  // take trailing whitespace along: cut after it
    // Skip back over the whitespace just before `end` to the sentence mark.
    std::size_t j = end;
    while (j > 0 && IsSpace(text[j - 1])) --j;
    const std::string_view head = text.substr(0, j);
    const bool ascii_mark =
        j < end && (head.ends_with('.') || head.ends_with('!') || head.ends_with('?'));
    const bool cjk_mark =
        head.ends_with("\xE3\x80\x82") /*。*/ || head.ends_with("\xEF\xBC\x81") /*！*/ ||
        head.ends_with("\xEF\xBC\x9F") /*？*/ || head.ends_with("\xEF\xBC\x9B") /*；*/;
    if (ascii_mark || cjk_mark) better(best_sentence, k);
  }
  const std::size_t k = best_line ? *best_line : best_sentence ? *best_sentence : kSplitTarget;
  return {starts[k], k};
}

}  // namespace

std::vector<std::string> SplitDelta(std::string_view chunk) {
  std::vector<std::string> pieces;
  std::size_t left = CountCodePoints(chunk);
  while (left > kSplitAbove) {
    const Cut cut = CutPoint(chunk);
    pieces.emplace_back(chunk.substr(0, cut.bytes));
    chunk.remove_prefix(cut.bytes);
    left -= cut.code_points;
  }
  if (!chunk.empty()) pieces.emplace_back(chunk);
  return pieces;
}

}  // namespace llmconform::gymbro
