// What must not outlive llmconform stopped by a signal: the process groups
// of the commands it runs (a client command of `run --client-cmd`, a SUT of
// `check`, base/child_process.h) and its scratch folders. Each command runs
// in a group of its own so that a timeout can kill its whole tree; those
// groups are not in llmconform's own, so a signal meant for llmconform (a CI
// job cancelled, timeout(1), kill) would not reach them. The handlers
// installed here kill every watched group and remove every watched folder
// first, then let the signal end llmconform as it would have.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <mutex>

namespace llmconform {

// Watch the group `pgid` (the child's pid after setpgid) until Forget. At
// most kMaxWatchedGroups at once; past that a group is not watched (it is
// still killed by its own timeout). Async-signal-safe, thread-safe.
inline constexpr int kMaxWatchedGroups = 256;
void WatchChildGroup(pid_t pgid);
// As soon as the child is reaped (or just before, when its group was just
// killed): once its group is empty the id may be reused.
void ForgetChildGroup(pid_t pgid);

// Watch the folder `path` (absolute, shorter than PATH_MAX) until Forget: a
// signal removes it with everything in it. At most kMaxWatchedFolders at
// once; past that a folder is not watched. Thread-safe.
inline constexpr int kMaxWatchedFolders = 256;
void WatchScratchFolder(const std::filesystem::path& path);
void ForgetScratchFolder(const std::filesystem::path& path);

// Held by ChildProcess::Start from starting a child to watching its group:
// a stop signal is acted on between two starts, never between a start and
// its watch (the child would outlive llmconform).
std::unique_lock<std::mutex> HoldChildStarts();

// Acts on SIGINT, SIGTERM and SIGHUP, each unless it is ignored (nohup):
// SIGKILLs every watched group, removes every watched folder, restores the
// default action and raises the signal again (so the exit status says which
// signal ended llmconform). The signals are blocked in the calling thread,
// and so in every thread it starts afterwards, and taken by a thread of
// their own (sigwait) that first waits out a child start under way
// (HoldChildStarts); a thread that was started before, or unblocks them,
// gets a handler doing the same. Call once, first in main, before any
// thread starts. Children start with no signal blocked (ChildProcess).
void KillChildGroupsOnSignals();

}  // namespace llmconform
