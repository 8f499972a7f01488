// A fresh folder under the temp directory, removed with everything in it
// when the object goes out of scope, or when a signal ends llmconform
// (base/child_groups.h).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "base/child_groups.h"

namespace llmconform::harness {

class ScratchDir {
 public:
  // `prefix` names the folder ("llmconform-" → /tmp/llmconform-a1B2c3).
  // path() is empty when the folder could not be made.
  explicit ScratchDir(const std::string& prefix = "llmconform-") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (mkdtemp(pattern.data())) path_ = pattern;
    if (!path_.empty()) WatchScratchFolder(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    if (path_.empty()) return;
    std::filesystem::remove_all(path_, ec);
    ForgetScratchFolder(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace llmconform::harness
