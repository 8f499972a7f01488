// The filesystem under the ToolHost, as an openat-style interface.
//
// Every lookup is relative to an open folder (`Dir`) and names exactly one
// entry: no slashes, no "." or "..". No operation follows a symbolic link:
// a symlink is reported as such (kIsSymlink) and the caller decides whether
// and where to follow it (see sandbox.h). This is what keeps a model's paths
// inside their mounts even when someone swaps a folder for a symlink between
// a check and a use: the use refuses the symlink instead of following it.
//
// Two implementations: PosixFilesystem (openat, O_NOFOLLOW, fsync, renameat)
// and MemoryFilesystem (a tree in memory, for tests, with a hook that can
// change the tree between any two operations).
//
// Objects are not thread-safe; a Dir or File may outlive the Filesystem that
// made it only for the Posix implementation.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::toolcalls {

enum class FsErrorKind {
  kNotFound,      // no entry by that name
  kNotDirectory,  // a folder was needed, something else is there
  kIsDirectory,   // a file was needed, a folder is there
  kIsSymlink,     // the entry is a symlink, which this interface never follows
  kNotRegular,    // a fifo, socket or device
  kHardLinked,    // a regular file with more than one hard link (its other
                  // names may lie outside every mount: refused to read or write)
  kExists,        // the entry exists already
  kIo,            // anything else (permissions, disk full, I/O error)
};

struct FsError {
  FsErrorKind kind = FsErrorKind::kIo;
  std::string message;  // "openat(\"notes.md\"): Permission denied"
};

enum class EntryKind { kFile, kDirectory, kSymlink, kOther };

struct DirEntry {
  std::string name;
  EntryKind kind = EntryKind::kOther;
  friend bool operator==(const DirEntry&, const DirEntry&) = default;
};

// What identifies one version of a file's content well enough for a cache:
// a write through rename gives a new inode, an in-place write a new ctime.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// A regular file opened for reading.
class File {
 public:
  virtual ~File() = default;
  // The file's current identity (a fresh stat, so a change shows).
  virtual std::expected<FileIdentity, FsError> Identity() = 0;
  // Reads up to `buf.size()` bytes at `offset`; returns the count, 0 at the end.
  virtual std::expected<std::size_t, FsError> ReadAt(std::uint64_t offset, std::span<char> buf) = 0;
};

// An open folder. `name` arguments are single entry names.
class Dir {
 public:
  virtual ~Dir() = default;
  // The kind of the entry itself (a symlink is kSymlink, not its target).
  virtual std::expected<EntryKind, FsError> Lstat(const std::string& name) = 0;
  // The target text of the symlink `name`.
  virtual std::expected<std::string, FsError> ReadLink(const std::string& name) = 0;
  // Opens the subfolder `name`. kIsSymlink if it is a symlink, kNotDirectory
  // if it is something other than a folder.
  virtual std::expected<std::unique_ptr<Dir>, FsError> OpenDir(const std::string& name) = 0;
  // Opens the regular file `name` for reading. kIsSymlink, kIsDirectory or
  // kNotRegular when it is not one (a fifo is never opened in blocking mode),
  // kHardLinked when the file has more than one link.
  virtual std::expected<std::unique_ptr<File>, FsError> OpenFile(const std::string& name) = 0;
  // Every entry except "." and "..", in no particular order.
  virtual std::expected<std::vector<DirEntry>, FsError> List() = 0;
  // Creates the subfolder `name`; kExists when anything has that name.
  virtual std::expected<void, FsError> MakeDir(const std::string& name) = 0;
  // Atomically replaces or creates the regular file `name` with `content`:
  // a temporary file in this folder is written, flushed to disk, renamed over
  // `name`, and the folder flushed. Readers see the old content or the new,
  // never a mix, also if the process dies at any point. A symlink named
  // `name` is replaced, never followed. On error `name` is untouched and the
  // temporary file removed (a crash may leave a hidden `.tmp-*` file).
  // kHardLinked when `name` is a regular file with more than one link,
  // kNotRegular when it is a fifo, socket or device.
  virtual std::expected<void, FsError> ReplaceFile(const std::string& name,
                                                   std::string_view content) = 0;
  // Appends `content` to the regular file `name`, creating it; kIsSymlink if
  // `name` is a symlink, kNotRegular if it is not a regular file, kHardLinked
  // if it has more than one link (nothing is written then).
  virtual std::expected<void, FsError> Append(const std::string& name,
                                              std::string_view content) = 0;
};

class Filesystem {
 public:
  virtual ~Filesystem() = default;
  // Opens the folder at the host path `root` (configuration, not model
  // input: symlinks on the way are followed).
  virtual std::expected<std::unique_ptr<Dir>, FsError> OpenRoot(const std::string& root) = 0;
  // The canonical absolute form of `root` (all symlinks resolved), used to
  // recognise absolute symlink targets that point back inside a mount.
  virtual std::expected<std::string, FsError> CanonicalPath(const std::string& root) = 0;
};

}  // namespace llmconform::toolcalls
