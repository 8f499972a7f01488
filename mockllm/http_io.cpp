#include "mockllm/http_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/beast/http/status.hpp>
#include <cctype>
#include <cerrno>
#include <system_error>

#include "mockllm/trace.h"

namespace llmconform::mockllm::http_io {

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool WaitFd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    timespec ts{static_cast<time_t>(left.count() / 1000000),
                static_cast<long>((left.count() % 1000000) * 1000)};
    const int r = ::ppoll(&p, 1, &ts, nullptr);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;
  }
}

bool SendAll(int fd, iovec* iov, int n, std::chrono::milliseconds stall) {
  Clock::time_point deadline = Clock::now() + stall;
  while (n > 0) {
    if (iov->iov_len == 0) {
      ++iov, --n;
      continue;
    }
    msghdr mh{};
    mh.msg_iov = iov;
    mh.msg_iovlen = static_cast<std::size_t>(n);
    const ssize_t w = ::sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (!WaitFd(fd, POLLOUT, deadline)) return false;
        continue;
      }
      return false;
    }
    if (w > 0) deadline = Clock::now() + stall;  // progress: the wait starts again
    auto left = static_cast<std::size_t>(w);
    while (n > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov, --n;
    }
    if (n > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

bool ConnectionFailed(int fd) {
  // POLLHUP: both directions are shut, which a peer's FIN alone does not do
  // (a reset, or the connection closed); POLLERR: a pending error.
  pollfd p{fd, 0, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0;
}

HttpRequest RawHead(std::string_view head) {
  HttpRequest req;
  const std::size_t end = head.find("\r\n\r\n");
  if (end != std::string_view::npos) head = head.substr(0, end);
  std::size_t at = head.find("\r\n");
  const std::string_view line = head.substr(0, at);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 != std::string_view::npos && sp1 > 0 && sp1 <= 32) {
    req.method = std::string(line.substr(0, sp1));
    req.target = std::string(line.substr(sp1 + 1, std::min<std::size_t>(sp2 - sp1 - 1, 8192)));
    req.path = req.target.substr(0, req.target.find('?'));
  }
  while (at != std::string_view::npos) {
    at += 2;
    const std::size_t next = head.find("\r\n", at);
    const std::string_view field =
        head.substr(at, next == std::string_view::npos ? next : next - at);
    const std::size_t colon = field.find(':');
    if (colon != std::string_view::npos) {
      std::string_view value = field.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      req.headers.emplace(std::string(field.substr(0, colon)), std::string(value));
    }
    at = next;
  }
  return req;
}

bool SafeHeader(std::string_view name, std::string_view value) {
  return !ResponseHeaderProblem(name, value);
}

std::string_view Reason(int status) {
  namespace http = boost::beast::http;
  const auto r = http::obsolete_reason(static_cast<http::status>(status));
  return r == "<unknown-status>" ? std::string_view("Unknown")
                                 : std::string_view(r.data(), r.size());
}

WorkerPool::WorkerPool(std::size_t min, std::size_t max, std::chrono::milliseconds idle_timeout)
    : min_(min), max_(std::max<std::size_t>({min, max, 1})), idle_timeout_(idle_timeout) {
  std::lock_guard lock(mu_);
  for (std::size_t i = 0; i < min; ++i) Spawn();
}

void WorkerPool::Submit(std::function<void()> fn) {
  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    fn = nullptr;
    return;
  }
  JoinEnded();
  jobs_.push_back(std::move(fn));
  if (idle_ < jobs_.size() && threads_.size() < max_) Spawn();
  cv_.notify_one();
}

void WorkerPool::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  // No worker is added or removed from now on (ended ones stay until joined).
  for (auto& [id, t] : threads_) t.join();
}

std::size_t WorkerPool::Workers() {
  std::lock_guard lock(mu_);
  return threads_.size() - ended_.size();
}

void WorkerPool::JoinEnded() {
  // An ended worker has left the lock for good: joining it here cannot wait on us.
  for (const std::uint64_t id : ended_) {
    auto it = threads_.find(id);
    it->second.join();
    threads_.erase(it);
  }
  ended_.clear();
}

void WorkerPool::Spawn() {
  // Out of threads (a pid or memory limit): the job waits for a worker that
  // exists, as jobs beyond `max` do.
  if (!threads_.empty()) {
    try {
      SpawnOrThrow();
    } catch (const std::system_error&) {
    }
    return;
  }
  SpawnOrThrow();  // the first worker: without it nothing would ever run
}

void WorkerPool::SpawnOrThrow() {
  const std::uint64_t id = next_id_++;
  std::thread t([this, id] {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mu_);
        ++idle_;
        const bool woken =
            cv_.wait_for(lock, idle_timeout_, [this] { return stopping_ || !jobs_.empty(); });
        --idle_;
        if (!woken && threads_.size() - ended_.size() > min_) {
          ended_.push_back(id);  // idle too long, and more than `min` remain
          return;
        }
        if (!woken) {
          JoinEnded();  // the workers that ended meanwhile give their stacks back
          continue;
        }
        if (jobs_.empty()) return;  // stopping, nothing left
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
  });
  threads_.emplace(id, std::move(t));
}

}  // namespace llmconform::mockllm::http_io
