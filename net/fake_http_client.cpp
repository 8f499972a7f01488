#include "net/fake_http_client.h"

#include "base/format.h"
#include "base/url.h"

namespace llmconform::net {
namespace {

// The words the real client uses for each failure.
std::string What(HttpFailure failure, std::chrono::milliseconds limit) {
  switch (failure) {
    case HttpFailure::kBadUrl:
      return "not an http(s) URL";
    case HttpFailure::kUnreachable:
      return "Connection";
    case HttpFailure::kTimeout:
      return Format("timed out after {} ms", limit.count());
    case HttpFailure::kCancelled:
      return "cancelled by the client";
    case HttpFailure::kBroken:
      return "Read";
  }
  return "Unknown";
}

}  // namespace

FakeHttpClient::Reply FakeHttpClient::Respond(int status, std::string content_type,
                                              std::vector<std::string> chunks) {
  Reply r;
  r.status = status;
  r.headers["content-type"] = std::move(content_type);
  r.chunks = std::move(chunks);
  return r;
}

FakeHttpClient::Reply FakeHttpClient::Fail(HttpFailure failure) {
  Reply r;
  r.fail_at_once = failure;
  return r;
}

void FakeHttpClient::Push(Reply reply) {
  std::lock_guard lock(mu_);
  replies_.push_back(std::move(reply));
}

std::vector<HttpRequest> FakeHttpClient::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

std::vector<HttpTimeouts> FakeHttpClient::timeouts() const {
  std::lock_guard lock(mu_);
  return timeouts_;
}

std::expected<HttpResponse, HttpError> FakeHttpClient::Send(const HttpRequest& request,
                                                            const HttpTimeouts& timeouts,
                                                            const HttpHandlers& handlers) {
  auto fail = [&](HttpFailure f, std::chrono::milliseconds limit) {
    return std::unexpected(MakeHttpError(request, f, What(f, limit)));
  };
  const bool http = SplitHttpUrl(request.url).has_value();
  std::optional<Reply> next;
  {
    std::lock_guard lock(mu_);
    requests_.push_back(request);
    timeouts_.push_back(timeouts);
    if (http && !replies_.empty()) {
      next = std::move(replies_.front());
      replies_.pop_front();
    }
  }
  if (!http) return fail(HttpFailure::kBadUrl, timeouts.total);
  if (!next) {
    return std::unexpected(
        MakeHttpError(request, HttpFailure::kUnreachable, "no reply scripted (FakeHttpClient)"));
  }
  const Reply& reply = *next;
  if (reply.fail_at_once) return fail(*reply.fail_at_once, timeouts.connect);

  HttpResponse out;
  out.status = reply.status;
  out.headers = reply.headers;
  out.fields.assign(reply.headers.begin(), reply.headers.end());
  if (handlers.stop.stop_requested()) return fail(HttpFailure::kCancelled, timeouts.total);
  if (handlers.on_head && !handlers.on_head(out))
    return fail(HttpFailure::kCancelled, timeouts.total);
  const std::size_t n = reply.chunks.size();
  for (std::size_t i = 0; i < n || (reply.endless && n > 0); ++i) {
    if (reply.before_chunk) reply.before_chunk(i);
    if (handlers.stop.stop_requested()) return fail(HttpFailure::kCancelled, timeouts.total);
    const std::string& chunk = reply.chunks[i % n];
    if (!handlers.on_body) {
      out.body += chunk;
    } else if (!handlers.on_body(chunk)) {
      return fail(HttpFailure::kCancelled, timeouts.total);
    }
  }
  if (reply.fail_after_chunks) return fail(*reply.fail_after_chunks, timeouts.total);
  return out;
}

}  // namespace llmconform::net
