#include "mockllm/cli_support.h"

#include <signal.h>

#include <iostream>

namespace llmconform::mockllm {

void Diagnose(std::string_view message) { std::cerr << "mockllm: " << message << std::endl; }

void BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForStopSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

void AnnounceListening(const std::string& url) {
  std::cout << "listening on " << url << std::endl;  // endl flushes: scripts wait for this line
}

}  // namespace llmconform::mockllm
