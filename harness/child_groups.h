// The process groups of the commands llmconform runs: a client command
// (`run --client-cmd`, client_cmd.h) or a SUT (`check`, check/sut_process.h).
// Each such command runs in a group of its own so that a timeout can kill its
// whole tree. Those groups are not in llmconform's own, so a signal meant for
// llmconform (a CI job cancelled, timeout(1), kill) would not reach them: the
// handlers installed here kill every watched group first, then let the
// signal end llmconform as it would have.
#pragma once

#include <sys/types.h>

namespace llmconform::harness {

// Watch the group `pgid` (the child's pid after setpgid) until Forget. At
// most kMaxWatchedGroups at once; past that a group is not watched (it is
// still killed by its own timeout). Async-signal-safe, thread-safe.
inline constexpr int kMaxWatchedGroups = 256;
void WatchChildGroup(pid_t pgid);
// As soon as the child is reaped (or just before, when its group was just
// killed): once its group is empty the id may be reused.
void ForgetChildGroup(pid_t pgid);

// Installs the handlers for SIGINT, SIGTERM and SIGHUP, each unless it is
// ignored (nohup): each SIGKILLs every watched group, restores the default
// action and raises the signal again (so the exit status says which signal
// ended llmconform). Call once, early in main.
void KillChildGroupsOnSignals();

}  // namespace llmconform::harness
