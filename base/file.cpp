#include "base/file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "base/format.h"

namespace llmconform {

std::expected<std::string, Error> ReadFile(const std::filesystem::path& path,
                                           std::size_t max_bytes) {
  const auto fail = [&](ErrorKind kind, std::string_view why) {
    return std::unexpected(Error{Format("{}: cannot read: {}", path.string(), why), kind});
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return ec && ec != std::errc::no_such_file_or_directory
               ? fail(ErrorKind::kIo, ec.message())
               : fail(ErrorKind::kNotFound, "no such file");
  }
  if (std::filesystem::is_directory(status))
    return fail(ErrorKind::kInvalidInput, "it is a folder");
  if (std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status))
    return fail(ErrorKind::kInvalidInput, "it is a device, not a file");
  const auto too_long = [&] {
    return fail(ErrorKind::kInvalidInput, Format("it is longer than {} bytes", max_bytes));
  };
  if (std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) return too_long();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorKind::kIo, std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > max_bytes - out.size()) return too_long();
    out.append(buf, n);
  }
  if (in.bad()) return fail(ErrorKind::kIo, "read error");
  return out;
}

}  // namespace llmconform
