// Runs independent work items on a pool of threads and hands their results
// back in item order, on the calling thread, as soon as each is ready — so a
// consumer (a reporter, which is not thread-safe) sees exactly the sequence a
// one-thread loop would have produced.
#pragma once

#include <cstddef>
#include <functional>

namespace llmconform::harness {

// Calls work(i) for every i in [0, count) on up to `jobs` threads (at least
// one; never more than `count`), and deliver(i) on the calling thread for
// i = 0, 1, …, count-1, each after work(i) has returned. before(i) is called
// on the calling thread just before it starts waiting for item i (null: not
// called). `work` must not throw; it runs concurrently with itself and with
// deliver/before for other items. With jobs == 1 no thread is started: the
// calls are before(0), work(0), deliver(0), before(1), …
void RunInOrder(std::size_t count, int jobs, const std::function<void(std::size_t)>& work,
                const std::function<void(std::size_t)>& deliver,
                const std::function<void(std::size_t)>& before = nullptr);

// The default -j: the number of online processors (at least 1).
int DefaultJobs();

}  // namespace llmconform::harness
