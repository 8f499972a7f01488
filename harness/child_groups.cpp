#include "harness/child_groups.h"

#include <signal.h>

#include <array>
#include <atomic>

namespace llmconform::harness {
namespace {

// 0: a free slot. Lock-free atomics only: the handler reads them.
std::array<std::atomic<pid_t>, kMaxWatchedGroups> watched{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

void KillWatchedAndRaise(int sig) {
  for (auto& slot : watched) {
    const pid_t pgid = slot.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
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

void KillChildGroupsOnSignals() {
  struct sigaction sa {};
  sa.sa_handler = KillWatchedAndRaise;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // An ignored signal stays ignored (nohup, a background job's SIGINT).
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace llmconform::harness
