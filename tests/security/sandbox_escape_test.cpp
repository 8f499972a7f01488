// The sandbox as a security boundary (issue 5, "Security tests"): every
// attempt of the escape corpus is refused with E_SANDBOX_VIOLATION and leaves
// everything outside the writable mounts as it was; a symlink swapped in
// while tools run never lets a tool reach outside; a write killed at any
// moment leaves the old file or the new one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "base/format.h"
#include "base/test_paths.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/tool_host.h"

namespace llmconform::toolcalls {
namespace {

namespace fs = std::filesystem;

void WriteText(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every entry below `dir` (symlinks not followed) with its kind and content
// or target: equal snapshots mean nothing was touched.
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::is_directory(fs::symlink_status(dir))) return out;
  std::vector<fs::path> todo{dir};
  while (!todo.empty()) {
    const fs::path at = todo.back();
    todo.pop_back();
    for (const auto& entry : fs::directory_iterator(at)) {
      const std::string rel = entry.path().lexically_relative(dir).string();
      const auto st = fs::symlink_status(entry.path());
      if (fs::is_symlink(st)) {
        out[rel] = "symlink:" + fs::read_symlink(entry.path()).string();
      } else if (fs::is_directory(st)) {
        out[rel] = "dir";
        todo.push_back(entry.path());
      } else if (fs::is_regular_file(st)) {
        out[rel] =
            Format("file({} links):{}", fs::hard_link_count(entry.path()), ReadText(entry.path()));
      } else {
        out[rel] = "special";  // a fifo, socket or device: never opened
      }
    }
  }
  return out;
}

class Tree {
 public:
  Tree() {
    root_ = fs::canonical(fs::temp_directory_path()) /
            Format("llmconform-escape-{}-{}", static_cast<long>(::getpid()), counter_++);
    fs::remove_all(root_);
    const fs::path p = root_ / "project";
    WriteText(p / "docs" / "a.md", "alpha\n");
    fs::create_directories(p / "artifacts");
    fs::create_directories(p / "nested" / "deep");
    fs::create_directories(p / "a" / "b");
    WriteText(root_ / "outside" / "secret.txt", "secret\n");
    WriteText(root_ / "outside" / "state.md", "---\ncurrentNodeId: a\n---\n");
    WriteText(root_ / "outside" / "sub" / "deep.txt", "deep secret\n");
    WriteText(root_ / "projectx" / "a.md", "x\n");
    WriteText(
        root_ / "pkg" / "workflow.graph.json",
        R"({"entryNodeId":"a","nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"}]})");
    WriteText(root_ / "pkg" / "steps" / "x.md", "---\na: 1\n---\nstep\n");
    WriteText(root_ / "state" / "workflow.md", "---\ncurrentNodeId: a\nstepsCompleted: []\n---\n");
    const std::string abs = root_.string();
    Link(p / "nested" / "deep" / "up3", "../../../outside");
    Link(p / "link-file-out", "../outside/secret.txt");
    Link(p / "link-md-out", "../outside/state.md");
    Link(p / "link-dir-out", abs + "/outside");
    Link(p / "link-parent-out", "../outside");
    Link(p / "chain1", "chain2");
    Link(p / "chain2", "../outside/secret.txt");
    Link(p / "abs-dotdot", abs + "/project/../outside/secret.txt");
    Link(p / "prefix-confusion", abs + "/projectx/a.md");
    Link(p / "link-to-root", "/");
    Link(p / "link-to-dotdot", "..");
    Link(p / "dangling-out", "../outside/created-rel.txt");
    Link(p / "dangling-abs", abs + "/outside/created-abs.txt");
    Link(p / "loop", "loop");
    Link(p / "deep-dotdot", "a/b/../../../outside/secret.txt");
    Link(p / "link-to-pkg", "../pkg/steps/x.md");
    Link(root_ / "pkg" / "link-out", "../outside/secret.txt");
    Link(root_ / "pkg" / "link-dir-out", abs + "/outside");
    Link(root_ / "state" / "link-out", "../outside");
    Link(root_ / "state" / "wf-out.md", "../outside/state.md");
  }
  ~Tree() { fs::remove_all(root_); }
  const fs::path& root() const { return root_; }
  MountRoots Mounts() const {
    return {(root_ / "project").string(), (root_ / "pkg").string(), (root_ / "state").string()};
  }
  // Everything a refused call must leave alone: the outside, the package,
  // the look-alike folder and the project.
  std::map<std::string, std::map<std::string, std::string>> Protected() const {
    return {{"outside", Snapshot(root_ / "outside")},
            {"pkg", Snapshot(root_ / "pkg")},
            {"projectx", Snapshot(root_ / "projectx")},
            {"project", Snapshot(root_ / "project")}};
  }

 private:
  static void Link(const fs::path& at, const std::string& target) {
    fs::create_symlink(target, at);
  }
  static inline int counter_ = 0;
  fs::path root_;
};

// A ToolHost on the real filesystem over a tree's mounts.
struct RealHost {
  explicit RealHost(const Tree& tree, Limits limits = {})
      : sandbox(pfs, tree.Mounts()), host(sandbox, clock, limits) {}
  PosixFilesystem pfs;
  Sandbox sandbox;
  SystemClock clock;
  ToolHost host;
};

OJson LoadCorpus() {
  std::ifstream in(std::string(::llmconform::test_paths::SourceRoot()) +
                   "/tests/security/escape_corpus.json");
  return OJson::parse(in);
}

std::string Expand(std::string s, const Tree& tree) {
  auto replace = [&](std::string_view token, const std::string& with) {
    for (std::size_t at; (at = s.find(token)) != std::string::npos;)
      s.replace(at, token.size(), with);
  };
  replace("{{ROOT}}", tree.root().string());
  replace("{{LONG_PATH}}", "@project/" + std::string(kMaxPathBytes, 'a'));
  replace("{{LONG_SEGMENT}}", "@project/" + std::string(kMaxSegmentBytes + 1, 'b'));
  return s;
}

TEST(EscapeCorpus, HasAtLeastFiftyAttemptsThroughEveryTool) {
  const OJson corpus = LoadCorpus();
  EXPECT_GE(corpus.size(), 50u);
  std::map<std::string, int> per_tool;
  for (const auto& c : corpus) ++per_tool[c["tool"].get<std::string>()];
  for (const char* tool : {"fs.read", "fs.list", "fs.search", "fs.write", "fs.apply_patch"}) {
    EXPECT_GE(per_tool[tool], 3) << tool;
  }
}

// Plants what an attempt's "setup" asks for in `tree`: {"hardlink":P,"to":Q},
// {"symlink":P,"to":TARGET}, {"fifo":P}, {"socket":P}, {"chardev":P} (a copy
// of /dev/null), {"remove":P}; paths relative to the tree's root. False when
// this machine cannot make it (mknod needs privileges).
bool Plant(const Tree& tree, const OJson& setup) {
  for (const auto& step : setup) {
    const auto at = [&](const char* key) { return tree.root() / step[key].get<std::string>(); };
    if (step.contains("remove")) {
      fs::remove(at("remove"));
      continue;
    }
    const char* key = step.contains("hardlink")  ? "hardlink"
                      : step.contains("symlink") ? "symlink"
                      : step.contains("fifo")    ? "fifo"
                      : step.contains("socket")  ? "socket"
                                                 : "chardev";
    const fs::path p = at(key);
    fs::create_directories(p.parent_path());
    if (std::string_view(key) == "hardlink") {
      fs::create_hard_link(tree.root() / step["to"].get<std::string>(), p);
    } else if (std::string_view(key) == "symlink") {
      fs::create_symlink(step["to"].get<std::string>(), p);
    } else if (std::string_view(key) == "fifo") {
      if (::mkfifo(p.c_str(), 0600) != 0) return false;
    } else if (std::string_view(key) == "socket") {
      const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      if (s < 0 || p.native().size() >= sizeof addr.sun_path) return false;
      std::memcpy(addr.sun_path, p.c_str(), p.native().size() + 1);
      const bool bound = ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      ::close(s);  // the socket file stays
      if (!bound) return false;
    } else if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
      return false;
    }
  }
  return true;
}

// Runs one attempt on `tree` and checks what its "expect" says: "refused"
// (the default: E_SANDBOX_VIOLATION), "no-matches" (a search that succeeds
// without finding anything behind a refused file) or "audit-refused" (the
// call itself works, its audit line is not written anywhere).
void RunAttempt(const Tree& tree, ToolHost& host, const OJson& attempt) {
  OJson args = attempt["args"];
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (it->is_string()) *it = Expand(it->get<std::string>(), tree);
  }
  const std::string name = attempt["name"].get<std::string>();
  const std::string expect = attempt.value("expect", "refused");
  const OJson result = host.Run(name, attempt["tool"].get<std::string>(), args).result;
  if (expect == "refused") {
    ASSERT_EQ(result.value("ok", true), false) << name << ": " << result.dump();
    EXPECT_EQ(result["error"]["code"], "E_SANDBOX_VIOLATION") << name << ": " << result.dump();
  } else if (expect == "no-matches") {
    EXPECT_EQ(result["ok"], true) << name << ": " << result.dump();
    EXPECT_EQ(result["matches"], OJson::array()) << name << ": " << result.dump();
  } else {
    ASSERT_EQ(expect, "audit-refused") << name;
    EXPECT_EQ(result["ok"], true) << name << ": " << result.dump();
    EXPECT_NE(host.audit_error(), "") << name;
  }
  // Host paths never reach the model, unless it wrote them itself.
  if (args.dump().find(tree.root().string()) == std::string::npos) {
    EXPECT_EQ(result.dump().find(tree.root().string()), std::string::npos)
        << name << " leaks a host path: " << result.dump();
  }
}

TEST(EscapeCorpus, EveryAttemptIsRefusedAndNothingOutsideIsTouched) {
  Tree tree;
  RealHost real(tree);
  ToolHost& host = real.host;
  const auto before = tree.Protected();
  for (const auto& attempt : LoadCorpus()) {
    if (attempt.contains("setup")) continue;  // next test
    RunAttempt(tree, host, attempt);
  }
  EXPECT_EQ(tree.Protected(), before);
  EXPECT_FALSE(fs::exists(tree.root() / "outside" / "created-rel.txt"));
  EXPECT_FALSE(fs::exists(tree.root() / "outside" / "created-abs.txt"));
  EXPECT_EQ(host.audit_error(), "");
}

// Attempts that plant something first (hard links, fifos, sockets, devices,
// a booby-trapped audit log) run each on a fresh tree; nothing outside the
// writable mounts changes, and for a refused audit log @state is untouched.
TEST(EscapeCorpus, PlantedAttemptsAreRefusedAndNothingOutsideIsTouched) {
  int planted = 0;
  for (const auto& attempt : LoadCorpus()) {
    if (!attempt.contains("setup")) continue;
    const std::string name = attempt["name"].get<std::string>();
    Tree tree;
    if (!Plant(tree, attempt["setup"])) {
      std::printf("[ SKIPPED  ] %s: cannot plant its setup here\n", name.c_str());
      continue;
    }
    ++planted;
    const auto before = tree.Protected();
    const auto state_before = Snapshot(tree.root() / "state");
    RealHost real(tree);
    RunAttempt(tree, real.host, attempt);
    EXPECT_EQ(tree.Protected(), before) << name;
    if (attempt.value("expect", "") == "audit-refused") {
      EXPECT_EQ(Snapshot(tree.root() / "state"), state_before) << name;
    }
  }
  EXPECT_GE(planted, 20);
}

TEST(EscapeCorpus, ARefusedFileKindHasItsOwnReasonNotENOENT) {
  Tree tree;
  ASSERT_TRUE(Plant(tree, OJson::parse(R"([{"fifo":"project/pipe"},
      {"hardlink":"project/hl.txt","to":"outside/secret.txt"}])")));
  RealHost real(tree);
  const OJson fifo = real.host.Run("1", "fs.read", OJson{{"path", "@project/pipe"}}).result;
  EXPECT_EQ(fifo["error"], (OJson{{"code", "E_SANDBOX_VIOLATION"},
                                  {"message", "@project/pipe is not a regular file"},
                                  {"details", {{"reason", "notRegularFile"}}}}));
  const OJson linked = real.host.Run("2", "fs.read", OJson{{"path", "@project/hl.txt"}}).result;
  EXPECT_EQ(linked["error"],
            (OJson{{"code", "E_SANDBOX_VIOLATION"},
                   {"message",
                    "@project/hl.txt has more than one hard link; the sandbox refuses such files"},
                   {"details", {{"reason", "hardLinked"}}}}));
  // A file whose other name is gone is an ordinary file again.
  fs::remove(tree.root() / "outside" / "secret.txt");
  EXPECT_EQ(real.host.Run("3", "fs.read", OJson{{"path", "@project/hl.txt"}}).result["content"],
            "secret\n");
}

TEST(EscapeCorpus, SymlinksThatStayInsideStillWork) {
  Tree tree;
  fs::create_symlink("docs/a.md", tree.root() / "project" / "inside");
  RealHost real(tree);
  ToolHost& host = real.host;
  EXPECT_EQ(host.Run("1", "fs.read", OJson{{"path", "@project/inside"}}).result["content"],
            "alpha\n");
  EXPECT_EQ(host.Run("2", "fs.write", OJson{{"path", "@project/inside"}, {"content", "beta\n"}})
                .result["ok"],
            true);
  EXPECT_EQ(ReadText(tree.root() / "project" / "docs" / "a.md"), "beta\n");
  EXPECT_TRUE(fs::is_symlink(tree.root() / "project" / "inside"));
}

TEST(EscapeCorpus, AnAuditLogFolderThatIsASymlinkOutsideIsNotWrittenThrough) {
  Tree tree;
  fs::create_symlink("../outside", tree.root() / "state" / "logs");
  RealHost real(tree);
  ToolHost& host = real.host;
  const auto before = tree.Protected();
  EXPECT_EQ(host.Run("1", "fs.read", OJson{{"path", "@project/docs/a.md"}}).result["ok"], true);
  EXPECT_EQ(host.audit_error(),
            "@state/logs/execution.jsonl leads outside @state through the symlink @state/logs");
  EXPECT_EQ(tree.Protected(), before);
}

// Exchanges two names atomically; false when the filesystem cannot.
bool Exchange(const fs::path& a, const fs::path& b) {
  return ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
}

TEST(EscapeRace, AFolderSwappedWithASymlinkWhileToolsRunNeverLeaksOrWritesOutside) {
  Tree tree;
  const fs::path p = tree.root() / "project";
  WriteText(p / "swap" / "file.txt", "inside\n");
  WriteText(tree.root() / "outside" / "file.txt", "outside\n");
  fs::create_symlink(tree.root() / "outside", p / "swap-alt");
  if (!Exchange(p / "swap", p / "swap-alt") || !Exchange(p / "swap", p / "swap-alt")) {
    GTEST_SKIP() << "renameat2(RENAME_EXCHANGE) is not supported here";
  }
  RealHost real(tree);
  ToolHost& host = real.host;
  const auto outside_before = Snapshot(tree.root() / "outside");

  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop.load()) Exchange(p / "swap", p / "swap-alt");
  });
  int refused = 0, served = 0;
  for (int i = 0; i < 400; ++i) {
    const OJson read = host.Run("r", "fs.read", OJson{{"path", "@project/swap/file.txt"}}).result;
    if (read["ok"] == true) {
      ++served;
      EXPECT_EQ(read["content"], "inside\n");
    } else {
      ++refused;
      const std::string code = read["error"]["code"];
      EXPECT_TRUE(code == "E_SANDBOX_VIOLATION" || code == "ENOENT") << read.dump();
    }
    const OJson write = host.Run("w", "fs.write",
                                 OJson{{"path", "@project/swap/file.txt"}, {"content", "inside\n"}})
                            .result;
    if (write["ok"] != true) {
      const std::string code = write["error"]["code"];
      EXPECT_TRUE(code == "E_SANDBOX_VIOLATION" || code == "ENOENT" ||
                  code == "E_PRECONDITION_FAILED")
          << write.dump();
    }
    const OJson list = host.Run("l", "fs.list", OJson{{"path", "@project/swap"}}).result;
    if (list["ok"] == true) {
      EXPECT_EQ(list["entries"], (OJson{"file.txt"}));
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(served + refused, 400);
  EXPECT_EQ(Snapshot(tree.root() / "outside"), outside_before);
}

TEST(AtomicWrite, AWriteKilledAtAnyMomentLeavesTheOldOrTheNewFile) {
  Tree tree;
  const std::string a(300'000, 'a');  // larger than one write(2) may take
  const std::string b(70'000, 'b');
  const fs::path victim = tree.root() / "project" / "victim.txt";
  WriteText(victim, a);
  Limits limits;
  limits.max_write_bytes = 1'000'000;
  for (int round = 0; round < 12; ++round) {
    int pipefd[2];
    ASSERT_EQ(::pipe(pipefd), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(pipefd[0]);
      RealHost real(tree, limits);
      ToolHost& host = real.host;
      for (int i = 0;; ++i) {
        host.Run("k", "fs.write",
                 OJson{{"path", "@project/victim.txt"}, {"content", i % 2 ? b : a}});
        if (::write(pipefd[1], "x", 1) != 1) ::_exit(1);
      }
    }
    ::close(pipefd[1]);
    // Let the child complete a number of writes that varies by round, then
    // kill it wherever it is.
    char buf[64];
    std::size_t seen = 0;
    while (seen < static_cast<std::size_t>(round * 3 + 1)) {
      const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
      ASSERT_GT(n, 0);
      seen += static_cast<std::size_t>(n);
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(pipefd[0]);
    ASSERT_TRUE(WIFSIGNALED(status));
    const std::string now = ReadText(victim);
    EXPECT_TRUE(now == a || now == b)
        << "round " << round << ": a mix of " << now.size() << " bytes";
  }
}

}  // namespace
}  // namespace llmconform::toolcalls
