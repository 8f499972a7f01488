#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/format.h"

namespace llmconform {

std::expected<void, Error> WriteFileAtomically(const std::filesystem::path& path,
                                               std::string_view content) {
  auto fail = [&](std::string_view what) {
    return std::unexpected(
        Error::Io(Format("{}: cannot write: {}: {}", path.string(), what, std::strerror(errno))));
  };
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    errno = ec.value();
    return fail("creating its folder");
  }
  std::string tmp = path.string() + ".tmp-XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return fail("creating a temporary file");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = saved;
      return fail("writing");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    return fail("syncing");
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    return fail("renaming into place");
  }
  return {};
}

}  // namespace llmconform
