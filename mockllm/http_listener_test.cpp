#include "mockllm/http_listener.h"

#include <gtest/gtest.h>
#include <httplib.h>  // the client
#include <sys/resource.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace llmconform::mockllm {
namespace {

using namespace std::chrono_literals;

// A handler lends bytes that only the lent owner keeps alive: they are
// written whole, with their length, and the owner is let go once they are.
TEST(LendBody, TheListenerWritesLentBytesAndThenLetsTheirOwnerGo) {
  std::weak_ptr<std::string> seen;
  HttpListener listener;
  auto port = listener.Start(ListenOptions{.host = "127.0.0.1", .port = 0},
                             [&](const HttpRequest&, HttpResponse& res) {
                               auto bytes = std::make_shared<std::string>(100000, 'x');
                               bytes->front() = '<';
                               bytes->back() = '>';
                               seen = bytes;
                               res.SetBody("to be replaced", "text/plain");
                               res.LendBody(bytes, *bytes, "application/octet-stream");
                             });
  ASSERT_TRUE(port) << port.error().message;
  httplib::Client client("127.0.0.1", *port);
  for (int i = 0; i < 3; ++i) {
    auto r = client.Get("/any");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body.size(), 100000u);
    EXPECT_EQ(r->body.front(), '<');
    EXPECT_EQ(r->body.back(), '>');
    EXPECT_EQ(r->get_header_value("Content-Length"), "100000");
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/octet-stream");
    for (int k = 0; k < 500 && !seen.expired(); ++k) std::this_thread::sleep_for(2ms);
    EXPECT_TRUE(seen.expired()) << "the listener still holds the lent bytes after the answer";
  }
  listener.Stop();
}

// Work a handler hands to a worker does not hold up its I/O thread: with one
// I/O thread, a second request is answered while the first one's work is
// still under way (it waits for exactly that answer, at most 10 s).
TEST(FinishOnWorker, ASecondRequestIsAnsweredWhileTheFirstOnesWorkIsPending) {
  std::mutex mu;
  std::condition_variable cv;
  bool started = false, second_answered = false;
  HttpListener listener;
  auto port = listener.Start(ListenOptions{.host = "127.0.0.1", .port = 0, .io_threads = 1},
                             [&](const HttpRequest& req, HttpResponse& res) {
                               if (req.path == "/quick") return res.SetBody("quick", "text/plain");
                               res.SetBody("not finished", "text/plain");
                               res.FinishOnWorker([&](HttpResponse& r) {
                                 std::unique_lock lock(mu);
                                 started = true;
                                 cv.notify_all();
                                 const bool saw =
                                     cv.wait_for(lock, 10s, [&] { return second_answered; });
                                 r.status = 201;
                                 r.SetBody(saw ? "after the second" : "alone", "text/plain");
                               });
                             });
  ASSERT_TRUE(port) << port.error().message;
  std::string first_body;
  int first_status = 0;
  std::thread first([&] {
    httplib::Client c("127.0.0.1", *port);
    c.set_read_timeout(30, 0);
    if (auto r = c.Get("/heavy")) first_body = r->body, first_status = r->status;
  });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return started; }));
  }
  httplib::Client c("127.0.0.1", *port);
  c.set_read_timeout(30, 0);
  auto quick = c.Get("/quick");
  {
    std::lock_guard lock(mu);
    second_answered = true;
  }
  cv.notify_all();
  first.join();
  ASSERT_TRUE(quick);
  EXPECT_EQ(quick->body, "quick");
  EXPECT_EQ(first_status, 201);
  EXPECT_EQ(first_body, "after the second");
}

TEST(OpenFiles, ConnectionsFitWhatTheLimitLeaves) {
  EXPECT_EQ(ConnectionsWithin(4096, 1024, 10), 1024 - 10 - static_cast<int>(kReservedDescriptors));
  EXPECT_EQ(ConnectionsWithin(100, 1 << 20, 10), 100);
  EXPECT_EQ(ConnectionsWithin(4096, 10, 100), 1);  // never none
  EXPECT_EQ(ConnectionsWithin(0, 1024, 10), 1);
  EXPECT_GT(OpenDescriptors(), 2u);  // stdin, stdout, stderr at least
}

TEST(OpenFiles, TheSoftLimitIsRaisedToTheHardOne) {
  rlimit r{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &r), 0);
  if (r.rlim_max < 512) GTEST_SKIP() << "the hard limit is " << r.rlim_max;
  rlimit low = r;
  low.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const OpenFileLimit files = RaiseOpenFileLimit();
  EXPECT_EQ(files.before, 256u);
  EXPECT_GT(files.now, 256u);
  rlimit now{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, files.now);
  if (r.rlim_max != RLIM_INFINITY) EXPECT_EQ(files.now, r.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &r);  // as it was
}

// Whatever a handler passes on (an upstream's answer under --proxy): a 1xx is
// never the final answer, and a header no response may carry is left out.
TEST(HttpListener, OnlyFinalStatusesAndWellFormedHeadersLeave) {
  HttpListener listener;
  auto port = listener.Start(ListenOptions{.host = "127.0.0.1", .port = 0},
                             [&](const HttpRequest& req, HttpResponse& res) {
                               res.SetBody("{}", "application/json");
                               res.SetHeader("X-Kept", "a\tb");
                               res.SetHeader("X:Injected", "1");
                               res.SetHeader("Content-Length ", "3");
                               res.SetHeader("X-Vt",
                                             "1\x0b"
                                             "2");
                               res.status = req.path == "/informational" ? 101 : 200;
                             });
  ASSERT_TRUE(port) << port.error().message;
  httplib::Client client("127.0.0.1", *port);
  client.set_read_timeout(10, 0);
  auto ok = client.Get("/ok");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->get_header_value("X-Kept"), "a\tb");
  EXPECT_FALSE(ok->has_header("X:Injected"));
  EXPECT_FALSE(ok->has_header("X"));
  EXPECT_FALSE(ok->has_header("X-Vt"));
  EXPECT_EQ(ok->get_header_value("Content-Length"), "2");
  EXPECT_EQ(ok->body, "{}");
  auto informational = client.Get("/informational");
  ASSERT_TRUE(informational);
  EXPECT_EQ(informational->status, 500);
  EXPECT_NE(informational->body.find("status 101 is not a final HTTP status"), std::string::npos)
      << informational->body;
  listener.Stop();
}

// A keep-alive answer tells how long the idle connection stays open, so a
// client that honours the hint (undici, Node's fetch) drops it first and a
// retry sent about then never meets the close; a closing answer says close.
TEST(HttpListener, KeepAliveAnswersSayWhenTheIdleConnectionCloses) {
  HttpListener listener;
  auto port = listener.Start(ListenOptions{.host = "127.0.0.1", .port = 0, .keep_alive_seconds = 7},
                             [&](const HttpRequest& req, HttpResponse& res) {
                               if (req.path == "/own") res.SetHeader("Keep-Alive", "timeout=2");
                               res.SetBody("{}", "application/json");
                             });
  ASSERT_TRUE(port) << port.error().message;
  httplib::Client client("127.0.0.1", *port);
  client.set_read_timeout(10, 0);
  client.set_keep_alive(true);
  auto kept = client.Get("/ok");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->get_header_value("Keep-Alive"), "timeout=7");
  EXPECT_FALSE(kept->has_header("Connection"));
  auto own = client.Get("/own");  // the handler's own hint is not doubled
  ASSERT_TRUE(own);
  EXPECT_EQ(own->get_header_value_count("Keep-Alive"), 1u);
  EXPECT_EQ(own->get_header_value("Keep-Alive"), "timeout=2");
  auto closing = client.Get("/ok", {{"Connection", "close"}});
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->get_header_value("Connection"), "close");
  EXPECT_FALSE(closing->has_header("Keep-Alive"));
  listener.Stop();
}

}  // namespace
}  // namespace llmconform::mockllm
