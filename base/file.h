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
// exchanges is about 240 MB), small enough that a file named by mistake ends
// in an error, not in all of the machine's memory.
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

// An open file descriptor, closed when the object goes.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.Release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { Close(); }
  int get() const { return fd_; }
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Close();

 private:
  int fd_;
};

// Whether OpenRegularFile follows a symlink named by the path (a user's
// argument) or refuses it (what a client under test left behind).
enum class Symlinks { kFollow, kRefuse };

// `path` opened for reading, only if it is a regular file. It is opened
// without blocking (a FIFO with no writer would block open(2) forever) and
// what was opened is checked (fstat), so a file swapped after a check cannot
// slip through. Errors: kNotFound when there is no such file, kInvalidInput
// when it is a folder, a device, a FIFO, a socket (or, with
// Symlinks::kRefuse, a symlink), kIo otherwise. Messages:
// "PATH: cannot read: <reason>".
std::expected<FileDescriptor, Error> OpenRegularFile(const std::filesystem::path& path,
                                                     Symlinks symlinks = Symlinks::kFollow);

// The bytes of `path`, a regular file (OpenRegularFile: anything else is
// refused before a byte is read). Errors as OpenRegularFile's, and
// kInvalidInput when it is longer than `max_bytes` (refused by its size
// before it is read).
std::expected<std::string, Error> ReadFile(const std::filesystem::path& path,
                                           std::size_t max_bytes = kMaxFileBytes,
                                           Symlinks symlinks = Symlinks::kFollow);

}  // namespace llmconform
