#include "mockllm/proxy.h"

#include <chrono>
#include <filesystem>

#include "base/format.h"

namespace llmconform::mockllm {

using llmconform::Format;
using Clock = std::chrono::steady_clock;

std::expected<std::unique_ptr<Proxy>, Error> Proxy::Start(RecordingOptions options,
                                                          std::shared_ptr<net::HttpClient> client) {
  std::unique_ptr<Proxy> proxy(new Proxy());
  std::error_code ec;
  options.append = std::filesystem::exists(options.out, ec);
  auto recording = Recording::Open(std::move(options), std::move(client));
  if (!recording) return std::unexpected(Error{Format("--proxy: {}", recording.error().message)});
  proxy->recording_ = std::move(*recording);
  return proxy;
}

Proxy::~Proxy() { Stop(); }

void Proxy::Stop() { stop_.request_stop(); }

std::expected<ProxiedAnswer, Error> Proxy::Forward(const ForwardRequest& request) {
  UpstreamAnswer answer;
  const Clock::time_point t0 = Clock::now();
  const std::size_t max_chunks = recording_->options().max_chunks;
  const net::HttpHandlers handlers{
      .on_head = [&](const net::HttpResponse& head) { return answer.TakeHead(head); },
      .on_body =
          [&](std::string_view bytes) {
            const auto t_ms =
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
            return answer.TakeRead(bytes, t_ms, max_chunks);
          },
      .stop = stop_.get_token()};
  auto res = recording_->Send(recording_->UpstreamRequest(request), handlers);
  const bool head_taken = answer.status != 0;
  const bool streamed = head_taken && answer.Streamed();
  // A stream that broke off is evidence too (its cut is recorded); an answer
  // the proxy gave up on when stopped is not.
  if (res || (streamed && !stop_.stop_requested()))
    recording_->Record(request, answer, streamed, res.has_value());
  if (!res) {
    const std::string why = answer.error.empty() ? res.error().what : answer.error;
    return std::unexpected(Error{Format("--proxy {}: {} {} could not be forwarded ({})", upstream(),
                                        request.method, request.target, why)});
  }
  ProxiedAnswer out;
  out.status = answer.status;
  out.content_type = answer.ContentType();
  for (const auto& [name, value] : answer.headers) {
    const std::string lower = Lower(name);
    if (lower != "content-type" && !HopByHop(lower)) out.headers.emplace_back(name, value);
  }
  out.body = answer.Body();
  return out;
}

}  // namespace llmconform::mockllm
