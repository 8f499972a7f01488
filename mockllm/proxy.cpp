#include "mockllm/proxy.h"

#include <httplib.h>

#include <filesystem>

#include "base/format.h"

namespace llmconform::mockllm {

using llmconform::Format;

std::expected<std::unique_ptr<Proxy>, Error> Proxy::Start(const std::string& upstream,
                                                          const std::string& record_to,
                                                          int upstream_timeout_seconds) {
  std::unique_ptr<Proxy> proxy(new Proxy());
  proxy->upstream_ = upstream;
  std::error_code ec;
  auto recorder =
      Recorder::Start(RecorderOptions{.upstream = upstream,
                                      .out = record_to,
                                      .append = std::filesystem::exists(record_to, ec),
                                      .upstream_timeout_seconds = upstream_timeout_seconds});
  if (!recorder) return std::unexpected(Error{Format("--proxy: {}", recorder.error().message)});
  proxy->recorder_ = std::move(*recorder);
  return proxy;
}

Proxy::~Proxy() { Stop(); }

void Proxy::Stop() {
  if (recorder_) recorder_->Stop();
}

std::expected<ProxiedAnswer, Error> Proxy::Forward(
    const std::string& method, const std::string& target,
    const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
    const std::string& content_type) {
  httplib::Client client("127.0.0.1", recorder_->port());
  client.set_read_timeout(std::chrono::seconds(600));
  httplib::Request req;
  req.method = method;
  req.path = target;
  for (const auto& [name, value] : headers) {
    if (name == "host" || name == "content-length" || name == "connection" ||
        name == "transfer-encoding" || name == "content-type" || name == "accept-encoding") {
      continue;
    }
    req.headers.emplace(name, value);
  }
  if (!body.empty()) {
    req.body = body;
    req.headers.emplace("Content-Type", content_type);
  }
  auto res = client.send(req);
  if (!res) {
    return std::unexpected(Error{Format("--proxy {}: {} {} could not be forwarded ({})", upstream_,
                                        method, target, httplib::to_string(res.error()))});
  }
  ProxiedAnswer out;
  out.status = res->status;
  for (const auto& [name, value] : res->headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "content-type") {
      out.content_type = value;
    } else if (lower != "content-length" && lower != "transfer-encoding" && lower != "connection" &&
               lower != "keep-alive") {
      out.headers.emplace_back(name, value);
    }
  }
  out.body = std::move(res->body);
  return out;
}

}  // namespace llmconform::mockllm
