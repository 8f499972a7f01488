#include "harness/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace llmconform::harness {

void RunInOrder(std::size_t count, int jobs, const std::function<void(std::size_t)>& work,
                const std::function<void(std::size_t)>& deliver,
                const std::function<void(std::size_t)>& before) {
  const std::size_t threads = std::min<std::size_t>(std::max(jobs, 1), count);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) {
      if (before) before(i);
      work(i);
      deliver(i);
    }
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> done(count, 0);
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < count;) {
        work(i);
        {
          std::lock_guard lock(mu);
          done[i] = 1;
        }
        cv.notify_all();
      }
    });
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (before) before(i);
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return done[i] != 0; });
    }
    deliver(i);
  }
}

int DefaultJobs() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace llmconform::harness
