// Reading a whole file named by a user (a spec, a trace, a cassette, a
// journal), with an error that names the file and says why.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>

#include "base/error.h"

namespace llmconform {

// The most ReadFile reads of one file unless told otherwise: larger than any
// spec, trace, cassette or journal a user has (a recording of 10 000
// exchanges is about 240 MB), small enough that /dev/zero or an endless FIFO
// named by mistake ends in an error, not in all of the machine's memory.
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

// The bytes of `path`. Errors: kNotFound when there is no such file,
// kInvalidInput when it is a folder or a device, or longer than `max_bytes`
// (a regular file is refused by its size before it is read; a FIFO is read
// up to the limit), kIo when opening or reading fails otherwise. Messages:
// "PATH: cannot read: <reason>".
std::expected<std::string, Error> ReadFile(const std::filesystem::path& path,
                                           std::size_t max_bytes = kMaxFileBytes);

}  // namespace llmconform
