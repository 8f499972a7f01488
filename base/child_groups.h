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

// Installs the handlers for SIGINT, SIGTERM and SIGHUP, each unless it is
// ignored (nohup): each SIGKILLs every watched group, removes every watched
// folder, restores the default action and raises the signal again (so the
// exit status says which signal ended llmconform). Call once, early in main.
void KillChildGroupsOnSignals();

}  // namespace llmconform
