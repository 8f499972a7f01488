// Writing a file so that a reader sees the old content or the new, never a
// mix: a temporary file in the same folder, fsync, rename over the target.
#pragma once

#include <expected>
#include <filesystem>
#include <string_view>

#include "base/error.h"

namespace llmconform {

// Creates missing parent folders. Error: "PATH: cannot write: REASON".
std::expected<void, Error> WriteFileAtomically(const std::filesystem::path& path,
                                               std::string_view content);

}  // namespace llmconform
