#include "harness/difftest/sut_process.h"

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

namespace llmconform::harness::difftest {
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

class Sut::Round {
 public:
  Round(Sut& sut, std::size_t n, const std::function<std::string(std::size_t)>& body,
        const OnAnswer& on_answer, Clock::time_point deadline)
      : sut_(sut),
        n_(n),
        body_(body),
        on_answer_(on_answer),
        deadline_(deadline),
        bodies_(n),
        remaining_(n) {}

  std::expected<std::size_t, Error> Run() {
    while (remaining_ > 0) {
      if (Clock::now() >= deadline_) {
        // Out of time: what is in flight is dropped with the process, so that
        // no half-read answer reaches the next exchange.
        if (!inflight_.empty() || !rbuf_.empty() || woff_ < wbuf_.size()) sut_.Stop(true);
        break;
      }
      if (!sut_.child_) {
        if (!sut_.Start())
          return std::unexpected(
              Error::Io(Format("cannot start /bin/sh: {}", std::strerror(errno))));
        answered_ = false;
        front_since_ = Clock::now();
      }
      Fill();
      auto turn = PollOnce();
      if (!turn) return std::unexpected(turn.error());
    }
    return answered_cases_;
  }

 private:
  struct InFlight {
    std::size_t index;
    std::uint64_t id;
  };

  // Queues requests up to the window and the write-ahead limit.
  void Fill() {
    while (inflight_.size() < sut_.options_.window && (!resend_.empty() || next_ < n_) &&
           wbuf_.size() - woff_ < kWriteAhead) {
      std::size_t index;
      if (!resend_.empty()) {
        index = resend_.front();
        resend_.pop_front();
      } else {
        index = next_++;
      }
      if (bodies_[index].empty()) bodies_[index] = body_(index);
      const std::uint64_t id = sut_.next_id_++;
      wbuf_ += "{\"id\":";
      wbuf_ += std::to_string(id);
      wbuf_ += bodies_[index];
      if (inflight_.empty()) front_since_ = Clock::now();
      inflight_.push_back({index, id});
    }
  }

  // One poll of the SUT's pipes and what it brought.
  std::expected<void, Error> PollOnce() {
    ChildProcess& child = *sut_.child_;
    const int in_fd = child.stdin_fd(), out_fd = child.stdout_fd(), err_fd = child.stderr_fd();
    pollfd fds[3] = {{in_fd, static_cast<short>(woff_ < wbuf_.size() ? POLLOUT : 0), 0},
                     {out_fd, POLLIN, 0},
                     {err_fd, POLLIN, 0}};
    const int ready = ::poll(fds, err_fd >= 0 ? 3 : 2, WaitMs());
    if (ready < 0 && errno != EINTR)
      return std::unexpected(Error{Format("poll: {}", std::strerror(errno))});
    if (!inflight_.empty() && Clock::now() >= front_since_ + sut_.options_.case_timeout)
      return TimedOut();
    if (ready <= 0) return {};
    if (fds[2].revents & (POLLIN | POLLHUP)) ReadStderr(err_fd);
    if (fds[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t put = ::write(in_fd, wbuf_.data() + woff_, wbuf_.size() - woff_);
      if (put > 0) {
        woff_ += static_cast<std::size_t>(put);
        if (woff_ == wbuf_.size()) wbuf_.clear(), woff_ = 0;
      } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
        return Crashed();
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) return ReadAnswers(out_fd);
    return {};
  }

  // Until the front case times out or the deadline comes; -1 for no limit.
  int WaitMs() const {
    auto until = deadline_;
    if (!inflight_.empty()) until = std::min(until, front_since_ + sut_.options_.case_timeout);
    if (until == Clock::time_point::max()) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    return static_cast<int>(std::clamp<long long>(left.count() + 1, 0, 3600 * 1000));
  }

  std::expected<void, Error> TimedOut() {
    ResolveFront({SutAnswer::Kind::kTimeout, nullptr,
                  Format("no answer within {} ms; the SUT was killed and restarted",
                         sut_.options_.case_timeout.count())});
    // A SUT that never answers (it does not read stdin, or waits for
    // something else) is given up like one that exits: each of its cases
    // would otherwise wait out the timeout in turn.
    failed_starts_ = answered_ ? 0 : failed_starts_ + 1;
    if (!sut_.ever_answered_ && failed_starts_ >= sut_.options_.max_failed_starts) {
      sut_.Stop(true);
      return std::unexpected(
          Error{Format("the SUT gave no answer within {} ms, {} times in a row after it started, "
                       "and never answered (does it answer one JSON line per request line on "
                       "stdout?)",
                       sut_.options_.case_timeout.count(), failed_starts_)});
    }
    Restart(true);
    return {};
  }

  void ReadStderr(int err_fd) {
    const ssize_t got = ::read(err_fd, buf_, sizeof buf_);
    if (got > 0) {
      sut_.stderr_tail_.append(buf_, static_cast<std::size_t>(got));
      if (sut_.stderr_tail_.size() > kStderrTail)
        sut_.stderr_tail_.erase(0, sut_.stderr_tail_.size() - kStderrTail);
    } else if (got == 0) {
      sut_.child_->CloseStderr();
    }
  }

  std::expected<void, Error> ReadAnswers(int out_fd) {
    const ssize_t got = ::read(out_fd, buf_, sizeof buf_);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return Crashed();
    if (got < 0) return {};
    std::size_t from = rbuf_.size();
    rbuf_.append(buf_, static_cast<std::size_t>(got));
    std::size_t start = 0, nl;
    while ((nl = rbuf_.find('\n', std::max(start, from))) != std::string::npos) {
      HandleLine(std::string_view(rbuf_).substr(start, nl - start));
      start = nl + 1;
      from = start;
    }
    rbuf_.erase(0, start);
    if (rbuf_.size() > kMaxLine) {
      if (!inflight_.empty())
        ResolveFront({SutAnswer::Kind::kGarbage, nullptr,
                      Format("an answer line longer than {} bytes", kMaxLine)});
      Restart(true);
    }
    return {};
  }

  void Deliver(std::size_t index, SutAnswer a) {
    std::string().swap(bodies_[index]);
    --remaining_;
    ++answered_cases_;
    on_answer_(index, std::move(a));
  }

  void ResolveFront(SutAnswer a) {
    const std::size_t index = inflight_.front().index;
    inflight_.pop_front();
    front_since_ = Clock::now();
    Deliver(index, std::move(a));
  }

  // The process is gone or hopeless: requeue what was in flight.
  void Restart(bool kill_now) {
    sut_.Stop(kill_now);
    ++sut_.restarts_;
    for (auto it = inflight_.rbegin(); it != inflight_.rend(); ++it) resend_.push_front(it->index);
    inflight_.clear();
    wbuf_.clear(), rbuf_.clear();
    woff_ = 0;
  }

  std::expected<void, Error> Crashed() {
    sut_.Stop(false);
    const std::string status = sut_.StatusText();
    if (!inflight_.empty()) {
      ResolveFront({SutAnswer::Kind::kCrash, nullptr,
                    Format("the SUT exited before answering ({})", status)});
    }
    failed_starts_ = answered_ ? 0 : failed_starts_ + 1;
    if (!sut_.ever_answered_ && failed_starts_ >= sut_.options_.max_failed_starts) {
      return std::unexpected(Error{Format("the SUT exited {} times in a row without answering ({})",
                                          failed_starts_, status)});
    }
    Restart(false);
    return {};
  }

  void HandleLine(std::string_view line) {
    if (line.empty() || line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    Json doc = ReadJsonOrDiscarded(line);
    const Json* id = nullptr;
    if (!doc.is_discarded() && doc.is_object()) {
      auto it = doc.find("id");
      if (it != doc.end() && it->is_number_unsigned()) id = &*it;
    }
    if (inflight_.empty()) return;  // nothing asked: stray output is ignored
    if (!id) {
      ResolveFront({SutAnswer::Kind::kGarbage, nullptr,
                    Format("a line that is not an answer {{\"id\", \"output\"|\"error\"}}: {}",
                           Excerpt(line))});
      return;
    }
    const std::uint64_t got = id->get<std::uint64_t>();
    if (got < inflight_.front().id) return;  // a late answer to a case already judged
    auto at = std::find_if(inflight_.begin(), inflight_.end(),
                           [&](const InFlight& f) { return f.id == got; });
    if (at == inflight_.end()) {
      ResolveFront({SutAnswer::Kind::kGarbage, nullptr,
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
    answered_ = sut_.ever_answered_ = true;
    if (at == inflight_.begin()) {
      ResolveFront(std::move(a));
      return;
    }
    const std::size_t index = at->index;
    const std::uint64_t front_id = inflight_.front().id;
    inflight_.erase(at);
    Deliver(index, {SutAnswer::Kind::kOutOfOrder, nullptr,
                    Format("answered before the case sent ahead of it (id {})", front_id)});
  }

  Sut& sut_;
  const std::size_t n_;
  const std::function<std::string(std::size_t)>& body_;
  const OnAnswer& on_answer_;
  const Clock::time_point deadline_;
  std::vector<std::string> bodies_;  // `"op":…,"input":…}` serialized once, until answered
  std::deque<InFlight> inflight_;
  std::deque<std::size_t> resend_;
  std::size_t next_ = 0, remaining_;
  std::string wbuf_, rbuf_;
  std::size_t woff_ = 0;
  int failed_starts_ = 0;
  bool answered_ = false;  // since the current process started
  Clock::time_point front_since_ = Clock::now();
  std::size_t answered_cases_ = 0;
  char buf_[1 << 16];
};

std::expected<std::size_t, Error> Sut::ExchangeBodies(
    std::size_t n, const std::function<std::string(std::size_t)>& body, const OnAnswer& on_answer,
    Clock::time_point deadline) {
  return Round(*this, n, body, on_answer, deadline).Run();
}

}  // namespace llmconform::harness::difftest
