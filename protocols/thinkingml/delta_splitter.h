// How the GymBro reference service cuts an upstream text chunk into
// content_delta texts (GYMBRO-6.15): a chunk of at most 256 code points goes
// out whole; a longer one is cut into a piece of about 128 code points and the
// rest, which is cut again while it is longer than 256. Each cut prefers, in
// this order, the end of a line (after an LF), the end of a sentence (after
// `.` `!` `?` followed by whitespace, or after `。` `！` `？` `；`, taking the
// whitespace that follows along), then a hard cut at exactly 128 code points;
// a break is taken only between 64 and 192 code points, the one nearest to
// 128 winning (the earlier on a tie). Cuts fall on code point boundaries, so
// joining the pieces gives back the chunk byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::gymbro {

inline constexpr std::size_t kSplitAbove = 256;
inline constexpr std::size_t kSplitTarget = 128;
inline constexpr std::size_t kSplitWindowMin = 64;
inline constexpr std::size_t kSplitWindowMax = 192;

// Never returns an empty piece; an empty chunk gives no pieces.
std::vector<std::string> SplitDelta(std::string_view chunk);

}  // namespace llmconform::gymbro
