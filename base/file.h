// Reading a whole file named by a user (a spec, a trace, a cassette, a
// journal), with an error that names the file and says why.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <limits>
#include <string>

#include "base/error.h"

namespace llmconform {

// The bytes of `path`. Errors: kNotFound when there is no such file,
// kInvalidInput when it is a folder or longer than `max_bytes` (so a huge
// file is refused before it is read into memory), kIo when opening or
// reading fails otherwise. Messages: "PATH: cannot read: <reason>".
std::expected<std::string, Error> ReadFile(
    const std::filesystem::path& path,
    std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

}  // namespace llmconform
