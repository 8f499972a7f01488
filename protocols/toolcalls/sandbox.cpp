#include "protocols/toolcalls/sandbox.h"

#include <deque>
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
  const std::string shown = path.Display();
  auto root = OpenRoot(path.mount);
  if (!root) return std::unexpected(root.error());
  auto outside = [&](const std::string& link) {
    return Err(SandboxErrorKind::kViolation, Format("{} leads outside {} through the symlink {}",
                                                    shown, MountName(path.mount), link));
  };

  // The folders walked so far, from the root; names give the physical path.
  std::vector<std::pair<std::string, std::unique_ptr<Dir>>> stack;
  stack.emplace_back("", std::move(*root));
  std::deque<std::string> pending(path.segments.begin(), path.segments.end());
  std::optional<std::string> canonical_root;
  int symlinks = 0;
  int retries = 0;
  std::string last_link;  // the symlink whose target is being walked

  auto physical_of = [&](const std::string* last) {
    MountPath p{path.mount, {}};
    for (std::size_t i = 1; i < stack.size(); ++i) p.segments.push_back(stack[i].first);
    if (last) p.segments.push_back(*last);
    return p;
  };
  // Replaces the symlink `name` in the top folder by its target's segments.
  auto follow = [&](const std::string& name) -> std::expected<void, SandboxError> {
    const std::string link = physical_of(&name).Display();
    last_link = link;
    if (++symlinks > kMaxSymlinks) {
      return Err(SandboxErrorKind::kViolation,
                 Format("{}: more than {} symlinks", shown, kMaxSymlinks));
    }
    auto target = stack.back().second->ReadLink(name);
    if (!target) {
      // Not a symlink any more: walk the entry again.
      if (++retries > kMaxRetries)
        return Err(SandboxErrorKind::kIo, Format("{} keeps changing", shown));
      pending.push_front(name);
      return {};
    }
    if (target->empty())
      return Err(SandboxErrorKind::kNotFound, Format("{}: the symlink {} is empty", shown, link));
    std::string_view rest = *target;
    if (rest.front() == '/') {
      if (!canonical_root) {
        auto c = fs_.CanonicalPath(RootOf(path.mount));
        if (!c)
          return Err(SandboxErrorKind::kIo,
                     Format("mount {} cannot be resolved", MountName(path.mount)));
        canonical_root = *c;
      }
      const std::string& c = *canonical_root;
      const bool inside =
          rest == c || (rest.size() > c.size() && rest.compare(0, c.size(), c) == 0 &&
                        (c == "/" || rest[c.size()] == '/'));
      if (!inside) return outside(link);
      rest.remove_prefix(c == "/" ? 1 : c.size());
      stack.resize(1);
    }
    const std::vector<std::string> segs = SplitTarget(rest);
    pending.insert(pending.begin(), segs.begin(), segs.end());
    return {};
  };

  while (!pending.empty()) {
    std::string name = std::move(pending.front());
    pending.pop_front();
    if (name == ".") continue;
    if (name == "..") {
      // Only symlink targets bring `..` here: ParseMountPath refuses it.
      if (stack.size() == 1) return outside(last_link);
      stack.pop_back();
      continue;
    }
    Dir& top = *stack.back().second;
    if (!pending.empty()) {
      auto dir = top.OpenDir(name);
      if (dir) {
        stack.emplace_back(std::move(name), std::move(*dir));
        continue;
      }
      const FsError& e = dir.error();
      if (e.kind == FsErrorKind::kIsSymlink) {
        if (auto f = follow(name); !f) return std::unexpected(f.error());
        continue;
      }
      if (e.kind == FsErrorKind::kNotFound && create_parents && retries <= kMaxRetries) {
        auto made = top.MakeDir(name);
        if (!made && made.error().kind == FsErrorKind::kExists) ++retries;  // raced: look again
        if (!made && made.error().kind != FsErrorKind::kExists) {
          return Err(SandboxErrorKind::kIo, Format("{}: cannot create the folder {}", shown,
                                                   physical_of(&name).Display()));
        }
        pending.push_front(std::move(name));
        continue;
      }
      const std::string at = physical_of(&name).Display();
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
    auto kind = top.Lstat(name);
    if (!kind) {
      if (kind.error().kind == FsErrorKind::kNotFound) {
        Resolved r;
        r.physical = physical_of(&name);
        r.parent = std::move(stack.back().second);
        r.name = std::move(name);
        return r;
      }
      return Err(SandboxErrorKind::kIo,
                 Format("{}: cannot inspect {}", shown, physical_of(&name).Display()));
    }
    if (*kind == EntryKind::kSymlink) {
      if (auto f = follow(name); !f) return std::unexpected(f.error());
      continue;
    }
    Resolved r;
    r.physical = physical_of(&name);
    r.parent = std::move(stack.back().second);
    r.name = std::move(name);
    r.kind = *kind;
    return r;
  }
  // The path ended on a folder already walked (a mount root, or a symlink
  // whose target ends in a folder's name or `..`).
  Resolved r;
  r.kind = EntryKind::kDirectory;
  if (stack.size() == 1) {
    r.physical = MountPath{path.mount, {}};
    return r;
  }
  std::string last = std::move(stack.back().first);
  stack.pop_back();
  r.physical = physical_of(&last);
  r.parent = std::move(stack.back().second);
  r.name = std::move(last);
  return r;
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
