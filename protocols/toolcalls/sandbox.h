// The sandbox: resolves mount paths to entries of the filesystem without
// ever leaving the mount (docs/protocols.md "toolcalls").
//
// Resolution walks one entry at a time from the mount's root folder through
// the openat-style Filesystem, which never follows a symlink by itself. A
// symlink met on the way is followed here, and only while it stays inside
// its mount: a relative target is applied to the folder holding the link
// (its `..` segments climb the folders actually walked, never above the
// root), an absolute target must lie under the mount root's canonical path.
// Anything else is a violation, as are more than 40 symlinks. Because every
// open refuses a symlink it did not expect, a folder swapped for a symlink
// between a check and a use is caught at the use and resolved again.
//
// Messages never show host paths or symlink targets, only mount paths.
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "protocols/toolcalls/filesystem.h"
#include "protocols/toolcalls/mount_path.h"

namespace llmconform::toolcalls {

// The host folders behind the mounts; "" leaves a mount unavailable.
struct MountRoots {
  std::string project;
  std::string pkg;
  std::string state;
};

enum class SandboxErrorKind {
  kViolation,     // the path leads outside its mount
  kUnmounted,     // the mount has no host folder in this run
  kNotFound,      // an entry on the way, or the final one, does not exist
  kNotDirectory,  // a folder was needed
  kIsDirectory,   // a file was needed
  kNotRegular,    // a fifo, socket or device
  kHardLinked,    // a regular file with more than one hard link
  kIo,            // the filesystem failed
};

struct SandboxError {
  SandboxErrorKind kind = SandboxErrorKind::kIo;
  std::string message;
};

// Where a mount path leads.
struct Resolved {
  std::unique_ptr<Dir> parent;    // the folder holding the entry; null for a mount root
  std::string name;               // the entry's name in `parent`; "" for a mount root
  MountPath physical;             // the mount path after following symlinks
  std::optional<EntryKind> kind;  // nullopt: the entry does not exist (its folder does)
};

// "@project/x has more than one hard link; the sandbox refuses such files".
std::string HardLinkedMessage(const MountPath& path);

class Sandbox {
 public:
  // `fs` must outlive the sandbox.
  Sandbox(Filesystem& fs, MountRoots roots);

  // Resolves `path`, following symlinks inside the mount, also in the final
  // entry. With `create_parents`, missing folders on the way are created.
  std::expected<Resolved, SandboxError> Resolve(const MountPath& path, bool create_parents = false);
  // Opens the regular file `path` names; `physical`, when given, receives
  // the mount path it was found at. A fifo, socket or device is kNotRegular,
  // a regular file with more than one hard link kHardLinked: a hard link is
  // a second name of a file that may live outside every mount, which no
  // path check can see.
  std::expected<std::unique_ptr<File>, SandboxError> OpenFile(const MountPath& path,
                                                              MountPath* physical = nullptr);
  // Opens the folder `path` names.
  std::expected<std::unique_ptr<Dir>, SandboxError> OpenDir(const MountPath& path);

  Filesystem& filesystem() { return fs_; }

 private:
  std::expected<std::unique_ptr<Dir>, SandboxError> OpenRoot(Mount m);
  const std::string& RootOf(Mount m) const;

  Filesystem& fs_;
  MountRoots roots_;
};

}  // namespace llmconform::toolcalls
