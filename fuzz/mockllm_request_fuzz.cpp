// mockllm's request handling, in process: one server (a bundled trace loaded)
// for the whole session on a loopback port; each input is sent as raw bytes
// of an HTTP request on a fresh connection and the answer read until the
// server closes it or 2 s pass. A crash, hang or sanitizer report in the
// server is a finding; what it answers is not checked here.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "fuzz/fuzz_input.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"

namespace {

llmconform::mockllm::Server* StartOnce() {
  static std::unique_ptr<llmconform::mockllm::Server> server = [] {
    auto trace = llmconform::mockllm::LoadTraceFile(
        LLMCONFORM_SOURCE_ROOT "/fixtures/synthesized/multiturn-s1-standard-assembly.trace.jsonl");
    if (!trace) std::abort();
    std::vector<llmconform::mockllm::Trace> traces;
    traces.push_back(std::move(*trace));
    llmconform::mockllm::ServerOptions options;
    options.listen.max_body_bytes = 1 << 20;
    auto started = llmconform::mockllm::Server::Start(std::move(traces), options);
    if (!started) std::abort();
    return std::move(*started);
  }();
  return server.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  llmconform::mockllm::Server* server = StartOnce();
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(server->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::size_t sent = 0;
    while (sent < size) {
      const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    char buf[4096];
    for (int waited = 0; waited < 2000;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) {
        waited += 100;
        continue;
      }
      if (::recv(fd, buf, sizeof buf, 0) <= 0) break;
    }
  }
  ::close(fd);
  return 0;
}
