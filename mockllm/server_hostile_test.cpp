// mockllm under hostile input: bounded sessions and journal, error answers
// that do not echo what they were sent, and HTTP framing read as RFC 9112
// says (issue 17). Raw sockets, so nothing a client library adds hides it.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "base/utf8.h"
#include "mockllm/journal.h"
#include "mockllm/loopback_test_support.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::string_view kServerHostileTrace =
    R"({"format":"llmconform-trace/1","id":"demo","origin":"synthesized"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"id":"c1","choices":[]}}}
)";
const std::string kBody = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";

std::unique_ptr<Server> Start(ServerOptions options = {}) {
  auto t = ParseTrace(kServerHostileTrace, "demo.jsonl");
  EXPECT_TRUE(t) << t.error().message;
  auto s = Server::Start({*t}, std::move(options));
  EXPECT_TRUE(s) << s.error().message;
  return std::move(*s);
}

// The recorded request, whole, on a keep-alive connection.
const std::string kChatRequest =
    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
    "Content-Type: application/json\r\nContent-Length: " +
    std::to_string(kBody.size()) + "\r\n\r\n" + kBody;

// Appends what `fd` receives until the server closes it or a read times out.
void ReadAll(int fd, std::string& out) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

// Sends `bytes` on a fresh connection, half-closes when asked, and returns
// everything the server sent until it closed (or 5 s passed).
std::string ServerHostileExchange(int port, std::string_view bytes, bool half_close = false) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "connect failed";
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string out;
  ReadAll(fd, out);
  ::close(fd);
  return out;
}

// POSTs `body` to /v1/chat/completions as JSON on a fresh client, waiting
// as long as a sanitizer build may need for a large body.
httplib::Result PostChat(const Server& s, const std::string& body) {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(300, 0);
  return c.Post("/v1/chat/completions", body, "application/json");
}

nlohmann::json Health(const Server& s) {
  httplib::Client c("127.0.0.1", s.port());
  auto r = c.Get("/__admin/health");
  return r ? nlohmann::json::parse(r->body) : nlohmann::json();
}

TEST(HostileServer, SessionsAreCappedLeastRecentlyUsedFirstAndResetFreesThem) {
  auto s = Start({.max_sessions = 3});
  httplib::Client c("127.0.0.1", s->port());
  for (int i = 0; i < 5; ++i) {
    auto r = c.Post("/t/demo/v1/chat/completions", {{"X-Mockllm-Session", "s" + std::to_string(i)}},
                    kBody, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(Health(*s)["sessions"], 3);
  EXPECT_EQ(Health(*s)["sessions_evicted"], 2);
  auto sessions = c.Get("/__admin/sessions");
  ASSERT_TRUE(sessions);
  EXPECT_EQ(sessions->get_header_value("X-Mockllm-Sessions"), "3");
  EXPECT_EQ(sessions->get_header_value("X-Mockllm-Sessions-Evicted"), "2");
  // s0 was forgotten: it starts again at the first exchange.
  auto again = c.Post("/t/demo/v1/chat/completions", {{"X-Mockllm-Session", "s0"}}, kBody,
                      "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  // The README's own reset: a POST without a body or Content-Length.
  EXPECT_THAT(
      ServerHostileExchange(
          s->port(),
          "POST /__admin/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          "Connection: close\r\n\r\n"),
      StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(Health(*s)["sessions"], 0);
}

// A session name is bounded (what ten thousand sessions keep stays small),
// and the sessions view is streamed and paged.
TEST(HostileServer, SessionNamesAreBoundedAndTheSessionsViewIsPaged) {
  auto s = Start();
  httplib::Client c("127.0.0.1", s->port());
  auto named = [&](const std::string& name) {
    return c.Post("/t/demo/v1/chat/completions", {{"X-Mockllm-Session", name}}, kBody,
                  "application/json");
  };
  auto longest = named(std::string(kMaxSessionNameBytes, 's'));
  ASSERT_TRUE(longest);
  EXPECT_EQ(longest->status, 200);
  auto too_long = named(std::string(60000, 'x'));
  ASSERT_TRUE(too_long);
  EXPECT_EQ(too_long->status, 400);
  EXPECT_EQ(nlohmann::json::parse(too_long->body)["error"]["code"],
            "mockllm_session_name_too_long");
  EXPECT_EQ(Health(*s)["sessions"], 1);
  for (int i = 0; i < 99; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "s%03d", i);
    auto r = named(name);
    ASSERT_TRUE(r);
  }
  auto all = c.Get("/__admin/sessions");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->get_header_value("Transfer-Encoding"), "chunked");
  EXPECT_EQ(all->get_header_value("X-Mockllm-Sessions"), "100");
  EXPECT_EQ(nlohmann::json::parse(all->body).size(), 100u);
  auto page = c.Get("/__admin/sessions?offset=70&limit=3");
  ASSERT_TRUE(page);
  const auto rows = nlohmann::json::parse(page->body);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["session"], "s070");
  EXPECT_EQ(rows[2]["session"], "s072");
  EXPECT_EQ(nlohmann::json::parse(c.Get("/__admin/sessions?offset=99")->body).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(c.Get("/__admin/sessions?offset=500")->body),
            nlohmann::json::array());
  EXPECT_EQ(c.Get("/__admin/sessions?limit=x")->status, 400);
}

TEST(HostileServer, AnInvalidMegabyteBodyIsNeitherEchoedNorKeptWhole) {
  auto s = Start();
  const std::string huge = "{\"text\":\"" + std::string(1024 * 1024, 'a');  // unterminated
  auto r = PostChat(*s, huge);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_LT(r->body.size(), 4096u) << r->body.substr(0, 200);
  EXPECT_THAT(r->body, HasSubstr("bytes in all"));
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  const std::string kept = journal[0]["request"]["body"];
  EXPECT_LE(kept.size(), kMaxKeptBytes + 64);
  EXPECT_THAT(kept, HasSubstr(std::to_string(huge.size()) + " bytes in all"));
  for (const auto& f : journal[0]["findings"]) {
    EXPECT_LE(f["message"].get<std::string>().size(), kMaxKeptBytes + 64);
  }
}

// A valid JSON body that matches nothing: before, its 1 MiB string came
// back whole in the 404's "nearest" and stayed whole in the journal (twice).
TEST(HostileServer, AValidMegabyteBodyIsNeitherEchoedNorKeptWhole) {
  auto s = Start();
  const std::string text(1024 * 1024, 'a');
  const std::string body =
      nlohmann::json{{"model", "m"}, {"messages", {{{"role", "user"}, {"content", text}}}}}.dump();
  auto r = PostChat(*s, body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_LT(r->body.size(), 8192u) << r->body.substr(0, 200);
  const auto answer = nlohmann::json::parse(r->body);
  const auto& quoted = answer["error"]["nearest"]["differences"][0];
  EXPECT_EQ(quoted["pointer"], "/messages/0/content");
  EXPECT_THAT(quoted["actual"].get<std::string>(),
              AllOf(StartsWith("aaaa"), HasSubstr(std::to_string(text.size()) + " bytes in all")));
  EXPECT_LE(quoted["actual"].get<std::string>().size(), kMaxQuotedBytes + 64);

  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_LT(journal[0].dump().size(), 3 * kMaxKeptBytes);
  // The body keeps its shape; only the long string is cut.
  const auto& kept = journal[0]["request"]["body"];
  EXPECT_EQ(kept["model"], "m");
  EXPECT_THAT(kept["messages"][0]["content"].get<std::string>(),
              HasSubstr(std::to_string(text.size()) + " bytes in all"));
  EXPECT_EQ(journal[0]["nearest"]["differences"][0]["pointer"], "/messages/0/content");
  EXPECT_EQ(journal[0]["request"]["body_cut"], true);

  // Kept whole when asked (llmconform judge needs every byte), and not marked.
  auto whole = Start({.journal_whole_bodies = true});
  ASSERT_TRUE(PostChat(*whole, body));
  const nlohmann::json kept_whole = whole->Journal();
  ASSERT_EQ(kept_whole.size(), 1u);
  EXPECT_EQ(kept_whole[0]["request"]["body"], nlohmann::json::parse(body));
  EXPECT_FALSE(kept_whole[0]["request"].contains("body_cut"));
}

// Many small values make a large body no string cap shortens: it is kept as
// its text, cut, and the journal's byte budget drops the oldest entries.
TEST(HostileServer, TheJournalKeepsWithinItsByteBudget) {
  constexpr std::size_t kBudget = kMaxKeptBodyBytes / 2;
  auto s = Start({.journal_max_bytes = kBudget});
  nlohmann::json many = nlohmann::json::array();
  for (int i = 0; i < 200000; ++i) many.push_back(i);
  const std::string body = nlohmann::json{{"model", "m"}, {"messages", many}}.dump();
  ASSERT_GT(body.size(), kMaxKeptBodyBytes);
  constexpr int kLarge = 8;
  for (int i = 0; i < kLarge; ++i) ASSERT_TRUE(PostChat(*s, body));
  ASSERT_TRUE(PostChat(*s, kBody));
  const nlohmann::json journal = s->Journal();
  std::size_t kept = 0;
  for (const auto& e : journal) kept += e.dump().size();
  EXPECT_LT(kept, kBudget);
  EXPECT_GE(journal.size(), 2u);  // each large entry keeps about 200 KB
  EXPECT_LT(journal.size(), kLarge + 1u);
  EXPECT_EQ(Health(*s)["journal_dropped"], kLarge + 1 - journal.size());
  const auto& big = journal[journal.size() - 2]["request"]["body"];
  ASSERT_TRUE(big.is_string());
  EXPECT_THAT(big.get<std::string>(), HasSubstr(std::to_string(body.size()) + " bytes in all"));
  // The newest, a small body, is kept whole and as JSON.
  EXPECT_EQ(journal.back()["request"]["body"], nlohmann::json::parse(kBody));
}

// A body with no secret is journaled from its own bytes: spacing and key
// order do not matter, the value does.
TEST(HostileServer, AJournaledBodyIsTheValueSent) {
  auto s = Start();
  httplib::Client c("127.0.0.1", s->port());
  const std::string spaced =
      R"({ "messages" : [ {"content":"hi", "role":"user"} ],  "model":"m" })";
  ASSERT_TRUE(c.Post("/v1/chat/completions", spaced, "application/json"));
  const std::string secret =
      R"({"model":"m","messages":[],"api_key":"sk-abcdefghijklmnopqrstuvwx"})";
  ASSERT_TRUE(c.Post("/v1/chat/completions", secret, "application/json"));
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["request"]["body"], nlohmann::json::parse(spaced));
  EXPECT_EQ(journal[1]["request"]["body"]["api_key"], "[redacted]");
  EXPECT_THAT(journal.dump(), Not(HasSubstr("abcdefghijklmnop")));
}

// A client that sent more than the server read (here 100 KB after its
// request) and reads its answer late: closing with those bytes unread would
// reset the connection and destroy the answer (it did, 20 times in 20).
TEST(HostileServer, ALastAnswerSurvivesBytesTheServerDidNotRead) {
  auto s = Start();
  for (const std::string_view version : {"HTTP/1.0", "HTTP/1.1"}) {
    const int fd = ConnectLoopback(s->port());
    ASSERT_GE(fd, 0);
    const std::string request = "POST /v1/chat/completions " + std::string(version) +
                                "\r\nHost: x\r\nConnection: close\r\n"
                                "Content-Type: application/json\r\nContent-Length: " +
                                std::to_string(kBody.size()) + "\r\n\r\n" + kBody +
                                std::string(100000, 'x');
    std::size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n =
          ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n <= 0) break;  // the rest does not fit: what was sent is enough
      sent += static_cast<std::size_t>(n);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string answer;
    ReadAll(fd, answer);
    ::close(fd);
    EXPECT_THAT(answer, AllOf(StartsWith("HTTP/1.1 200"), HasSubstr(R"("id":"c1")"))) << version;
  }
}

TEST(HostileServer, CapTextCutsAtACodePointBoundaryAndNotesTheSize) {
  EXPECT_EQ(CapText("short", 10), "short");
  const std::string text =
      "ab\xC3\xA9"
      "cd";  // "abécd": é is two bytes
  EXPECT_EQ(CapText(text, 3), "ab… [6 bytes in all]");
  EXPECT_EQ(CapText(text, 4), "ab\xC3\xA9… [6 bytes in all]");
}

TEST(HostileServer, TheJournalIsServedInPages) {
  auto s = Start();
  httplib::Client c("127.0.0.1", s->port());
  for (int i = 0; i < 150; ++i)
    ASSERT_TRUE(c.Post("/v1/chat/completions", kBody, "application/json"));
  auto all = c.Get("/__admin/journal");
  ASSERT_TRUE(all);
  EXPECT_EQ(nlohmann::json::parse(all->body), s->Journal());
  EXPECT_EQ(nlohmann::json::parse(all->body).size(), 150u);
  auto page = c.Get("/__admin/journal?after=70&limit=2");
  ASSERT_TRUE(page);
  const auto j = nlohmann::json::parse(page->body);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["seq"], 71);
  EXPECT_EQ(j[1]["seq"], 72);
  EXPECT_EQ(nlohmann::json::parse(c.Get("/__admin/journal?after=150")->body),
            nlohmann::json::array());
  EXPECT_EQ(c.Get("/__admin/journal?limit=-1")->status, 400);

  // The filtered views page too (they ignored after and limit, and were
  // built whole in memory). Sessions are those of pinned requests.
  for (int i = 0; i < 130; ++i) {
    ASSERT_TRUE(c.Post("/t/demo/v1/chat/completions",
                       {{"X-Mockllm-Session", i % 2 ? "odd" : "even"}}, kBody, "application/json"));
  }
  const auto odd = nlohmann::json::parse(c.Get("/__admin/journal?session=odd")->body);
  EXPECT_EQ(odd.size(), 65u);
  const auto odd_page =
      nlohmann::json::parse(c.Get("/__admin/journal?session=odd&after=200&limit=3")->body);
  ASSERT_EQ(odd_page.size(), 3u);
  std::uint64_t last = 200;
  for (const auto& e : odd_page) {
    EXPECT_EQ(e["session"], "odd");
    EXPECT_GT(e["seq"].get<std::uint64_t>(), last);
    last = e["seq"].get<std::uint64_t>();
  }
  EXPECT_EQ(c.Get("/__admin/journal?session=odd&limit=abc")->status, 400);
  EXPECT_EQ(nlohmann::json::parse(c.Get("/__admin/journal?session=none")->body),
            nlohmann::json::array());
  // Every pinned request after a session's first found the trace exhausted.
  const auto unmatched = nlohmann::json::parse(c.Get("/__admin/unmatched?after=200&limit=2")->body);
  ASSERT_EQ(unmatched.size(), 2u);
  for (const auto& e : unmatched) {
    EXPECT_GT(e["seq"].get<std::uint64_t>(), 200u);
    EXPECT_EQ(e["findings"][0]["rule"], "trace_exhausted") << e.dump();
  }
  EXPECT_EQ(c.Get("/__admin/unmatched?after=x")->status, 400);
}

TEST(HostileServer, BodyFramingFollowsRfc9112) {
  auto s = Start();
  // No Content-Length and no Transfer-Encoding: an empty body (§6.3),
  // answered at once (no recorded exchange has an empty body).
  const std::string empty =
      ServerHostileExchange(s->port(),
                            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                            "Connection: close\r\n\r\n");
  EXPECT_THAT(empty, StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(empty, HasSubstr("mockllm_no_match"));
  const std::string bad_length = ServerHostileExchange(
      s->port(),
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n"
      "Content-Type: application/json\r\n\r\n" +
          kBody);
  EXPECT_THAT(bad_length, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(bad_length, HasSubstr("Content-Length \\\"abc\\\" is not a decimal number"));
  EXPECT_THAT(ServerHostileExchange(s->port(),
                                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                    "Content-Length: 3\r\nContent-Length: 4\r\n\r\n{}  "),
              StartsWith("HTTP/1.1 400"));
  // A last transfer coding other than chunked leaves the body's end unknown.
  EXPECT_THAT(ServerHostileExchange(s->port(),
                                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                    "Transfer-Encoding: chunked, gzip\r\n\r\n" +
                                        kChatRequest),
              AllOf(StartsWith("HTTP/1.1 400"), HasSubstr("does not end in chunked")));
  const nlohmann::json journal = s->Journal();
  ASSERT_GE(journal.size(), 2u);
}

// A chunked body's trailer fields are not headers: one cannot choose the
// session or stand in for a header the head did not send (RFC 9110 §6.5.1).
TEST(HostileServer, TrailerFieldsDoNotActAsHeaders) {
  auto s = Start();
  char size[16];
  std::snprintf(size, sizeof size, "%zx", kBody.size());
  const std::string reply = ServerHostileExchange(
      s->port(),
      "POST /t/demo/v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
          std::string(size) + "\r\n" + kBody +
          "\r\n0\r\nX-Mockllm-Session: from-the-trailer\r\nX-Mockllm-Dialect: nope\r\n"
          "Authorization: Bearer sk-trailer0123456789abcdef\r\n\r\n");
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 200"));  // no unknown-dialect 400
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0]["session"], "default");
  EXPECT_EQ(journal[0]["request"]["body"], nlohmann::json::parse(kBody));
  for (const char* name : {"x-mockllm-session", "x-mockllm-dialect", "authorization"})
    EXPECT_FALSE(journal[0]["request"]["headers"].contains(name)) << name << journal.dump();
  // Nor does a trailer's Connection: close end the connection.
  const std::string two = ServerHostileExchange(
      s->port(),
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n" +
          std::string(size) + "\r\n" + kBody +
          "\r\n0\r\nConnection: close\r\n\r\n"
          "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(two, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(two.substr(1), HasSubstr("HTTP/1.1 200")) << two;
}

// A reply written at once is journaled complete when handed to the socket;
// a client that takes none of it (past --write-timeout-ms), or that resets
// the connection while it is written, is journaled as gone, and an answer the
// server's stop ended as stopped.
TEST(HostileServer, AClientThatDoesNotTakeItsAnswerIsJournaledDisconnected) {
  // 16 MiB: more than the socket buffers of both ends hold, unless a kernel
  // starts each send buffer that large.
  {
    std::ifstream wmem("/proc/sys/net/ipv4/tcp_wmem");
    std::size_t low = 0, initial = 0;
    if (wmem >> low >> initial && initial >= (16u << 20))
      GTEST_SKIP() << "tcp_wmem starts send buffers at " << initial << " bytes";
  }
  const std::string big =
      std::string(R"({"format":"llmconform-trace/1","id":"big","origin":"synthesized"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"id":"c1","text":")") +
      std::string(16 << 20, 'x') + "\"}}}\n";
  auto t = ParseTrace(big, "big.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  const auto start = [&](int write_timeout_ms) {
    ServerOptions options;
    options.listen.write_timeout_ms = write_timeout_ms;
    auto started = Server::Start({*t}, std::move(options));
    EXPECT_TRUE(started) << started.error().message;
    return std::move(*started);
  };
  // A socket that takes in little, with the request sent: the server's
  // writes soon stall.
  const auto small_window = [&](const Server& s) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int rcvbuf = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(s.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::send(fd, kChatRequest.data(), kChatRequest.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(kChatRequest.size()));
    return fd;
  };
  const auto outcome = [](const Server& s, std::size_t i) {
    const nlohmann::json journal = s.Journal();
    return journal.size() > i ? journal[i]["response"].value("outcome", "") : "";
  };
  const auto wait_for = [&](const Server& s, std::size_t i, const std::string& want) {
    for (int waited = 0; waited < 10000 && outcome(s, i) != want; waited += 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return outcome(s, i);
  };
  {
    // Takes nothing: cut off after the write timeout.
    auto s = start(300);
    const int stalled = small_window(*s);
    EXPECT_EQ(wait_for(*s, 0, "client_disconnected"), "client_disconnected");
    EXPECT_EQ(s->Journal()[0]["findings"][0]["rule"], "client_disconnected");
    ::close(stalled);
  }
  // The default write timeout (10 s) from here: nothing below waits on it.
  auto s = start(10000);
  // Resets the connection while its answer is written.
  const int resetting = small_window(*s);
  EXPECT_EQ(wait_for(*s, 0, "complete"), "complete");  // handed to the socket
  const linger reset{1, 0};
  ::setsockopt(resetting, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  ::close(resetting);
  EXPECT_EQ(wait_for(*s, 0, "client_disconnected"), "client_disconnected");
  // A client that takes its answer: complete, and it stays so.
  httplib::Client c("127.0.0.1", s->port());
  auto r = c.Post("/v1/chat/completions", kBody, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.size(), (16u << 20) + 21);  // {"id":"c1","text":"…"}
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(outcome(*s, 1), "complete");
  // An answer still being written when the server stops: stopped.
  const int waiting = small_window(*s);
  EXPECT_EQ(wait_for(*s, 2, "complete"), "complete");
  s->Stop();
  EXPECT_EQ(outcome(*s, 2), "stopped");
  ::close(waiting);
}

TEST(HostileServer, AnEndlessChunkSizeLineIsRefusedNotBuffered) {
  auto s = Start();
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  // 4 MiB of one chunk extension: refused after 64 KiB (what follows the
  // answer is read and dropped, not kept).
  const std::string junk(64 * 1024, 'a');
  for (int i = 0; i < 64; ++i) {
    if (::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL) <= 0) break;
  }
  std::string reply;
  ReadAll(fd, reply);
  ::close(fd);
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(reply, HasSubstr("longer than 65536 bytes"));
}

// A request on a connection it closes: `headers` after the Host line.
std::string RawRequest(const std::string& method, const std::string& path, const std::string& host,
                       const std::string& headers, const std::string& body = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// Issue 34: a page (a form post, a no-cors fetch, a DNS-rebound name) could
// load traces, reset the journal and read the prompts in it.
TEST(HostileServer, TheAdminApiAnswersNoWebPageAndTheChatRoutesAnswerAsBefore) {
  auto s = Start({.cors = "http://localhost:5173", .allow_hosts = {"mock.internal"}});
  const int port = s->port();
  const std::string local = "127.0.0.1:" + std::to_string(port);
  const std::string json = "Content-Type: application/json\r\n";
  const std::string stub =
      R"({"id":"evil","request":{"method":"POST","path":"/v1/x"},"response":{"status":200}})";
  ASSERT_THAT(
      ServerHostileExchange(port, RawRequest("POST", "/v1/chat/completions", local, json, kBody)),
      StartsWith("HTTP/1.1 200"));
  // A simple request (text/plain, no preflight) from a foreign page.
  EXPECT_THAT(
      ServerHostileExchange(
          port, RawRequest("POST", "/__admin/traces", "evil.example",
                           "Content-Type: text/plain\r\nOrigin: http://evil.example\r\n", stub)),
      StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("POST", "/__admin/traces", local,
                                                     "Content-Type: text/plain\r\n", stub)),
              AllOf(StartsWith("HTTP/1.1 415"), HasSubstr("application/json")));
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("POST", "/__admin/reset", local, "")),
              StartsWith("HTTP/1.1 415"));
  // An Origin --cors does not allow, even with the right Host and type.
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("POST", "/__admin/reset", local,
                                                     json + "Origin: http://evil.example\r\n")),
              AllOf(StartsWith("HTTP/1.1 403"), HasSubstr("origin_not_allowed")));
  // A rebound name reads nothing (the journal holds prompts).
  EXPECT_THAT(
      ServerHostileExchange(
          port, RawRequest("GET", "/__admin/journal", "evil.example:" + std::to_string(port), "")),
      AllOf(StartsWith("HTTP/1.1 403"), HasSubstr("host_not_allowed"), Not(HasSubstr("\"hi\""))));
  EXPECT_EQ(s->Journal().size(), 1u);  // nothing was reset
  EXPECT_THAT(
      ServerHostileExchange(port, RawRequest("DELETE", "/__admin/traces/demo", "evil.example", "")),
      StartsWith("HTTP/1.1 403"));
  // What is allowed: the listening address, loopback names, --allow-host,
  // the --cors origin; a bodiless DELETE needs no type.
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("GET", "/__admin/journal", local, "")),
              AllOf(StartsWith("HTTP/1.1 200"), HasSubstr("\"hi\"")));
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("GET", "/__admin/health",
                                                     "LOCALHOST:" + std::to_string(port), "")),
              StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(
      ServerHostileExchange(port, RawRequest("GET", "/__admin/health", "mock.internal", "")),
      StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("POST", "/__admin/traces", local, json, stub)),
              StartsWith("HTTP/1.1 201"));
  EXPECT_THAT(
      ServerHostileExchange(port, RawRequest("DELETE", "/__admin/traces/evil", "[::1]", "")),
      StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(ServerHostileExchange(port, RawRequest("POST", "/__admin/reset", local,
                                                     json + "Origin: http://localhost:5173\r\n")),
              StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(s->Journal().size(), 0u);
  // The chat routes answer any Host and Origin as before.
  EXPECT_THAT(
      ServerHostileExchange(port, RawRequest("POST", "/v1/chat/completions", "evil.example",
                                             json + "Origin: http://evil.example\r\n", kBody)),
      StartsWith("HTTP/1.1 200"));
}

// cpp-httplib 0.11's server checked that a socket was alive with a peek
// before it wrote, took the client's half-close for a closed connection and
// dropped the answer 12 times in 20 (docs/mockllm-server.md).
TEST(HostileServer, ACompleteRequestFollowedByAHalfCloseIsAnswered) {
  auto s = Start();
  int answered = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string reply = ServerHostileExchange(s->port(), kChatRequest, /*half_close=*/true);
    if (reply.starts_with("HTTP/1.1 200")) ++answered;
  }
  EXPECT_EQ(answered, 20);
}

// Issue 34: a FIN that reached the server after the answer had begun (a
// timed answer: a delay, --speed) was taken for the client leaving, and 12
// of 20 such clients got an empty reply. A FIN is not abandonment: the
// answer is written until a write fails.
TEST(HostileServer, AHalfCloseWhileATimedAnswerWaitsIsAnswered) {
  auto s = Start({.fault = OJson{{"delay_ms", 100}}});
  int answered = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string reply = ServerHostileExchange(s->port(), kChatRequest, /*half_close=*/true);
    if (reply.starts_with("HTTP/1.1 200") && reply.ends_with(R"({"id":"c1","choices":[]})"))
      ++answered;
  }
  EXPECT_EQ(answered, 20);
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 20u);
  for (const auto& e : journal) EXPECT_EQ(e["response"]["outcome"], "complete") << e.dump();
}

// HTTP/1.0 has no chunked coding: a stream, timed or not, and the streamed
// journal reach an HTTP/1.0 client as bytes ended by the close.
TEST(HostileServer, Http10ClientsGetACloseDelimitedBodyNotChunks) {
  constexpr std::string_view kStreamTrace =
      R"({"format":"llmconform-trace/1","id":"s","origin":"synthesized"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","stream":true}},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"t_ms":0,"raw":"data: {\"n\":1}\n\n"},{"t_ms":5,"raw":"data: [DONE]\n\n"}]}}
)";
  const std::string body = R"({"model":"m","stream":true})";
  const std::string request =
      "POST /v1/chat/completions HTTP/1.0\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  for (const bool timed : {false, true}) {
    auto t = ParseTrace(kStreamTrace, "s.jsonl");
    ASSERT_TRUE(t) << t.error().message;
    ServerOptions options;
    if (timed) options.speed = 1;
    auto s = Server::Start({*t}, options);
    ASSERT_TRUE(s) << s.error().message;
    const std::string reply = ServerHostileExchange((*s)->port(), request);
    const auto head_end = reply.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos) << reply;
    const std::string head = reply.substr(0, head_end);
    EXPECT_THAT(head, StartsWith("HTTP/1.1 200")) << timed;
    EXPECT_THAT(head, Not(HasSubstr("chunked"))) << timed;
    EXPECT_EQ(reply.substr(head_end + 4), "data: {\"n\":1}\n\ndata: [DONE]\n\n") << timed;
    const std::string journal = ServerHostileExchange(
        (*s)->port(), "GET /__admin/journal HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_THAT(journal, Not(HasSubstr("chunked")));
    EXPECT_THAT(journal, HasSubstr("\r\n\r\n[{"));
    EXPECT_TRUE(journal.ends_with("]")) << journal;
  }
}

// Opens a connection, sends one complete request and keeps the connection
// open (keep-alive) after reading the start of the answer; -1 on failure.
int KeepAliveConnection(int port, const std::string& request) {
  const int fd = ConnectLoopback(port, 10);
  if (fd < 0) return -1;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size()))
    return ::close(fd), -1;
  char buf[4096];
  if (::recv(fd, buf, sizeof buf, 0) <= 0) return ::close(fd), -1;
  return fd;
}

TEST(HostileServer, ConnectionsBeyondTheThreadCountAreServedNotQueued) {
  // Idle keep-alive connections would hold every thread for 30 s.
  auto s = Start({.listen = {.threads = 4, .keep_alive_seconds = 30}});
  std::vector<int> held;
  for (int i = 0; i < 40; ++i) {
    const int fd = KeepAliveConnection(s->port(), kChatRequest);
    EXPECT_GE(fd, 0) << "connection " << i << " got no answer";
    if (fd >= 0) held.push_back(fd);
  }
  EXPECT_THAT(ServerHostileExchange(s->port(),
                                    "GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    "Connection: close\r\n\r\n"),
              StartsWith("HTTP/1.1 200"));
  for (int fd : held) ::close(fd);
}

TEST(HostileServer, ConnectionsBeyondTheLimitAreAnswered503AtOnce) {
  auto s = Start({.listen = {.max_connections = 4, .keep_alive_seconds = 30}});
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    const int fd = KeepAliveConnection(s->port(), kChatRequest);
    ASSERT_GE(fd, 0) << "connection " << i << " got no answer";
    held.push_back(fd);
  }
  const std::string busy = ServerHostileExchange(s->port(), kChatRequest);
  EXPECT_THAT(busy, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(busy, HasSubstr("server_busy"));
  EXPECT_THAT(busy, HasSubstr("Retry-After: 1"));
  ::close(held.back());
  held.pop_back();
  // A freed place is given to the next connection.
  std::string again;
  for (int attempt = 0; attempt < 50 && !again.starts_with("HTTP/1.1 200"); ++attempt) {
    again = ServerHostileExchange(s->port(), kChatRequest, /*half_close=*/true);
    if (!again.starts_with("HTTP/1.1 200")) ::usleep(20000);
  }
  EXPECT_THAT(again, StartsWith("HTTP/1.1 200"));
  for (int fd : held) ::close(fd);
}

TEST(HostileServer, AHeadThatTricklesInIsCutOffAtItsDeadlineWith408) {
  auto s = Start({.listen = {.read_timeout_ms = 300}});
  const int fd = ConnectLoopback(s->port(), 2);
  ASSERT_GE(fd, 0);
  // One byte every 50 ms: each read is well inside the timeout, but the head
  // as a whole is not; the connection is answered and closed.
  const std::string head =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaa";
  std::string reply;
  char buf[4096];
  for (char c : head) {
    if (::send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
    ::usleep(50000);
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) reply.append(buf, static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  ReadAll(fd, reply);
  ::close(fd);
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 408"));
  EXPECT_THAT(reply, HasSubstr("request_timeout"));
  // The server goes on.
  EXPECT_THAT(ServerHostileExchange(
                  s->port(), "GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", true),
              StartsWith("HTTP/1.1 200"));
}

// A head past 64 KiB (one long field, or many) is answered 431 in OpenAI's
// error form, journaled, and the connection closed; the server goes on.
TEST(HostileServer, AHeadPast64KiBIsAnswered431) {
  auto s = Start();
  std::string many;
  for (int i = 0; i < 3000; ++i) many += "X-Field-" + std::to_string(i) + ": abcdefghijklmnop\r\n";
  for (const std::string& fields : {"X-Long: " + std::string(70 * 1024, 'a') + "\r\n", many}) {
    const std::string reply =
        ServerHostileExchange(s->port(), "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" +
                                             fields + "Content-Length: 2\r\n\r\n{}");
    EXPECT_THAT(reply, StartsWith("HTTP/1.1 431"));
    EXPECT_THAT(reply, HasSubstr("\"code\":\"request_header_fields_too_large\""));
    EXPECT_THAT(reply, HasSubstr("larger than the limit of 65536 bytes"));
    EXPECT_LT(reply.size(), 1024u);  // the head is not echoed
  }
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["response"]["status"], 431);
  EXPECT_EQ(journal[0]["findings"][0]["rule"], "malformed_request");
  EXPECT_THAT(ServerHostileExchange(
                  s->port(), "GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", true),
              StartsWith("HTTP/1.1 200"));
}

// A head refused in a later read than its start line is still said and
// journaled whole: the parser took its first fields in the earlier read.
TEST(HostileServer, AHeadRefusedInALaterReadIsJournaledWithItsStartLine) {
  auto s = Start();
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const std::string first = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";
  const std::string second = "Content-Length: abc\r\n\r\n{}";
  ASSERT_EQ(::send(fd, first.data(), first.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(first.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(::send(fd, second.data(), second.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(second.size()));
  std::string reply;
  ReadAll(fd, reply);
  ::close(fd);
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(reply, HasSubstr("Content-Length \\\"abc\\\" is not a decimal number"));
  const nlohmann::json journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0]["method"], "POST");
  EXPECT_EQ(journal[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(journal[0]["request"]["headers"]["content-length"], "abc");
}

TEST(HostileServer, PipelinedRequestsAreAnsweredInOrderAndHeadHasNoBody) {
  auto s = Start();
  const std::string health = "GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string head = "HEAD /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string reply =
      ServerHostileExchange(s->port(), health + head + health, /*half_close=*/true);
  std::vector<std::size_t> starts;
  for (std::size_t at = reply.find("HTTP/1.1 "); at != std::string::npos;
       at = reply.find("HTTP/1.1 ", at + 1))
    starts.push_back(at);
  ASSERT_EQ(starts.size(), 3u) << reply;
  EXPECT_EQ(reply.compare(starts[0], 12, "HTTP/1.1 200"), 0);
  EXPECT_EQ(reply.compare(starts[2], 12, "HTTP/1.1 200"), 0);
  // HEAD: its head only, so the third answer follows its blank line at once.
  const std::size_t head_end = reply.find("\r\n\r\n", starts[1]);
  EXPECT_EQ(head_end + 4, starts[2]);
}

// HTTP/1.0 has no chunked coding (RFC 9112 §7.1): a replayed stream goes to
// an HTTP/1.0 client as plain bytes, sized when it is written at once and
// ended by closing the connection when its pieces are written one by one.
TEST(HostileServer, AStreamGoesToAnHttp10ClientWithoutChunkedCoding) {
  constexpr std::string_view kStreamTrace =
      R"({"format":"llmconform-trace/1","id":"s","origin":"synthesized"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","stream":true,"messages":[]}},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"t_ms":0,"raw":"data: {\"a\":1}\n\n"},{"t_ms":5,"raw":"data: [DONE]\n\n"}]}}
)";
  const std::string body = R"({"model":"m","stream":true,"messages":[]})";
  const std::string stream = "data: {\"a\":1}\n\ndata: [DONE]\n\n";
  const std::string request =
      "POST /v1/chat/completions HTTP/1.0\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  for (const bool piecewise : {false, true}) {
    auto t = ParseTrace(kStreamTrace, "s.jsonl");
    ASSERT_TRUE(t) << t.error().message;
    auto s = Server::Start({*t}, ServerOptions{.piecewise = piecewise});
    ASSERT_TRUE(s) << s.error().message;
    const std::string reply = ServerHostileExchange((*s)->port(), request);
    const std::size_t end = reply.find("\r\n\r\n");
    ASSERT_NE(end, std::string::npos) << reply;
    const std::string head = reply.substr(0, end);
    EXPECT_THAT(head, StartsWith("HTTP/1.1 200")) << piecewise;
    EXPECT_THAT(head, Not(HasSubstr("chunked"))) << piecewise;
    EXPECT_EQ(reply.substr(end + 4), stream) << piecewise;
    if (piecewise) {
      EXPECT_THAT(head, HasSubstr("Connection: close"));
    } else {
      EXPECT_THAT(head, HasSubstr("Content-Length: " + std::to_string(stream.size())));
    }
  }
}

// A HEAD answer has no body to time: it is answered at once and journaled
// complete, even where the body would be written piece by piece.
TEST(HostileServer, AHeadRequestOfATimedReplayIsAnsweredAndJournaledComplete) {
  constexpr std::string_view kHeadTrace =
      R"({"format":"llmconform-trace/1","id":"h","origin":"synthesized"}
{"seq":1,"request":{"method":"HEAD","path":"/v1/models"},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"data":[]}}}
{"seq":2,"request":{"method":"HEAD","path":"/v1/models"},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"data":[]}},"fault":{"cut_after_bytes":5}}
)";
  auto t = ParseTrace(kHeadTrace, "h.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  auto s = Server::Start({*t}, ServerOptions{.piecewise = true});
  ASSERT_TRUE(s) << s.error().message;
  // The second exchange's answer is cut after 5 bytes: its head still
  // announces the whole body, as a GET's would.
  for (int i = 0; i < 2; ++i) {
    const std::string reply = ServerHostileExchange(
        (*s)->port(), "HEAD /t/h/v1/models HTTP/1.1\r\nHost: x\r\n\r\n", true);
    EXPECT_THAT(reply, StartsWith("HTTP/1.1 200")) << i;
    EXPECT_THAT(reply, HasSubstr("Content-Length: 11\r\n")) << i;
    EXPECT_EQ(reply.substr(reply.find("\r\n\r\n") + 4), "") << i;
  }
  const auto journal = (*s)->Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["response"]["outcome"], "complete");
  EXPECT_EQ(journal[1]["response"]["outcome"], "complete");
}

TEST(HostileServer, ExpectContinueIsHonoured) {
  auto s = Start();
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Expect: 100-continue\r\nConnection: close\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  char buf[4096];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_EQ(::send(fd, kBody.data(), kBody.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(kBody.size()));
  std::string reply;
  ReadAll(fd, reply);
  ::close(fd);
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 200"));
}

// Bodies that trickle in are held against one budget for all connections (a
// body announced by Content-Length counts whole at once): past it a request
// is answered 503 at once, and a body handed on gives its share back.
TEST(HostileServer, RequestBodiesShareOneBudgetPastWhichTheAnswerIs503) {
  auto s = Start({.listen = {.max_buffered_body_bytes = 1 << 20}});
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"pad":")" +
                           std::string(600 << 10, 'x') + "\"}";
  auto head = [&](bool expect) {
    return std::string("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n") +
           "Content-Type: application/json\r\n" + (expect ? "Expect: 100-continue\r\n" : "") +
           "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  };
  // The first announces 600 KiB and sends none of it yet: its 100 Continue
  // says the server has taken its head.
  const int first = ConnectLoopback(s->port(), 60);
  ASSERT_GE(first, 0);
  const std::string first_head = head(true);
  ASSERT_EQ(::send(first, first_head.data(), first_head.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(first_head.size()));
  char buf[64];
  const ssize_t n = ::recv(first, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
  // A second that does not fit beside it.
  const std::string second = ServerHostileExchange(s->port(), head(false) + body);
  EXPECT_THAT(second, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(second, HasSubstr("Retry-After: 1\r\n"));
  EXPECT_THAT(second, HasSubstr("\"code\":\"server_busy\""));
  // The first goes on and is answered (its body matches nothing).
  std::size_t sent = 0;
  while (sent < body.size()) {
    const ssize_t k = ::send(first, body.data() + sent, body.size() - sent, MSG_NOSIGNAL);
    ASSERT_GT(k, 0);
    sent += static_cast<std::size_t>(k);
  }
  std::string reply;
  ReadAll(first, reply);
  ::close(first);
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 404"));
  // Its body handed on, the budget is whole again.
  EXPECT_THAT(ServerHostileExchange(s->port(), head(false) + body), StartsWith("HTTP/1.1 404"));
}

}  // namespace
}  // namespace llmconform::mockllm
