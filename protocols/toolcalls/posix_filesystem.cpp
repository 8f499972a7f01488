#include "protocols/toolcalls/posix_filesystem.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/format.h"

namespace llmconform::toolcalls {
namespace {

FsErrorKind KindOf(int err) {
  switch (err) {
    case ENOENT:
      return FsErrorKind::kNotFound;
    case ENOTDIR:
      return FsErrorKind::kNotDirectory;
    case EISDIR:
      return FsErrorKind::kIsDirectory;
    case ELOOP:
      return FsErrorKind::kIsSymlink;
    case EEXIST:
      return FsErrorKind::kExists;
    default:
      return FsErrorKind::kIo;
  }
}

std::unexpected<FsError> Fail(std::string_view call, std::string_view name, int err) {
  return std::unexpected(
      FsError{KindOf(err), Format("{}(\"{}\"): {}", call, name, std::strerror(err))});
}

std::string_view NotRegularWhat(mode_t mode) {
  if (S_ISFIFO(mode)) return "a fifo";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Refuses what the sandbox never reads or writes through: anything but a
// regular file, and a regular file with more than one hard link (another
// name of it may lie outside every mount). Folders are the caller's business.
std::expected<void, FsError> CheckPlainFile(const struct stat& st, std::string_view call,
                                            std::string_view name) {
  if (!S_ISREG(st.st_mode)) {
    return std::unexpected(FsError{FsErrorKind::kNotRegular, Format("{}(\"{}\"): {}", call, name,
                                                                    NotRegularWhat(st.st_mode))});
  }
  if (st.st_nlink > 1) {
    return std::unexpected(FsError{FsErrorKind::kHardLinked,
                                   Format("{}(\"{}\"): a regular file with {} hard links", call,
                                          name, static_cast<unsigned long>(st.st_nlink))});
  }
  return {};
}

// Owns one file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

EntryKind KindOfMode(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::kFile;
  if (S_ISDIR(mode)) return EntryKind::kDirectory;
  if (S_ISLNK(mode)) return EntryKind::kSymlink;
  return EntryKind::kOther;
}

std::int64_t Nanos(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::expected<void, FsError> WriteAll(int fd, std::string_view content, std::string_view name) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail("write", name, errno);
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

class PosixFile final : public File {
 public:
  explicit PosixFile(Fd fd) : fd_(std::move(fd)) {}

  std::expected<FileIdentity, FsError> Identity() override {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) return Fail("fstat", "", errno);
    return FileIdentity{
        static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
        static_cast<std::uint64_t>(st.st_size), Nanos(st.st_mtim), Nanos(st.st_ctim)};
  }

  std::expected<std::size_t, FsError> ReadAt(std::uint64_t offset, std::span<char> buf) override {
    for (;;) {
      const ssize_t n = ::pread(fd_.get(), buf.data(), buf.size(), static_cast<off_t>(offset));
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return Fail("pread", "", errno);
    }
  }

 private:
  Fd fd_;
};

class PosixDir final : public Dir {
 public:
  explicit PosixDir(Fd fd) : fd_(std::move(fd)) {}

  std::expected<EntryKind, FsError> Lstat(const std::string& name) override {
    struct stat st {};
    if (::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return Fail("fstatat", name, errno);
    return KindOfMode(st.st_mode);
  }

  std::expected<std::string, FsError> ReadLink(const std::string& name) override {
    std::string buf(256, '\0');
    for (;;) {
      const ssize_t n = ::readlinkat(fd_.get(), name.c_str(), buf.data(), buf.size());
      if (n < 0) {
        if (errno == EINVAL)
          return std::unexpected(
              FsError{FsErrorKind::kNotRegular, Format("readlinkat(\"{}\"): not a symlink", name)});
        return Fail("readlinkat", name, errno);
      }
      if (static_cast<std::size_t>(n) < buf.size()) {
        buf.resize(static_cast<std::size_t>(n));
        return buf;
      }
      if (buf.size() > PATH_MAX * 4) return Fail("readlinkat", name, ENAMETOOLONG);
      buf.resize(buf.size() * 2);
    }
  }

  std::expected<std::unique_ptr<Dir>, FsError> OpenDir(const std::string& name) override {
    Fd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) {
      const int err = errno;
      // O_DIRECTORY may win over O_NOFOLLOW: tell a symlink from a file.
      if (err == ENOTDIR) {
        auto kind = Lstat(name);
        if (kind && *kind == EntryKind::kSymlink) return Fail("openat", name, ELOOP);
      }
      return Fail("openat", name, err);
    }
    return std::make_unique<PosixDir>(std::move(fd));
  }

  std::expected<std::unique_ptr<File>, FsError> OpenFile(const std::string& name) override {
    Fd fd(::openat(fd_.get(), name.c_str(),
                   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) return OpenFailure(name, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Fail("fstat", name, errno);
    if (S_ISDIR(st.st_mode)) return Fail("openat", name, EISDIR);
    if (auto plain = CheckPlainFile(st, "openat", name); !plain)
      return std::unexpected(plain.error());
    return std::make_unique<PosixFile>(std::move(fd));
  }

  std::expected<std::vector<DirEntry>, FsError> List() override {
    // A fresh descriptor: fdopendir takes ownership and shares the offset.
    const int copy = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (copy < 0) return Fail("openat", ".", errno);
    DIR* d = ::fdopendir(copy);
    if (d == nullptr) {
      const int err = errno;
      ::close(copy);
      return Fail("fdopendir", ".", err);
    }
    std::vector<DirEntry> out;
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      EntryKind kind = EntryKind::kOther;
      switch (e->d_type) {
        case DT_REG:
          kind = EntryKind::kFile;
          break;
        case DT_DIR:
          kind = EntryKind::kDirectory;
          break;
        case DT_LNK:
          kind = EntryKind::kSymlink;
          break;
        case DT_UNKNOWN: {
          auto k = Lstat(name);
          if (k) kind = *k;
          break;
        }
        default:
          break;
      }
      out.push_back({std::move(name), kind});
      errno = 0;
    }
    const int err = errno;
    ::closedir(d);
    if (err != 0) return Fail("readdir", ".", err);
    return out;
  }

  std::expected<void, FsError> MakeDir(const std::string& name) override {
    if (::mkdirat(fd_.get(), name.c_str(), 0777) != 0) return Fail("mkdirat", name, errno);
    return {};
  }

  std::expected<void, FsError> ReplaceFile(const std::string& name,
                                           std::string_view content) override {
    static std::atomic<unsigned> counter{0};
    // A replaced file keeps its permissions; a new one gets 0666 less the umask.
    mode_t mode = 0666 & ~CurrentUmask();
    struct stat old {};
    if (::fstatat(fd_.get(), name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(old.st_mode)) return Fail("renameat", name, EISDIR);
      if (!S_ISLNK(old.st_mode)) {
        if (auto plain = CheckPlainFile(old, "renameat", name); !plain)
          return std::unexpected(plain.error());
      }
      if (S_ISREG(old.st_mode)) mode = old.st_mode & 07777;
    }
    std::string tmp;
    Fd fd;
    for (int attempt = 0; attempt < 100 && fd.get() < 0; ++attempt) {
      tmp = Format(".tmp-{}-{}", static_cast<long>(::getpid()), counter.fetch_add(1));
      fd = Fd(::openat(fd_.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0600));
      if (fd.get() < 0 && errno != EEXIST) return Fail("openat", tmp, errno);
    }
    if (fd.get() < 0) return Fail("openat", tmp, EEXIST);
    auto cleanup = [&](std::unexpected<FsError> e) {
      ::unlinkat(fd_.get(), tmp.c_str(), 0);
      return e;
    };
    if (auto w = WriteAll(fd.get(), content, tmp); !w) return cleanup(std::unexpected(w.error()));
    if (::fchmod(fd.get(), mode) != 0) return cleanup(Fail("fchmod", tmp, errno));
    if (::fsync(fd.get()) != 0) return cleanup(Fail("fsync", tmp, errno));
    fd.Reset();
    if (::renameat(fd_.get(), tmp.c_str(), fd_.get(), name.c_str()) != 0) {
      return cleanup(Fail("renameat", name, errno));
    }
    if (::fsync(fd_.get()) != 0) return Fail("fsync", ".", errno);
    return {};
  }

  std::expected<void, FsError> Append(const std::string& name, std::string_view content) override {
    Fd fd(::openat(fd_.get(), name.c_str(),
                   O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
    if (fd.get() < 0) return OpenFailure(name, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Fail("fstat", name, errno);
    if (auto plain = CheckPlainFile(st, "openat", name); !plain)
      return std::unexpected(plain.error());
    return WriteAll(fd.get(), content, name);
  }

 private:
  // The error of an openat(2) of `name` that failed with `err`. A socket
  // cannot be opened at all, nor a fifo without a reader for writing without
  // blocking (ENXIO): such an entry is named for what it is, kNotRegular.
  std::unexpected<FsError> OpenFailure(const std::string& name, int err) {
    struct stat st {};
    if (::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) &&
        !S_ISDIR(st.st_mode)) {
      if (auto plain = CheckPlainFile(st, "openat", name); !plain)
        return std::unexpected(plain.error());
    }
    return Fail("openat", name, err);
  }

  static mode_t CurrentUmask() {
    // umask(2) can only be read by setting it; read once, at first use.
    static const mode_t mask = [] {
      const mode_t m = ::umask(022);
      ::umask(m);
      return m;
    }();
    return mask;
  }

  Fd fd_;
};

}  // namespace

std::expected<std::unique_ptr<Dir>, FsError> PosixFilesystem::OpenRoot(const std::string& root) {
  Fd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Fail("open", root, errno);
  return std::make_unique<PosixDir>(std::move(fd));
}

std::expected<std::string, FsError> PosixFilesystem::CanonicalPath(const std::string& root) {
  char* p = ::realpath(root.c_str(), nullptr);
  if (p == nullptr) return Fail("realpath", root, errno);
  std::string out = p;
  std::free(p);
  return out;
}

}  // namespace llmconform::toolcalls
