// sse-check against streams that never end (issue 17): reading stops at the
// event and byte limits and at the total deadline, and says which.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "base/format.h"
#include "harness/sse_check.h"

namespace llmconform::harness {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

// Serves /events as an endless chunked stream: a heartbeat event every
// `gap` (0: as fast as the socket takes them), or, with `silent`, headers
// and then nothing.
class EndlessService {
 public:
  EndlessService(milliseconds gap, bool silent = false) {
    http_.Get("/events", [this, gap, silent](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider(
          "text/event-stream", [this, gap, silent](std::size_t, httplib::DataSink& sink) {
            if (stop_) return false;
            if (silent) {
              std::this_thread::sleep_for(milliseconds(20));
              return sink.is_writable();
            }
            static constexpr std::string_view kEvent =
                "event: heartbeat\ndata: {\"message_id\":\"m\",\"request_id\":\"r\",\"ts\":1}\n\n";
            if (gap.count() > 0) std::this_thread::sleep_for(gap);
            return sink.write(kEvent.data(), kEvent.size());
          });
    });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) std::this_thread::sleep_for(milliseconds(1));
  }
  ~EndlessService() {
    stop_ = true;
    http_.stop();
    thread_.join();
  }
  std::string url() const { return Format("http://127.0.0.1:{}/events", port_); }

 private:
  std::atomic<bool> stop_ = false;
  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
};

TEST(SseCheckBounds, AnEndlessStreamStopsAtMaxEventsWithAFinding) {
  EndlessService endless(milliseconds(0));
  auto s = CaptureEventStream(endless.url(), "r", milliseconds(60000),
                              StreamLimits{.max_events = 500, .max_bytes = 1 << 30});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->events.size(), 500u);
  EXPECT_THAT(s->transport_error, HasSubstr("more than --max-events 500"));
}

TEST(SseCheckBounds, AnEndlessStreamStopsAtMaxBytesWithAFinding) {
  EndlessService endless(milliseconds(0));
  auto s = CaptureEventStream(endless.url(), "r", milliseconds(60000),
                              StreamLimits{.max_events = 1 << 30, .max_bytes = 100000});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_LT(s->events.size(), 100000u / 60);
  EXPECT_THAT(s->transport_error, HasSubstr("more than --max-bytes 100000"));
  // Judged: the stream has no terminal event, and the report says why.
  const std::vector<std::string> rules = {"GYMBRO-6.8"};
  const auto results = JudgeStream(*s, {}, rules);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, reports::Outcome::kFail);
  EXPECT_THAT(results[0].message, HasSubstr("--max-bytes"));
}

TEST(SseCheckBounds, ASilentStreamStopsAtTheTotalDeadline) {
  EndlessService silent(milliseconds(0), /*silent=*/true);
  auto s = CaptureEventStream(silent.url(), "r", milliseconds(300));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->events.empty());
  EXPECT_THAT(s->transport_error, HasSubstr("timed out"));
}

TEST(SseCheckBounds, ATricklingStreamStopsAtTheTotalDeadline) {
  EndlessService trickle(milliseconds(50));
  auto s = CaptureEventStream(trickle.url(), "r", milliseconds(400));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_THAT(s->transport_error, HasSubstr("timed out"));
  EXPECT_FALSE(s->events.empty());
}

}  // namespace
}  // namespace llmconform::harness
