#include "harness/check/sut_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <thread>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"

namespace llmconform::harness::check {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kStderrTail = 2048;
constexpr std::size_t kMaxLine = 16 * 1024 * 1024;  // an answer line longer than this is garbage
constexpr std::size_t kWriteAhead = 1 << 20;        // bytes queued for the SUT's stdin at most

std::string Excerpt(std::string_view line) {
  constexpr std::size_t kMax = 120;
  std::string out(line.substr(0, kMax));
  if (line.size() > kMax) out += "…";
  return DumpJson(Json(out));
}

}  // namespace

std::string_view SutAnswerKindName(SutAnswer::Kind kind) {
  switch (kind) {
    case SutAnswer::Kind::kOutput:
      return "output";
    case SutAnswer::Kind::kError:
      return "error";
    case SutAnswer::Kind::kGarbage:
      return "garbage";
    case SutAnswer::Kind::kOutOfOrder:
      return "out of order";
    case SutAnswer::Kind::kTimeout:
      return "timeout";
    case SutAnswer::Kind::kCrash:
      return "crash";
  }
  return "?";
}

Sut::Sut(SutOptions options) : options_(std::move(options)) {
  if (options_.window == 0) options_.window = 1;
}

Sut::~Sut() { Stop(false); }

bool Sut::Start() {
  ::signal(SIGPIPE, SIG_IGN);  // a SUT that closes its stdin is seen as EPIPE, then EOF
  auto child =
      ChildProcess::Start({.command = options_.command, .stdin_pipe = true, .stderr_apart = true});
  if (!child) return false;
  child_ = std::move(*child);
  stderr_tail_.clear();
  return true;
}

void Sut::Stop(bool kill_now) {
  if (!child_) return;
  child_->CloseStdin();
  child_->CloseStdout();
  child_->CloseStderr();
  if (!kill_now) {
    // Closing stdin asks it to finish; give it a moment.
    for (int i = 0; i < 100 && !child_->Ended(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Whether it ended or not, its whole group goes (a background job it left too).
  child_->Kill();
  exit_status_ = child_->status();
  child_.reset();
}

std::string Sut::StatusText() {
  std::string s = WIFSIGNALED(exit_status_) ? Format("killed by signal {}", WTERMSIG(exit_status_))
                                            : Format("exit status {}", WEXITSTATUS(exit_status_));
  std::string tail = stderr_tail_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  if (!tail.empty())
    s += "; stderr ends: " + Excerpt(tail.substr(tail.size() > 300 ? tail.size() - 300 : 0));
  return s;
}

namespace {

std::string Dump(const Json& j) { return DumpJson(j); }

}  // namespace

std::expected<std::vector<SutAnswer>, Error> Sut::Exchange(const std::vector<Json>& requests) {
  std::vector<SutAnswer> answers(requests.size());
  auto done = ExchangeBodies(
      requests.size(),
      [&](std::size_t i) {
        const Json& r = requests[i];
        return Format(",\"op\":{},\"input\":{}}}\n", Dump(Json(StringOf(r, "op"))),
                      r.contains("input") ? Dump(r["input"]) : "null");
      },
      [&](std::size_t i, SutAnswer a) { answers[i] = std::move(a); }, Clock::time_point::max());
  if (!done) return std::unexpected(done.error());
  return answers;
}

std::expected<std::size_t, Error> Sut::Exchange(std::string_view op,
                                                const std::vector<Json>& inputs,
                                                const OnAnswer& on_answer,
                                                Clock::time_point deadline) {
  std::string head = ",\"op\":" + Dump(Json(op)) + ",\"input\":";
  return ExchangeBodies(
      inputs.size(),
      [&](std::size_t i) {
        std::string body = head;
        body += Dump(inputs[i]);
        body += "}\n";
        return body;
      },
      on_answer, deadline);
}

std::expected<std::size_t, Error> Sut::ExchangeBodies(
    std::size_t n, const std::function<std::string(std::size_t)>& body, const OnAnswer& on_answer,
    Clock::time_point deadline) {
  struct InFlight {
    std::size_t index;
    std::uint64_t id;
  };
  std::vector<std::string> bodies(n);  // `"op":…,"input":…}` serialized once, until answered
  std::deque<InFlight> inflight;
  std::deque<std::size_t> resend;
  std::size_t next = 0, remaining = n;
  std::string wbuf, rbuf;
  std::size_t woff = 0;
  int failed_starts = 0;
  bool answered = false;  // since the current process started
  Clock::time_point front_since = Clock::now();

  std::size_t answered_cases = 0;
  auto deliver = [&](std::size_t index, SutAnswer a) {
    std::string().swap(bodies[index]);
    --remaining;
    ++answered_cases;
    on_answer(index, std::move(a));
  };
  auto resolve_front = [&](SutAnswer a) {
    const std::size_t index = inflight.front().index;
    inflight.pop_front();
    front_since = Clock::now();
    deliver(index, std::move(a));
  };
  // The process is gone or hopeless: requeue what was in flight.
  auto restart = [&](bool kill_now) {
    Stop(kill_now);
    ++restarts_;
    for (auto it = inflight.rbegin(); it != inflight.rend(); ++it) resend.push_front(it->index);
    inflight.clear();
    wbuf.clear(), rbuf.clear();
    woff = 0;
  };
  auto crashed = [&]() -> std::expected<void, Error> {
    Stop(false);
    const std::string status = StatusText();
    if (!inflight.empty()) {
      resolve_front({SutAnswer::Kind::kCrash, nullptr,
                     Format("the SUT exited before answering ({})", status)});
    }
    failed_starts = answered ? 0 : failed_starts + 1;
    if (!ever_answered_ && failed_starts >= options_.max_failed_starts) {
      return std::unexpected(Error{Format("the SUT exited {} times in a row without answering ({})",
                                          failed_starts, status)});
    }
    restart(false);
    return {};
  };
  auto handle_line = [&](std::string_view line) {
    if (line.empty() || line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    Json doc = ReadJsonOrDiscarded(line);
    const Json* id = nullptr;
    if (!doc.is_discarded() && doc.is_object()) {
      auto it = doc.find("id");
      if (it != doc.end() && it->is_number_unsigned()) id = &*it;
    }
    if (inflight.empty()) return;  // nothing asked: stray output is ignored
    if (!id) {
      resolve_front({SutAnswer::Kind::kGarbage, nullptr,
                     Format("a line that is not an answer {{\"id\", \"output\"|\"error\"}}: {}",
                            Excerpt(line))});
      return;
    }
    const std::uint64_t got = id->get<std::uint64_t>();
    if (got < inflight.front().id) return;  // a late answer to a case already judged
    auto at = std::find_if(inflight.begin(), inflight.end(),
                           [&](const InFlight& f) { return f.id == got; });
    if (at == inflight.end()) {
      resolve_front({SutAnswer::Kind::kGarbage, nullptr,
                     Format("an answer with id {}, which was never sent: {}", got, Excerpt(line))});
      return;
    }
    SutAnswer a;
    if (auto out = doc.find("output"); out != doc.end()) {
      a = {SutAnswer::Kind::kOutput, std::move(*out), ""};
    } else if (auto err = doc.find("error"); err != doc.end()) {
      a = {SutAnswer::Kind::kError, std::move(*err), ""};
    } else {
      a = {SutAnswer::Kind::kGarbage, nullptr,
           Format("an answer with neither \"output\" nor \"error\": {}", Excerpt(line))};
    }
    answered = ever_answered_ = true;
    if (at == inflight.begin()) {
      resolve_front(std::move(a));
      return;
    }
    const std::size_t index = at->index;
    const std::uint64_t front_id = inflight.front().id;
    inflight.erase(at);
    deliver(index, {SutAnswer::Kind::kOutOfOrder, nullptr,
                    Format("answered before the case sent ahead of it (id {})", front_id)});
  };

  char buf[1 << 16];
  while (remaining > 0) {
    if (Clock::now() >= deadline) {
      // Out of time: what is in flight is dropped with the process, so that
      // no half-read answer reaches the next exchange.
      if (!inflight.empty() || !rbuf.empty() || woff < wbuf.size()) Stop(true);
      break;
    }
    if (!child_) {
      if (!Start())
        return std::unexpected(Error{Format("cannot start /bin/sh: {}", std::strerror(errno))});
      answered = false;
      front_since = Clock::now();
    }
    while (inflight.size() < options_.window && (!resend.empty() || next < n) &&
           wbuf.size() - woff < kWriteAhead) {
      std::size_t index;
      if (!resend.empty()) {
        index = resend.front();
        resend.pop_front();
      } else {
        index = next++;
      }
      if (bodies[index].empty()) bodies[index] = body(index);
      const std::uint64_t id = next_id_++;
      wbuf += "{\"id\":";
      wbuf += std::to_string(id);
      wbuf += bodies[index];
      if (inflight.empty()) front_since = Clock::now();
      inflight.push_back({index, id});
    }
    const int in_fd = child_->stdin_fd(), out_fd = child_->stdout_fd(),
              err_fd = child_->stderr_fd();
    pollfd fds[3] = {{in_fd, static_cast<short>(woff < wbuf.size() ? POLLOUT : 0), 0},
                     {out_fd, POLLIN, 0},
                     {err_fd, POLLIN, 0}};
    int wait_ms = -1;
    auto until = deadline;
    if (!inflight.empty()) until = std::min(until, front_since + options_.case_timeout);
    if (until != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      wait_ms = static_cast<int>(std::clamp<long long>(left.count() + 1, 0, 3600 * 1000));
    }
    const int ready = ::poll(fds, err_fd >= 0 ? 3 : 2, wait_ms);
    if (ready < 0 && errno != EINTR)
      return std::unexpected(Error{Format("poll: {}", std::strerror(errno))});
    if (!inflight.empty() && Clock::now() >= front_since + options_.case_timeout) {
      resolve_front({SutAnswer::Kind::kTimeout, nullptr,
                     Format("no answer within {} ms; the SUT was killed and restarted",
                            options_.case_timeout.count())});
      // A SUT that never answers (it does not read stdin, or waits for
      // something else) is given up like one that exits: each of its cases
      // would otherwise wait out the timeout in turn.
      failed_starts = answered ? 0 : failed_starts + 1;
      if (!ever_answered_ && failed_starts >= options_.max_failed_starts) {
        Stop(true);
        return std::unexpected(
            Error{Format("the SUT gave no answer within {} ms, {} times in a row after it started, "
                         "and never answered (does it answer one JSON line per request line on "
                         "stdout?)",
                         options_.case_timeout.count(), failed_starts)});
      }
      restart(true);
      continue;
    }
    if (ready <= 0) continue;
    if (fds[2].revents & (POLLIN | POLLHUP)) {
      const ssize_t got = ::read(err_fd, buf, sizeof buf);
      if (got > 0) {
        stderr_tail_.append(buf, static_cast<std::size_t>(got));
        if (stderr_tail_.size() > kStderrTail)
          stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
      } else if (got == 0) {
        child_->CloseStderr();
      }
    }
    if (fds[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t put = ::write(in_fd, wbuf.data() + woff, wbuf.size() - woff);
      if (put > 0) {
        woff += static_cast<std::size_t>(put);
        if (woff == wbuf.size()) wbuf.clear(), woff = 0;
      } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
        if (auto ok = crashed(); !ok) return std::unexpected(ok.error());
        continue;
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(out_fd, buf, sizeof buf);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        if (auto ok = crashed(); !ok) return std::unexpected(ok.error());
        continue;
      }
      if (got > 0) {
        std::size_t from = rbuf.size();
        rbuf.append(buf, static_cast<std::size_t>(got));
        std::size_t start = 0, nl;
        while ((nl = rbuf.find('\n', std::max(start, from))) != std::string::npos) {
          handle_line(std::string_view(rbuf).substr(start, nl - start));
          start = nl + 1;
          from = start;
        }
        rbuf.erase(0, start);
        if (rbuf.size() > kMaxLine) {
          if (!inflight.empty())
            resolve_front({SutAnswer::Kind::kGarbage, nullptr,
                           Format("an answer line longer than {} bytes", kMaxLine)});
          restart(true);
        }
      }
    }
  }
  return answered_cases;
}

}  // namespace llmconform::harness::check
