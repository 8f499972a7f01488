#include "protocols/toolcalls/sandbox.h"

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "base/format.h"

namespace llmconform::toolcalls {
namespace {

constexpr int kMaxSymlinks = 40;
constexpr int kMaxRetries = 16;  // entries that change kind while being walked

std::unexpected<SandboxError> Err(SandboxErrorKind kind, std::string message) {
  return std::unexpected(SandboxError{kind, std::move(message)});
}

SandboxErrorKind KindOf(FsErrorKind k) {
  switch (k) {
    case FsErrorKind::kNotFound:
      return SandboxErrorKind::kNotFound;
    case FsErrorKind::kNotDirectory:
      return SandboxErrorKind::kNotDirectory;
    case FsErrorKind::kIsDirectory:
      return SandboxErrorKind::kIsDirectory;
    case FsErrorKind::kNotRegular:
      return SandboxErrorKind::kNotRegular;
    case FsErrorKind::kHardLinked:
      return SandboxErrorKind::kHardLinked;
    default:
      return SandboxErrorKind::kIo;
  }
}

std::vector<std::string> SplitTarget(std::string_view target) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= target.size()) {
    std::size_t j = target.find('/', i);
    if (j == std::string_view::npos) j = target.size();
    if (j > i) out.emplace_back(target.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The state of one Sandbox::Resolve: the folders walked so far from the
// mount's root (their names give the physical path), the segments still to
// walk, and the symlinks followed. Borrows `path`, `fs` and `mount_root`,
// which outlive it.
class ResolveWalk {
 public:
  ResolveWalk(const MountPath& path, std::unique_ptr<Dir> root, Filesystem& fs,
              const std::string& mount_root)
      : shown(path.Display()),
        pending(path.segments.begin(), path.segments.end()),
        path_(path),
        fs_(fs),
        mount_root_(mount_root) {
    stack.emplace_back("", std::move(root));
  }

  const std::string shown;
  std::vector<std::pair<std::string, std::unique_ptr<Dir>>> stack;
  std::deque<std::string> pending;
  std::string last_link;  // the symlink whose target is being walked

  // The mount path of the folders walked, then `last` when given.
  MountPath PhysicalOf(const std::string* last) const {
    MountPath p{path_.mount, {}};
    for (std::size_t i = 1; i < stack.size(); ++i) p.segments.push_back(stack[i].first);
    if (last) p.segments.push_back(*last);
    return p;
  }

  std::unexpected<SandboxError> Outside(const std::string& link) const {
    return Err(SandboxErrorKind::kViolation, Format("{} leads outside {} through the symlink {}",
                                                    shown, MountName(path_.mount), link));
  }

  // `name` in the top folder, taking over that folder as its parent.
  Resolved Found(std::string name, std::optional<EntryKind> kind) {
    Resolved r;
    r.physical = PhysicalOf(&name);
    r.parent = std::move(stack.back().second);
    r.name = std::move(name);
    r.kind = kind;
    return r;
  }

  // Enters the folder `name` of the top folder (a segment before the last):
  // follows it when a symlink, creates it when missing and `create_parents`.
  std::expected<void, SandboxError> Enter(std::string name, bool create_parents) {
    Dir& top = *stack.back().second;
    auto dir = top.OpenDir(name);
    if (dir) {
      stack.emplace_back(std::move(name), std::move(*dir));
      return {};
    }
    const FsError& e = dir.error();
    if (e.kind == FsErrorKind::kIsSymlink) return Follow(name);
    if (e.kind == FsErrorKind::kNotFound && create_parents && retries_ <= kMaxRetries) {
      auto made = top.MakeDir(name);
      if (!made && made.error().kind == FsErrorKind::kExists) ++retries_;  // raced: look again
      if (!made && made.error().kind != FsErrorKind::kExists) {
        return Err(SandboxErrorKind::kIo,
                   Format("{}: cannot create the folder {}", shown, PhysicalOf(&name).Display()));
      }
      pending.push_front(std::move(name));
      return {};
    }
    const std::string at = PhysicalOf(&name).Display();
    switch (e.kind) {
      case FsErrorKind::kNotFound:
        return Err(SandboxErrorKind::kNotFound, Format("{}: no folder {}", shown, at));
      case FsErrorKind::kNotDirectory:
      case FsErrorKind::kNotRegular:
        return Err(SandboxErrorKind::kNotDirectory, Format("{}: {} is not a folder", shown, at));
      default:
        return Err(SandboxErrorKind::kIo, Format("{}: cannot open {}", shown, at));
    }
  }

  // Replaces the symlink `name` in the top folder by its target's segments.
  std::expected<void, SandboxError> Follow(const std::string& name) {
    const std::string link = PhysicalOf(&name).Display();
    last_link = link;
    if (++symlinks_ > kMaxSymlinks) {
      return Err(SandboxErrorKind::kViolation,
                 Format("{}: more than {} symlinks", shown, kMaxSymlinks));
    }
    auto target = stack.back().second->ReadLink(name);
    if (!target) {
      // Not a symlink any more: walk the entry again.
      if (++retries_ > kMaxRetries)
        return Err(SandboxErrorKind::kIo, Format("{} keeps changing", shown));
      pending.push_front(name);
      return {};
    }
    if (target->empty())
      return Err(SandboxErrorKind::kNotFound, Format("{}: the symlink {} is empty", shown, link));
    std::string_view rest = *target;
    if (rest.front() == '/') {
      if (!canonical_root_) {
        auto c = fs_.CanonicalPath(mount_root_);
        if (!c)
          return Err(SandboxErrorKind::kIo,
                     Format("mount {} cannot be resolved", MountName(path_.mount)));
        canonical_root_ = *c;
      }
      const std::string& c = *canonical_root_;
      const bool inside =
          rest == c || (rest.size() > c.size() && rest.compare(0, c.size(), c) == 0 &&
                        (c == "/" || rest[c.size()] == '/'));
      if (!inside) return Outside(link);
      rest.remove_prefix(c == "/" ? 1 : c.size());
      stack.resize(1);
    }
    const std::vector<std::string> segs = SplitTarget(rest);
    pending.insert(pending.begin(), segs.begin(), segs.end());
    return {};
  }

 private:
  const MountPath& path_;
  Filesystem& fs_;
  const std::string& mount_root_;
  std::optional<std::string> canonical_root_;
  int symlinks_ = 0;
  int retries_ = 0;
};

}  // namespace

std::string HardLinkedMessage(const MountPath& path) {
  return Format("{} has more than one hard link; the sandbox refuses such files", path.Display());
}

Sandbox::Sandbox(Filesystem& fs, MountRoots roots) : fs_(fs), roots_(std::move(roots)) {}

const std::string& Sandbox::RootOf(Mount m) const {
  switch (m) {
    case Mount::kProject:
      return roots_.project;
    case Mount::kPkg:
      return roots_.pkg;
    case Mount::kState:
      break;
  }
  return roots_.state;
}

std::expected<std::unique_ptr<Dir>, SandboxError> Sandbox::OpenRoot(Mount m) {
  const std::string& root = RootOf(m);
  if (root.empty())
    return Err(SandboxErrorKind::kUnmounted, Format("mount {} is not available", MountName(m)));
  auto dir = fs_.OpenRoot(root);
  if (!dir) return Err(SandboxErrorKind::kIo, Format("mount {} cannot be opened", MountName(m)));
  return std::move(*dir);
}

std::expected<Resolved, SandboxError> Sandbox::Resolve(const MountPath& path, bool create_parents) {
  auto root = OpenRoot(path.mount);
  if (!root) return std::unexpected(root.error());
  ResolveWalk walk(path, std::move(*root), fs_, RootOf(path.mount));
  while (!walk.pending.empty()) {
    std::string name = std::move(walk.pending.front());
    walk.pending.pop_front();
    if (name == ".") continue;
    if (name == "..") {
      // Only symlink targets bring `..` here: ParseMountPath refuses it.
      if (walk.stack.size() == 1) return walk.Outside(walk.last_link);
      walk.stack.pop_back();
      continue;
    }
    if (!walk.pending.empty()) {
      if (auto entered = walk.Enter(std::move(name), create_parents); !entered) {
        return std::unexpected(entered.error());
      }
      continue;
    }
    auto kind = walk.stack.back().second->Lstat(name);
    if (!kind && kind.error().kind == FsErrorKind::kNotFound)
      return walk.Found(std::move(name), {});
    if (!kind) {
      return Err(SandboxErrorKind::kIo,
                 Format("{}: cannot inspect {}", walk.shown, walk.PhysicalOf(&name).Display()));
    }
    if (*kind == EntryKind::kSymlink) {
      if (auto f = walk.Follow(name); !f) return std::unexpected(f.error());
      continue;
    }
    return walk.Found(std::move(name), *kind);
  }
  // The path ended on a folder already walked (a mount root, or a symlink
  // whose target ends in a folder's name or `..`).
  if (walk.stack.size() == 1) {
    Resolved r;
    r.kind = EntryKind::kDirectory;
    r.physical = MountPath{path.mount, {}};
    return r;
  }
  std::string last = std::move(walk.stack.back().first);
  walk.stack.pop_back();
  return walk.Found(std::move(last), EntryKind::kDirectory);
}

std::expected<std::unique_ptr<File>, SandboxError> Sandbox::OpenFile(const MountPath& path,
                                                                     MountPath* physical) {
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto r = Resolve(path);
    if (!r && r.error().kind == SandboxErrorKind::kNotFound) {
      return Err(SandboxErrorKind::kNotFound, Format("File not found: {}", path.Display()));
    }
    if (!r) return std::unexpected(r.error());
    const std::string at = r->physical.Display();
    if (!r->kind)
      return Err(SandboxErrorKind::kNotFound, Format("File not found: {}", path.Display()));
    if (*r->kind == EntryKind::kDirectory) {
      return Err(SandboxErrorKind::kIsDirectory,
                 Format("{} is a folder, not a file", path.Display()));
    }
    // A fifo, socket or device is refused before it is opened: opening
    // some devices has effects.
    if (*r->kind == EntryKind::kOther) {
      return Err(SandboxErrorKind::kNotRegular, Format("{} is not a regular file", path.Display()));
    }
    auto file = r->parent->OpenFile(r->name);
    if (file) {
      if (physical) *physical = r->physical;
      return std::move(*file);
    }
    // Swapped for a symlink (or removed) since Resolve looked: resolve again.
    if (file.error().kind == FsErrorKind::kIsSymlink || file.error().kind == FsErrorKind::kNotFound)
      continue;
    if (file.error().kind == FsErrorKind::kNotRegular) {
      return Err(SandboxErrorKind::kNotRegular, Format("{} is not a regular file", path.Display()));
    }
    if (file.error().kind == FsErrorKind::kHardLinked) {
      return Err(SandboxErrorKind::kHardLinked, HardLinkedMessage(path));
    }
    return Err(KindOf(file.error().kind), Format("{}: cannot open {}", path.Display(), at));
  }
  return Err(SandboxErrorKind::kIo, Format("{} keeps changing", path.Display()));
}

std::expected<std::unique_ptr<Dir>, SandboxError> Sandbox::OpenDir(const MountPath& path) {
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto r = Resolve(path);
    if (!r && r.error().kind == SandboxErrorKind::kNotFound) {
      return Err(SandboxErrorKind::kNotFound, Format("Folder not found: {}", path.Display()));
    }
    if (!r) return std::unexpected(r.error());
    if (!r->parent) return OpenRoot(path.mount);
    if (!r->kind)
      return Err(SandboxErrorKind::kNotFound, Format("Folder not found: {}", path.Display()));
    if (*r->kind != EntryKind::kDirectory) {
      return Err(SandboxErrorKind::kNotDirectory, Format("{} is not a folder", path.Display()));
    }
    auto dir = r->parent->OpenDir(r->name);
    if (dir) return std::move(*dir);
    if (dir.error().kind == FsErrorKind::kIsSymlink || dir.error().kind == FsErrorKind::kNotFound)
      continue;
    return Err(KindOf(dir.error().kind), Format("{}: cannot open the folder", path.Display()));
  }
  return Err(SandboxErrorKind::kIo, Format("{} keeps changing", path.Display()));
}

}  // namespace llmconform::toolcalls
