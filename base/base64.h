// Base64 (RFC 4648 §4, standard alphabet, with padding): how traces keep
// bytes that are not valid UTF-8 (`raw_b64`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmconform {

std::string Base64Encode(std::string_view bytes);
// nullopt unless `text` is whole padded groups of the alphabet.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace llmconform
