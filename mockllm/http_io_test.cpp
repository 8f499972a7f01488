#include "mockllm/http_io.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <string>
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

// --write-timeout-ms bounds a write that makes no progress, not a whole
// answer: a slow reader that keeps reading gets every byte, one that stops
// reading is let go after the stall.
TEST(SendAll, WaitsForASlowReaderThatKeepsReadingAndGivesUpOnOneThatStops) {
  for (const bool reader_stops : {false, true}) {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    const int small = 16 * 1024;
    ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    const std::string body(1 << 20, 'x');
    std::size_t received = 0;
    std::thread reader([&] {
      char buf[16 * 1024];
      while (received < body.size()) {
        if (reader_stops && received >= body.size() / 4) break;
        std::this_thread::sleep_for(25ms);  // 1 MiB takes over 1.5 s
        const ssize_t n = ::recv(fds[1], buf, sizeof buf, 0);
        if (n <= 0) break;
        received += static_cast<std::size_t>(n);
      }
    });
    iovec iov{const_cast<char*>(body.data()), body.size()};
    const auto start = std::chrono::steady_clock::now();
    const bool sent = SendAll(fds[0], &iov, 1, 1000ms);
    const auto took = std::chrono::steady_clock::now() - start;
    ::shutdown(fds[0], SHUT_RDWR);
    reader.join();
    ::close(fds[0]);
    ::close(fds[1]);
    if (reader_stops) {
      EXPECT_FALSE(sent);
    } else {
      EXPECT_TRUE(sent) << "gave up after "
                        << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                        << " ms, " << received << " bytes read";
      EXPECT_EQ(received, body.size());
      EXPECT_GT(took, 1000ms);  // longer than the stall limit in all
    }
  }
}

}  // namespace
}  // namespace llmconform::mockllm::http_io
