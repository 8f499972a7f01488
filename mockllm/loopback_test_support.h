// Raw loopback sockets for mockllm's server tests: nothing a client library
// adds (or hides) between the test and the bytes.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>

namespace llmconform::mockllm {

// A socket connected to the loopback `port` whose reads wait at most
// `read_timeout_s` (0: without bound); -1 when the connection fails.
inline int ConnectLoopback(int port, int read_timeout_s = 5) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return ::close(fd), -1;
  if (read_timeout_s > 0) {
    timeval tv{read_timeout_s, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  return fd;
}

}  // namespace llmconform::mockllm
