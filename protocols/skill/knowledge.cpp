#include "protocols/skill/knowledge.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

using Clock = std::chrono::steady_clock;

// The file's text if `path` is a regular file; nullopt if there is none;
// "" if it could not be read in time.
std::optional<std::string> ReadRegularFile(const std::filesystem::path& path,
                                           Clock::time_point deadline) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  while (true) {
    if (Clock::now() >= deadline) {
      text.clear();
      break;
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      text.clear();
      break;
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

LocalKnowledgeSource::LocalKnowledgeSource(std::filesystem::path working_dir,
                                           std::filesystem::path home,
                                           std::chrono::milliseconds limit)
    : working_dir_(std::move(working_dir)), home_(std::move(home)), limit_(limit) {}

std::string LocalKnowledgeSource::Read() {
  const auto deadline = Clock::now() + limit_;
  auto text = ReadRegularFile(working_dir_ / ".kosmos-panel" / "ai_system_promt.md", deadline);
  if (!text && !home_.empty()) {
    text = ReadRegularFile(home_ / ".config" / "kosmos-panel" / "ai_system_promt.md", deadline);
  }
  return text ? std::string(Trim(*text)) : std::string();
}

}  // namespace llmconform::skill
