#include "mockllm/http_io.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

namespace llmconform::mockllm::http_io {
namespace {

using namespace std::chrono_literals;

// Waits up to 10 s for `pool` to have `n` workers.
bool WorkersBecome(WorkerPool& pool, std::size_t n) {
  for (int i = 0; i < 1000 && pool.Workers() != n; ++i) std::this_thread::sleep_for(10ms);
  return pool.Workers() == n;
}

// A burst of jobs that wait grows the pool to one worker each; once idle, the
// workers beyond `min` end, and the pool grows again for the next burst.
TEST(WorkerPool, GrowsForABurstAndShrinksBackWhenIdle) {
  WorkerPool pool(2, 64, 50ms);
  EXPECT_EQ(pool.Workers(), 2u);
  for (int round = 0; round < 2; ++round) {
    std::latch all_running(16), release(1);
    std::atomic<int> done = 0;
    for (int i = 0; i < 16; ++i) {
      pool.Submit([&] {
        all_running.count_down();
        release.wait();
        ++done;
      });
    }
    all_running.wait();  // 16 jobs at once: only 16 workers can hold them
    EXPECT_GE(pool.Workers(), 16u);
    release.count_down();
    EXPECT_TRUE(WorkersBecome(pool, 2)) << pool.Workers() << " workers left";
    EXPECT_EQ(done, 16);
  }
}

// Jobs queued before Shutdown run; jobs after it are dropped unrun.
TEST(WorkerPool, ShutdownRunsWhatIsQueuedThenDropsJobs) {
  std::atomic<int> ran = 0;
  WorkerPool pool(1, 1, 50ms);
  std::latch started(1), release(1);
  pool.Submit([&] {
    started.count_down();
    release.wait();
    ++ran;
  });
  started.wait();
  for (int i = 0; i < 3; ++i) pool.Submit([&] { ++ran; });
  std::thread stopper([&] { pool.Shutdown(); });
  std::this_thread::sleep_for(20ms);
  release.count_down();
  stopper.join();
  EXPECT_EQ(ran, 4);
  pool.Submit([&] { ++ran; });
  EXPECT_EQ(ran, 4);
}

}  // namespace
}  // namespace llmconform::mockllm::http_io
