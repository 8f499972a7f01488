// The real filesystem under the ToolHost: openat(2) relative to folder file
// descriptors, O_NOFOLLOW on every open, O_NONBLOCK so a planted fifo never
// blocks, and atomic replacement by temporary file + fsync + renameat(2) +
// fsync of the folder. See filesystem.h for the contract.
#pragma once

#include "protocols/toolcalls/filesystem.h"

namespace llmconform::toolcalls {

class PosixFilesystem final : public Filesystem {
 public:
  std::expected<std::unique_ptr<Dir>, FsError> OpenRoot(const std::string& root) override;
  std::expected<std::string, FsError> CanonicalPath(const std::string& root) override;
};

}  // namespace llmconform::toolcalls
