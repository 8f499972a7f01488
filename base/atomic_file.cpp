#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/format.h"

namespace llmconform {
namespace {

Error Failed(const std::filesystem::path& path, std::string_view what, int err) {
  return Error::Io(Format("{}: cannot write: {}: {}", path.string(), what, std::strerror(err)));
}

}  // namespace

std::expected<AtomicFile, Error> AtomicFile::Create(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return std::unexpected(Failed(path, "creating its folder", ec.value()));
  std::string tmp = path.string() + ".tmp-XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return std::unexpected(Failed(path, "creating a temporary file", errno));
  return AtomicFile(path, std::move(tmp), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), tmp_(std::move(other.tmp_)), fd_(other.fd_) {
  other.fd_ = -1;
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

Error AtomicFile::Fail(std::string_view what) {
  const int saved = errno;
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
    fd_ = -1;
  }
  return Failed(path_, what, saved);
}

std::expected<void, Error> AtomicFile::Write(std::string_view piece) {
  if (fd_ < 0) {
    errno = EBADF;
    return std::unexpected(Fail("writing after the file was closed"));
  }
  std::size_t done = 0;
  while (done < piece.size()) {
    const ssize_t n = ::write(fd_, piece.data() + done, piece.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(Fail("writing"));
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

std::expected<void, Error> AtomicFile::Commit() {
  if (fd_ < 0) {
    errno = EBADF;
    return std::unexpected(Fail("committing a closed file"));
  }
  if (::fchmod(fd_, 0644) != 0 || ::fsync(fd_) != 0) return std::unexpected(Fail("syncing"));
  ::close(fd_);
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp_.c_str());
    return std::unexpected(Failed(path_, "renaming into place", saved));
  }
  return {};
}

std::expected<void, Error> WriteFileAtomically(const std::filesystem::path& path,
                                               std::string_view content) {
  auto file = AtomicFile::Create(path);
  if (!file) return std::unexpected(file.error());
  if (auto w = file->Write(content); !w) return w;
  return file->Commit();
}

}  // namespace llmconform
