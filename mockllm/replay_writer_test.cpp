// Timed replays written from the listener's event loop: the steps a plan
// becomes (ReplayWriter), and many paced streams served at once by one
// server without a thread each. Raw sockets, one client thread polling them
// all, so the process's threads are the server's.
#include "mockllm/replay_writer.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/format.h"
#include "mockllm/loopback_test_support.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

using Kind = PacedStep::Kind;
using std::chrono::milliseconds;

// --- the steps of a plan ---------------------------------------------------

ResponsePlan Stream(std::vector<Piece> pieces) {
  ResponsePlan plan;
  plan.chunked = true;
  plan.content_type = "text/event-stream";
  plan.pieces = std::move(pieces);
  plan.paced = true;
  return plan;
}

struct Steps {
  std::vector<PacedStep> steps;
  std::vector<ReplayEnd> ends;
};

// Takes `plan`'s steps until its end or cut (a wait is not waited for).
Steps Walk(const ResponsePlan& plan, double speed) {
  Metrics metrics(false);
  Steps out;
  ReplayWriter w(plan, nullptr, speed, false, metrics, 1,
                 [&](ReplayEnd e) { out.ends.push_back(e); });
  for (int i = 0; i < 100; ++i) {
    out.steps.push_back(w.Next());
    if (out.steps.back().kind == Kind::kEnd || out.steps.back().kind == Kind::kCut) break;
  }
  return out;
}

std::vector<Kind> KindsOf(const Steps& s) {
  std::vector<Kind> kinds;
  for (const PacedStep& p : s.steps) kinds.push_back(p.kind);
  return kinds;
}

TEST(ReplayWriter, PiecesFallDueAtTheirRecordedTimesScaledBySpeed) {
  // Ten and twenty seconds after the start: both still to come when asked.
  const ResponsePlan plan = Stream(
      {{.at_ms = 0, .bytes = "a"}, {.at_ms = 10000, .bytes = "b"}, {.at_ms = 20000, .bytes = "c"}});
  const Steps s = Walk(plan, 1);
  EXPECT_EQ(KindsOf(s), (std::vector<Kind>{Kind::kHead, Kind::kPiece, Kind::kWait, Kind::kPiece,
                                           Kind::kWait, Kind::kPiece, Kind::kEnd}));
  EXPECT_EQ(s.steps[1].bytes, "a");
  EXPECT_EQ(s.steps[3].bytes, "b");
  EXPECT_EQ(s.steps[5].bytes, "c");
  // Both times count from the same start: 10 s apart, exactly.
  EXPECT_EQ(s.steps[4].due - s.steps[2].due, milliseconds(10000));
  EXPECT_EQ(s.ends, std::vector<ReplayEnd>{ReplayEnd::kComplete});
  // Twice the speed factor: twice the gap.
  const Steps slow = Walk(plan, 2);
  EXPECT_EQ(slow.steps[4].due - slow.steps[2].due, milliseconds(20000));
}

TEST(ReplayWriter, ADelayComesBeforeTheHeadAndAStallPushesLaterPiecesBack) {
  ResponsePlan plan = Stream({{.at_ms = 0, .bytes = "a"},
                              {.at_ms = 10000, .stall_ms_before = 5000, .bytes = "b"},
                              {.at_ms = 20000, .bytes = "c"}});
  plan.delay_ms = 3000;
  const Steps s = Walk(plan, 1);
  EXPECT_EQ(KindsOf(s),
            (std::vector<Kind>{Kind::kWait, Kind::kHead, Kind::kPiece, Kind::kWait, Kind::kWait,
                               Kind::kPiece, Kind::kWait, Kind::kPiece, Kind::kEnd}));
  // "c" is due 20 s after the start plus the 5 s stall: 15 s after "b"'s
  // recorded time (the stall's own wait is counted from when it is asked).
  EXPECT_EQ(s.steps[6].due - s.steps[3].due, milliseconds(15000));
}

TEST(ReplayWriter, SpeedZeroWritesTheBurstAtOnceAndACutEndsWithoutTheLastChunk) {
  ResponsePlan plan = Stream({{.at_ms = 0, .bytes = "a"}, {.at_ms = 5000, .bytes = "b"}});
  plan.burst = {{.at_ms = 0, .bytes = "ab"}};
  plan.cut = true;
  const Steps s = Walk(plan, 0);
  EXPECT_EQ(KindsOf(s), (std::vector<Kind>{Kind::kHead, Kind::kPiece, Kind::kCut}));
  EXPECT_EQ(s.steps[1].bytes, "ab");
  EXPECT_EQ(s.ends, std::vector<ReplayEnd>{ReplayEnd::kCut});
}

TEST(ReplayWriter, AnEmptySizedBodyWaitsOutItsStallsBeforeItsHead) {
  ResponsePlan plan;
  plan.content_length = 0;
  plan.pieces = {{.stall_ms_before = 4000}};
  plan.stalls = true;
  const Steps s = Walk(plan, 1);
  EXPECT_EQ(KindsOf(s), (std::vector<Kind>{Kind::kWait, Kind::kEnd}));
}

TEST(ReplayWriter, AbandonedSaysSo) {
  const ResponsePlan plan = Stream({{.at_ms = 0, .bytes = "a"}});
  Metrics metrics(false);
  std::vector<ReplayEnd> ends;
  ReplayWriter w(plan, nullptr, 1, false, metrics, 1, [&](ReplayEnd e) { ends.push_back(e); });
  EXPECT_EQ(w.Next().kind, Kind::kHead);
  w.Abandoned();
  EXPECT_EQ(ends, std::vector<ReplayEnd>{ReplayEnd::kAbandoned});
}

// --- many paced streams, one server ------------------------------------------

constexpr int kEvents = 20;
constexpr int kGapMs = 20;

std::string Event(int k) {
  return Format("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n", k);
}

// One exchange: a stream of kEvents events kGapMs apart (and what `fault` adds).
Trace PacedTrace(const OJson& fault = OJson::object()) {
  std::string chunks;
  for (int k = 0; k < kEvents; ++k) {
    OJson chunk = {{"t_ms", k * kGapMs}, {"raw", Event(k)}};
    chunks += (k ? "," : "") + chunk.dump();
  }
  const std::string text =
      R"({"format":"llmconform-trace/1","id":"paced","origin":"synthesized"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","stream":true}},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[)" +
      chunks + "]}" + (fault.empty() ? "" : ",\"fault\":" + fault.dump()) + "}\n";
  auto t = ParseTrace(text, "paced.jsonl");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

const std::string kRequestBody = R"({"model":"m","stream":true})";
const std::string kRequest =
    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
    "Content-Type: application/json\r\nConnection: close\r\n"
    "Content-Length: " +
    std::to_string(kRequestBody.size()) + "\r\n\r\n" + kRequestBody;

// The body as the wire carries it: one chunk per event, then the last chunk.
std::string ChunkedStream() {
  std::string out;
  for (int k = 0; k < kEvents; ++k) {
    const std::string e = Event(k);
    out += Format("{:x}\r\n{}\r\n", e.size(), e);
  }
  return out + "0\r\n\r\n";
}

std::size_t ThreadsNow() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

// Sends the request on `n` connections at once and reads them all from this
// one thread until each is closed; returns what each received, and the most
// threads the process had meanwhile.
std::pair<std::vector<std::string>, std::size_t> ReadStreams(int port, int n) {
  std::vector<pollfd> fds;
  for (int i = 0; i < n; ++i) {
    const int fd = ConnectLoopback(port, 0);
    EXPECT_GE(fd, 0);
    if (fd < 0) break;
    EXPECT_EQ(::send(fd, kRequest.data(), kRequest.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(kRequest.size()));
    fds.push_back({fd, POLLIN, 0});
  }
  std::vector<std::string> got(fds.size());
  std::size_t most_threads = 0;
  for (std::size_t open = fds.size(); open > 0;) {
    most_threads = std::max(most_threads, ThreadsNow());
    // A generous bound: the streams take kEvents * kGapMs; a hang fails here.
    if (::poll(fds.data(), fds.size(), 30000) <= 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[16384];
      const ssize_t r = ::recv(fds[i].fd, buf, sizeof buf, MSG_DONTWAIT);
      if (r > 0) {
        got[i].append(buf, static_cast<std::size_t>(r));
        continue;
      }
      ::close(fds[i].fd);
      fds[i].fd = -1;
      --open;
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  return {got, most_threads};
}

TEST(PacedReplay, ThreeHundredStreamsAtOnceAreByteExactWithoutAThreadEach) {
  ServerOptions options;
  options.speed = 1;
  options.listen.threads = 4;
  auto s = Server::Start({PacedTrace()}, options);
  ASSERT_TRUE(s) << s.error().message;
  constexpr int kStreams = 300;
  const auto [got, most_threads] = ReadStreams((*s)->port(), kStreams);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kStreams));
  const std::string body = ChunkedStream();
  for (const std::string& reply : got) {
    ASSERT_TRUE(reply.starts_with("HTTP/1.1 200 OK\r\n")) << reply.substr(0, 200);
    const std::size_t head_end = reply.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos);
    EXPECT_NE(reply.substr(0, head_end).find("Transfer-Encoding: chunked"), std::string::npos);
    EXPECT_EQ(reply.substr(head_end + 4), body);
  }
  // Workers (4), I/O threads (at most 4), this one and the sanitizer's: a
  // thread per stream would be 300 more.
  EXPECT_LT(most_threads, 32u);
  const nlohmann::json journal = (*s)->Journal();
  ASSERT_EQ(journal.size(), static_cast<std::size_t>(kStreams));
  for (const auto& e : journal) EXPECT_EQ(e["response"]["outcome"], "complete") << e.dump();
}

// Polls `s`'s journal entry `i` until its outcome is `want` (at most 10 s).
std::string OutcomeWithin(const Server& s, std::size_t i, const std::string& want) {
  std::string outcome;
  for (int waited = 0; waited < 10000; waited += 20) {
    const nlohmann::json j = s.Journal();
    if (j.size() > i) outcome = j[i]["response"]["outcome"].get<std::string>();
    if (outcome == want) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return outcome;
}

TEST(PacedReplay, AClientResettingDuringAStallEndsItsAnswerAtOnce) {
  // A minute's stall after the first event: the reset, not the stall's end,
  // ends the answer.
  ServerOptions options;
  options.speed = 1;
  auto s = Server::Start({PacedTrace({{"stall_ms", 60000}, {"stall_after_events", 1}})}, options);
  ASSERT_TRUE(s) << s.error().message;
  const int fd = ConnectLoopback((*s)->port(), 30);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::send(fd, kRequest.data(), kRequest.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(kRequest.size()));
  std::string got;
  const std::string first = Event(0);
  while (got.find(first) == std::string::npos) {
    char buf[4096];
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    ASSERT_GT(r, 0);
    got.append(buf, static_cast<std::size_t>(r));
  }
  const linger reset{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  ::close(fd);
  EXPECT_EQ(OutcomeWithin(**s, 0, "client_disconnected"), "client_disconnected");
  EXPECT_EQ((*s)->Journal()[0]["findings"][0]["rule"], "client_disconnected");
}

TEST(PacedReplay, StopEndsEveryStreamInFlight) {
  ServerOptions options;
  options.speed = 1;
  auto s = Server::Start({PacedTrace({{"stall_ms", 60000}, {"stall_after_events", 1}})}, options);
  ASSERT_TRUE(s) << s.error().message;
  std::vector<int> fds;
  for (int i = 0; i < 50; ++i) {
    const int fd = ConnectLoopback((*s)->port(), 30);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::send(fd, kRequest.data(), kRequest.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(kRequest.size()));
    fds.push_back(fd);
  }
  for (std::size_t i = 0; i < fds.size(); ++i)
    EXPECT_EQ(OutcomeWithin(**s, i, "sending"), "sending");
  (*s)->Stop();  // the stalls have most of a minute to go
  const nlohmann::json journal = (*s)->Journal();
  ASSERT_EQ(journal.size(), fds.size());
  for (const auto& e : journal) EXPECT_EQ(e["response"]["outcome"], "stopped");
  for (int fd : fds) {
    std::string rest;
    char buf[4096];
    for (ssize_t r; (r = ::recv(fd, buf, sizeof buf, 0)) > 0;)
      rest.append(buf, static_cast<std::size_t>(r));
    EXPECT_EQ(rest.find("0\r\n\r\n"), std::string::npos);  // never ended as if whole
    ::close(fd);
  }
}

}  // namespace
}  // namespace llmconform::mockllm
