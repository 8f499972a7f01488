#include "harness/data_dir.h"

#include <system_error>

namespace llmconform::harness {

namespace fs = std::filesystem;

fs::path InstalledDataDir(const fs::path& exe) {
  return (exe.parent_path().parent_path() / "share" / "llmconform").lexically_normal();
}

fs::path DefaultSpecsDir() {
  std::error_code ec;
  if (fs::is_directory("specs", ec)) return "specs";
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = InstalledDataDir(exe) / "specs";
    if (fs::is_directory(installed, ec)) return installed;
  }
  return "specs";
}

}  // namespace llmconform::harness
