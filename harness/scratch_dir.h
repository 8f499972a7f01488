// A fresh folder under the temp directory, removed with everything in it
// when the object goes out of scope.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace llmconform::harness {

class ScratchDir {
 public:
  // `prefix` names the folder ("llmconform-" → /tmp/llmconform-a1B2c3).
  // path() is empty when the folder could not be made.
  explicit ScratchDir(const std::string& prefix = "llmconform-") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace llmconform::harness
