// What mockllm's subcommands share: how they report a problem and how a
// long-running one (serve, record) waits for SIGINT or SIGTERM.
#pragma once

#include <string>
#include <string_view>

namespace llmconform::mockllm {

// Writes "mockllm: MESSAGE" and a newline to stderr.
void Diagnose(std::string_view message);

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread
// started after it); call before starting a server's threads, so that
// WaitForStopSignal takes them synchronously.
void BlockStopSignals();
// Waits for SIGINT or SIGTERM (blocked by BlockStopSignals) and returns it.
int WaitForStopSignal();

// Prints "listening on URL" on stdout, flushed: scripts wait for this line.
void AnnounceListening(const std::string& url);

}  // namespace llmconform::mockllm
