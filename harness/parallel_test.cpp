#include "harness/parallel.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace llmconform::harness {
namespace {

TEST(RunInOrder, DeliversEveryItemInOrderAfterItsWork) {
  for (int jobs : {1, 2, 3, 8}) {
    constexpr std::size_t kCount = 40;
    std::vector<std::atomic<int>> worked(kCount);
    std::vector<std::size_t> delivered, before;
    RunInOrder(
        kCount, jobs,
        [&](std::size_t i) {
          // Later items finish first, so order comes from RunInOrder, not luck.
          std::this_thread::sleep_for(std::chrono::microseconds((kCount - i) * 50));
          worked[i] = 1;
        },
        [&](std::size_t i) {
          EXPECT_EQ(worked[i].load(), 1) << "delivered before its work finished: " << i;
          delivered.push_back(i);
        },
        [&](std::size_t i) { before.push_back(i); });
    std::vector<std::size_t> expected(kCount);
    for (std::size_t i = 0; i < kCount; ++i) expected[i] = i;
    EXPECT_EQ(delivered, expected) << "jobs=" << jobs;
    EXPECT_EQ(before, expected) << "jobs=" << jobs;
  }
}

TEST(RunInOrder, UsesUpToJobsThreadsAtOnce) {
  std::mutex mu;
  int running = 0, peak = 0;
  RunInOrder(
      12, 3,
      [&](std::size_t) {
        {
          std::lock_guard lock(mu);
          peak = std::max(peak, ++running);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::lock_guard lock(mu);
        --running;
      },
      [](std::size_t) {});
  EXPECT_LE(peak, 3);
  EXPECT_GE(peak, 1);
}

TEST(RunInOrder, NothingToDoCallsNothing) {
  int calls = 0;
  RunInOrder(
      0, 4, [&](std::size_t) { ++calls; }, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(DefaultJobs, IsAtLeastOne) { EXPECT_GE(DefaultJobs(), 1); }

}  // namespace
}  // namespace llmconform::harness
