// Writing a file so that a reader sees the old content or the new, never a
// mix: a temporary file in the same folder, fsync, rename over the target.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform {

// Creates missing parent folders. Error: "PATH: cannot write: REASON".
std::expected<void, Error> WriteFileAtomically(const std::filesystem::path& path,
                                               std::string_view content);

// WriteFileAtomically in pieces, for content too large to hold at once: the
// pieces go to the temporary file as they come; Commit puts the file in place.
// Destroyed before Commit succeeds, it removes the temporary file and leaves
// the target as it was; a move hands the temporary file over. Errors as
// WriteFileAtomically's.
class AtomicFile {
 public:
  static std::expected<AtomicFile, Error> Create(const std::filesystem::path& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  std::expected<void, Error> Write(std::string_view piece);
  // fsync, then rename over the target. Once only.
  std::expected<void, Error> Commit();

 private:
  AtomicFile(std::filesystem::path path, std::string tmp, int fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  Error Fail(std::string_view what);  // closes and removes the temporary file

  std::filesystem::path path_;
  std::string tmp_;
  int fd_ = -1;  // -1 once committed, failed or moved from
};

}  // namespace llmconform
