#include "base/child_groups.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

namespace llmconform {
namespace {

// 0: a free slot. Lock-free atomics only: the handler reads them.
std::array<std::atomic<pid_t>, kMaxWatchedGroups> watched{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// A folder slot: kFree, kBusy while its owner writes or clears the path,
// kSet when the handler may read it.
enum : int { kFree = 0, kBusy = 1, kSet = 2 };
struct FolderSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
std::array<FolderSlot, kMaxWatchedFolders> folders{};
static_assert(std::atomic<int>::is_always_lock_free);

// Deepest folder nesting RemoveTreeAt descends into (each level holds a
// buffer and a descriptor on the handler's stack).
constexpr int kMaxRemoveDepth = 48;

// Removes everything in the folder open as `dir` (then closes it) with
// async-signal-safe calls only: getdents64, unlinkat, openat, close.
void RemoveContents(int dir, int depth) {
  alignas(8) char buf[2048];
  while (true) {
    const long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    bool removed = false;
    for (long off = 0; off < n;) {
      struct Entry {
        ino64_t ino;
        off64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const auto* e = reinterpret_cast<const Entry*>(buf + off);
      off += e->reclen;
      const char* name = e->name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      if (::unlinkat(dir, name, 0) == 0) {
        removed = true;
        continue;
      }
      if (depth >= kMaxRemoveDepth) continue;
      const int sub = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      RemoveContents(sub, depth + 1);
      if (::unlinkat(dir, name, AT_REMOVEDIR) == 0) removed = true;
    }
    // Entries removed shift what the next read returns: start over.
    if (removed) ::lseek(dir, 0, SEEK_SET);
  }
  ::close(dir);
}

void RemoveTree(const char* path) {
  const int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  RemoveContents(dir, 0);
  ::rmdir(path);
}

void KillWatchedAndRaise(int sig) {
  for (auto& slot : watched) {
    const pid_t pgid = slot.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
  for (auto& slot : folders) {
    if (slot.state.load() == kSet) RemoveTree(slot.path);
  }
  ::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
}

std::mutex& StartsMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void WatchChildGroup(pid_t pgid) {
  for (auto& slot : watched) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pgid)) return;
  }
}

void ForgetChildGroup(pid_t pgid) {
  for (auto& slot : watched) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void WatchScratchFolder(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.empty() || text.size() >= PATH_MAX) return;
  for (auto& slot : folders) {
    int free = kFree;
    if (!slot.state.compare_exchange_strong(free, kBusy)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.state.store(kSet);
    return;
  }
}

void ForgetScratchFolder(const std::filesystem::path& path) {
  for (auto& slot : folders) {
    int set = kSet;
    if (slot.state.load() != kSet || path.native() != slot.path) continue;
    if (slot.state.compare_exchange_strong(set, kBusy)) {
      slot.path[0] = '\0';
      slot.state.store(kFree);
      return;
    }
  }
}

std::unique_lock<std::mutex> HoldChildStarts() { return std::unique_lock(StartsMutex()); }

void KillChildGroupsOnSignals() {
  struct sigaction sa {};
  sa.sa_handler = KillWatchedAndRaise;
  sigemptyset(&sa.sa_mask);
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // An ignored signal stays ignored (nohup, a background job's SIGINT).
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
    sigaddset(&handled, sig);
  }
  // Blocked here, and so in every thread started from here on: the signal
  // waits for the thread below, which acts on it between two child starts.
  ::pthread_sigmask(SIG_BLOCK, &handled, nullptr);
  try {
    std::thread([handled] {
      int sig = 0;
      while (::sigwait(&handled, &sig) != 0) {
      }
      auto held = HoldChildStarts();  // never released: the process ends below
      KillWatchedAndRaise(sig);
    }).detach();
  } catch (const std::system_error&) {
    ::pthread_sigmask(SIG_UNBLOCK, &handled, nullptr);  // the handlers alone, as before
  }
}

}  // namespace llmconform
