#include "protocols/toolcalls/memory_filesystem.h"

#include <vector>

#include "base/format.h"

namespace llmconform::toolcalls {

struct MemoryFilesystem::Node {
  EntryKind kind = EntryKind::kDirectory;
  std::string content;  // file content or symlink target
  std::map<std::string, std::shared_ptr<Node>> children;
  std::uint64_t inode = 0;
  std::int64_t version = 0;  // bumped on every change, stands for mtime/ctime
};

namespace {

using Node = MemoryFilesystem::Node;

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::unexpected<FsError> Fail(FsErrorKind kind, std::string_view op, std::string_view name) {
  static constexpr std::string_view kText[] = {"No such file or directory",
                                               "Not a directory",
                                               "Is a directory",
                                               "Too many levels of symbolic links",
                                               "Not a regular file",
                                               "File exists",
                                               "Input/output error"};
  return std::unexpected(
      FsError{kind, Format("{}(\"{}\"): {}", op, name, kText[static_cast<int>(kind)])});
}

class MemoryFile final : public File {
 public:
  explicit MemoryFile(std::shared_ptr<Node> node) : node_(std::move(node)) {}
  std::expected<FileIdentity, FsError> Identity() override {
    return FileIdentity{1, node_->inode, node_->content.size(), node_->version, node_->version};
  }
  std::expected<std::size_t, FsError> ReadAt(std::uint64_t offset, std::span<char> buf) override {
    if (offset >= node_->content.size()) return 0;
    const std::size_t n = std::min<std::size_t>(buf.size(), node_->content.size() - offset);
    node_->content.copy(buf.data(), n, offset);
    return n;
  }

 private:
  std::shared_ptr<Node> node_;  // an open file keeps its content, as an inode does
};

}  // namespace

class MemoryDir final : public Dir {
 public:
  MemoryDir(MemoryFilesystem& fs, std::shared_ptr<Node> node) : fs_(fs), node_(std::move(node)) {}

  std::expected<EntryKind, FsError> Lstat(const std::string& name) override {
    if (auto e = Hook("Lstat", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (!child) return Fail(FsErrorKind::kNotFound, "fstatat", name);
    return child->kind;
  }

  std::expected<std::string, FsError> ReadLink(const std::string& name) override {
    if (auto e = Hook("ReadLink", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (!child) return Fail(FsErrorKind::kNotFound, "readlinkat", name);
    if (child->kind != EntryKind::kSymlink)
      return Fail(FsErrorKind::kNotRegular, "readlinkat", name);
    return child->content;
  }

  std::expected<std::unique_ptr<Dir>, FsError> OpenDir(const std::string& name) override {
    if (auto e = Hook("OpenDir", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (!child) return Fail(FsErrorKind::kNotFound, "openat", name);
    if (child->kind == EntryKind::kSymlink) return Fail(FsErrorKind::kIsSymlink, "openat", name);
    if (child->kind != EntryKind::kDirectory)
      return Fail(FsErrorKind::kNotDirectory, "openat", name);
    return std::make_unique<MemoryDir>(fs_, child);
  }

  std::expected<std::unique_ptr<File>, FsError> OpenFile(const std::string& name) override {
    if (auto e = Hook("OpenFile", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (!child) return Fail(FsErrorKind::kNotFound, "openat", name);
    switch (child->kind) {
      case EntryKind::kSymlink:
        return Fail(FsErrorKind::kIsSymlink, "openat", name);
      case EntryKind::kDirectory:
        return Fail(FsErrorKind::kIsDirectory, "openat", name);
      case EntryKind::kOther:
        return Fail(FsErrorKind::kNotRegular, "openat", name);
      case EntryKind::kFile:
        break;
    }
    return std::make_unique<MemoryFile>(child);
  }

  std::expected<std::vector<DirEntry>, FsError> List() override {
    if (auto e = Hook("List", ".")) return std::unexpected(*e);
    std::vector<DirEntry> out;
    for (const auto& [name, child] : node_->children) out.push_back({name, child->kind});
    return out;
  }

  std::expected<void, FsError> MakeDir(const std::string& name) override {
    if (auto e = Hook("MakeDir", name)) return std::unexpected(*e);
    if (Find(name)) return Fail(FsErrorKind::kExists, "mkdirat", name);
    auto n = std::make_shared<Node>();
    n->inode = fs_.next_inode_++;
    node_->children[name] = n;
    return {};
  }

  std::expected<void, FsError> ReplaceFile(const std::string& name,
                                           std::string_view content) override {
    if (auto e = Hook("ReplaceFile", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (child && child->kind == EntryKind::kDirectory)
      return Fail(FsErrorKind::kIsDirectory, "renameat", name);
    if (child && child->kind == EntryKind::kOther)
      return Fail(FsErrorKind::kNotRegular, "renameat", name);
    // A new node, as rename gives a new inode: open readers keep the old one.
    auto n = std::make_shared<Node>();
    n->kind = EntryKind::kFile;
    n->content = std::string(content);
    n->inode = fs_.next_inode_++;
    n->version = child ? child->version + 1 : 1;
    node_->children[name] = n;
    return {};
  }

  std::expected<void, FsError> Append(const std::string& name, std::string_view content) override {
    if (auto e = Hook("Append", name)) return std::unexpected(*e);
    auto child = Find(name);
    if (!child) {
      child = std::make_shared<Node>();
      child->kind = EntryKind::kFile;
      child->inode = fs_.next_inode_++;
      node_->children[name] = child;
    }
    if (child->kind == EntryKind::kSymlink) return Fail(FsErrorKind::kIsSymlink, "openat", name);
    if (child->kind == EntryKind::kDirectory)
      return Fail(FsErrorKind::kIsDirectory, "openat", name);
    if (child->kind != EntryKind::kFile) return Fail(FsErrorKind::kNotRegular, "openat", name);
    child->content.append(content);
    ++child->version;
    return {};
  }

 private:
  std::optional<FsError> Hook(std::string_view op, const std::string& name) {
    return fs_.hook_ ? fs_.hook_(op, name) : std::nullopt;
  }
  std::shared_ptr<Node> Find(const std::string& name) const {
    auto it = node_->children.find(name);
    return it == node_->children.end() ? nullptr : it->second;
  }

  MemoryFilesystem& fs_;
  std::shared_ptr<Node> node_;
};

MemoryFilesystem::MemoryFilesystem() : root_(std::make_shared<Node>()) {
  root_->inode = next_inode_++;
}
MemoryFilesystem::~MemoryFilesystem() = default;

std::shared_ptr<Node> MemoryFilesystem::Walk(std::string_view path, bool create,
                                             std::string* canonical) const {
  std::vector<std::string> pending = Split(path);
  std::vector<std::pair<std::string, std::shared_ptr<Node>>> stack{{"", root_}};
  int hops = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const std::string name = pending[i];
    if (name == ".") continue;
    if (name == "..") {
      if (stack.size() > 1) stack.pop_back();
      continue;
    }
    auto& dir = stack.back().second;
    if (dir->kind != EntryKind::kDirectory) return nullptr;
    auto it = dir->children.find(name);
    if (it == dir->children.end()) {
      if (!create) return nullptr;
      auto n = std::make_shared<Node>();
      n->inode = next_inode_++;
      it = dir->children.emplace(name, n).first;
    }
    if (it->second->kind == EntryKind::kSymlink) {
      if (++hops > 40) return nullptr;
      std::vector<std::string> target = Split(it->second->content);
      if (!it->second->content.empty() && it->second->content[0] == '/') stack.resize(1);
      target.insert(target.end(), pending.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                    pending.end());
      pending = std::move(target);
      i = static_cast<std::size_t>(-1);
      continue;
    }
    stack.emplace_back(name, it->second);
  }
  if (canonical) {
    canonical->clear();
    for (std::size_t i = 1; i < stack.size(); ++i) {
      canonical->push_back('/');
      canonical->append(stack[i].first);
    }
    if (canonical->empty()) canonical->push_back('/');
  }
  return stack.back().second;
}

bool MemoryFilesystem::AddDir(std::string_view path) {
  auto n = Walk(path, true, nullptr);
  return n && n->kind == EntryKind::kDirectory;
}

namespace {
std::pair<std::string, std::string> ParentAndName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {"/", std::string(path)};
  return {std::string(path.substr(0, slash)), std::string(path.substr(slash + 1))};
}
}  // namespace

bool MemoryFilesystem::AddEntry(std::string_view path, EntryKind kind, std::string_view content) {
  auto [parent, name] = ParentAndName(path);
  auto dir = Walk(parent, true, nullptr);
  if (!dir || dir->kind != EntryKind::kDirectory) return false;
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->content = std::string(content);
  n->inode = next_inode_++;
  n->version = 1;
  dir->children[name] = n;
  return true;
}

bool MemoryFilesystem::AddFile(std::string_view path, std::string_view content) {
  return AddEntry(path, EntryKind::kFile, content);
}

bool MemoryFilesystem::AddSymlink(std::string_view path, std::string_view target) {
  return AddEntry(path, EntryKind::kSymlink, target);
}

bool MemoryFilesystem::AddFifo(std::string_view path) {
  return AddEntry(path, EntryKind::kOther, "");
}

void MemoryFilesystem::Remove(std::string_view path) {
  auto [parent, name] = ParentAndName(path);
  if (auto dir = Walk(parent, false, nullptr)) dir->children.erase(name);
}

std::optional<std::string> MemoryFilesystem::ReadFile(std::string_view path) const {
  auto n = Walk(path, false, nullptr);
  if (!n || n->kind != EntryKind::kFile) return std::nullopt;
  return n->content;
}

bool MemoryFilesystem::Exists(std::string_view path) const {
  return Walk(path, false, nullptr) != nullptr;
}

std::map<std::string, std::string> MemoryFilesystem::Snapshot() const {
  std::map<std::string, std::string> out;
  std::function<void(const std::string&, const Node&)> visit = [&](const std::string& prefix,
                                                                   const Node& n) {
    for (const auto& [name, child] : n.children) {
      const std::string p = prefix + "/" + name;
      switch (child->kind) {
        case EntryKind::kDirectory:
          out[p] = "dir";
          visit(p, *child);
          break;
        case EntryKind::kFile:
          out[p] = "file:" + child->content;
          break;
        case EntryKind::kSymlink:
          out[p] = "symlink:" + child->content;
          break;
        case EntryKind::kOther:
          out[p] = "other";
          break;
      }
    }
  };
  visit("", *root_);
  return out;
}

std::expected<std::unique_ptr<Dir>, FsError> MemoryFilesystem::OpenRoot(const std::string& root) {
  auto n = Walk(root, false, nullptr);
  if (!n) return Fail(FsErrorKind::kNotFound, "open", root);
  if (n->kind != EntryKind::kDirectory) return Fail(FsErrorKind::kNotDirectory, "open", root);
  return std::make_unique<MemoryDir>(*this, n);
}

std::expected<std::string, FsError> MemoryFilesystem::CanonicalPath(const std::string& root) {
  std::string canonical;
  if (!Walk(root, false, &canonical)) return Fail(FsErrorKind::kNotFound, "realpath", root);
  return canonical;
}

}  // namespace llmconform::toolcalls
