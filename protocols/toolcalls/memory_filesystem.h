// An in-memory filesystem for tests: a tree of folders, files and symlinks
// under "/", with the same contract as PosixFilesystem (filesystem.h).
//
// Setup helpers take absolute paths and create missing parent folders
// (symlinks on the way are followed, as a shell would); they return false,
// changing nothing, when the parent cannot be a folder (a file or a dangling
// symlink is in the way). A hook runs before
// every Dir operation: it can change the tree (swap a folder for a symlink
// between a check and a use) or make the operation fail.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/toolcalls/filesystem.h"

namespace llmconform::toolcalls {

class MemoryFilesystem final : public Filesystem {
 public:
  struct Node;

  // Called before each Dir operation with its name ("Lstat", "ReadLink",
  // "OpenDir", "OpenFile", "List", "MakeDir", "ReplaceFile", "Append") and
  // the entry name; an FsError returned fails the operation with it.
  using Hook = std::function<std::optional<FsError>(std::string_view op, const std::string& name)>;

  MemoryFilesystem();
  ~MemoryFilesystem() override;

  bool AddDir(std::string_view path);
  bool AddFile(std::string_view path, std::string_view content);
  bool AddSymlink(std::string_view path, std::string_view target);
  bool AddFifo(std::string_view path);
  // Removes the entry (a folder with all it holds); no-op when absent.
  void Remove(std::string_view path);
  // Content of the file at `path` (symlinks followed), nullopt if none.
  std::optional<std::string> ReadFile(std::string_view path) const;
  bool Exists(std::string_view path) const;
  // Every path in the tree with a description of its entry, for comparing
  // a tree before and after ("/a/b.md" -> "file:<content>").
  std::map<std::string, std::string> Snapshot() const;

  void SetHook(Hook hook) { hook_ = std::move(hook); }

  std::expected<std::unique_ptr<Dir>, FsError> OpenRoot(const std::string& root) override;
  std::expected<std::string, FsError> CanonicalPath(const std::string& root) override;

 private:
  std::shared_ptr<Node> Walk(std::string_view path, bool create, std::string* canonical) const;
  bool AddEntry(std::string_view path, EntryKind kind, std::string_view content);

  std::shared_ptr<Node> root_;
  Hook hook_;
  mutable std::uint64_t next_inode_ = 1;
  friend class MemoryDir;
};

}  // namespace llmconform::toolcalls
