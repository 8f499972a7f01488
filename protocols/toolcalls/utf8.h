// UTF-8 helpers for text handed to a model as JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace llmconform::toolcalls {

// `text` with every invalid UTF-8 sequence replaced by U+FFFD (as a
// TextDecoder does), so that it can be serialised as JSON.
std::string ToValidUtf8(std::string_view text);

// The largest n <= max_bytes such that text[0, n) does not end inside a
// UTF-8 sequence.
std::size_t Utf8Prefix(std::string_view text, std::size_t max_bytes);

// Number of code points in valid-or-not UTF-8 text (continuation bytes are
// not counted).
std::size_t CodePoints(std::string_view text);

}  // namespace llmconform::toolcalls
