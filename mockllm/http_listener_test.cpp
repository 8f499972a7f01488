#include "mockllm/http_listener.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace llmconform::mockllm {
namespace {

using namespace std::chrono_literals;

TEST(LendBody, OutsideAListenerTheBytesAreCopied) {
  httplib::Response res;
  auto owner = std::make_shared<std::string>("{\"a\":1}");
  LendBody(res, owner, *owner, "application/json");
  owner->assign("changed");
  EXPECT_EQ(res.body, "{\"a\":1}");
  EXPECT_EQ(res.get_header_value("Content-Type"), "application/json");
}

// A handler lends bytes that only the lent owner keeps alive: they are
// written whole, with their length, and the owner is let go once they are.
TEST(LendBody, TheListenerWritesLentBytesAndThenLetsTheirOwnerGo) {
  std::weak_ptr<std::string> seen;
  HttpListener listener;
  auto port = listener.Start(ListenOptions{.host = "127.0.0.1", .port = 0},
                             [&](const httplib::Request&, httplib::Response& res) {
                               auto bytes = std::make_shared<std::string>(100000, 'x');
                               bytes->front() = '<';
                               bytes->back() = '>';
                               seen = bytes;
                               res.set_content("to be replaced", "text/plain");
                               LendBody(res, bytes, *bytes, "application/octet-stream");
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

}  // namespace
}  // namespace llmconform::mockllm
