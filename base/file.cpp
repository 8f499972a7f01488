#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/format.h"

namespace llmconform {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.Release();
  }
  return *this;
}

void FileDescriptor::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

std::unexpected<Error> Fail(const std::filesystem::path& path, ErrorKind kind,
                            std::string_view why) {
  return std::unexpected(Error{Format("{}: cannot read: {}", path.string(), why), kind});
}

// Why a file of this mode is not read, or "" for a regular file.
std::string_view NotRegular(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "it is a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a file";
  if (S_ISFIFO(mode)) return "it is a FIFO (a named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  if (S_ISLNK(mode)) return "it is a symlink, not a regular file";
  return "it is not a regular file";
}

}  // namespace

std::expected<FileDescriptor, Error> OpenRegularFile(const std::filesystem::path& path,
                                                     Symlinks symlinks) {
  // First by name, for a clear reason (a socket cannot even be opened).
  struct stat st {};
  const int stat_rc =
      symlinks == Symlinks::kFollow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  if (stat_rc != 0) {
    return errno == ENOENT || errno == ENOTDIR ? Fail(path, ErrorKind::kNotFound, "no such file")
                                               : Fail(path, ErrorKind::kIo, std::strerror(errno));
  }
  if (auto why = NotRegular(st.st_mode); !why.empty())
    return Fail(path, ErrorKind::kInvalidInput, why);
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (symlinks == Symlinks::kRefuse) flags |= O_NOFOLLOW;
  FileDescriptor fd(::open(path.c_str(), flags));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Fail(path, ErrorKind::kNotFound, "no such file");
    if (errno == ELOOP) return Fail(path, ErrorKind::kInvalidInput, NotRegular(S_IFLNK));
    return Fail(path, ErrorKind::kIo, std::strerror(errno));
  }
  // Then what was opened: the name may have been pointed elsewhere meanwhile.
  if (::fstat(fd.get(), &st) != 0) return Fail(path, ErrorKind::kIo, std::strerror(errno));
  if (auto why = NotRegular(st.st_mode); !why.empty())
    return Fail(path, ErrorKind::kInvalidInput, why);
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::expected<std::string, Error> ReadFile(const std::filesystem::path& path, std::size_t max_bytes,
                                           Symlinks symlinks) {
  auto fd = OpenRegularFile(path, symlinks);
  if (!fd) return std::unexpected(fd.error());
  const auto too_long = [&] {
    return Fail(path, ErrorKind::kInvalidInput, Format("it is longer than {} bytes", max_bytes));
  };
  struct stat st {};
  if (::fstat(fd->get(), &st) == 0 && static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return too_long();
  std::string out;
  out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd->get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(path, ErrorKind::kIo, std::strerror(errno));
    }
    // It may grow while it is read.
    if (static_cast<std::size_t>(n) > max_bytes - out.size()) return too_long();
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace llmconform
