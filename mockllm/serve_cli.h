// `mockllm serve`: replays traces as a server (mockllm/server.h), registered in the command table
// of mockllm/cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mockllm/journal.h"

namespace llmconform::mockllm {

struct ServeArgs {
  std::vector<std::string> traces;
  std::string dialect;
  std::string host = "127.0.0.1";
  int port = 0;
  double speed = 1;
  bool piecewise = false;
  std::string match;  // "": strict on pinned routes, sdk on unpinned ones
  std::string session_by = "header";
  std::string cors;
  std::vector<std::string> allow_hosts;
  std::string proxy;
  std::string record_to;
  int upstream_timeout = 600;
  bool fail_on_unused = false;
  bool fail_on_mismatch = false;
  std::string journal;
  std::uint64_t seed = 0;
  std::vector<std::string> ignore;
  std::vector<std::string> faults;
  std::size_t max_body = 16 * 1024 * 1024;
  std::size_t journal_limit = 10000;
  std::size_t journal_max_bytes = kDefaultJournalBytes;
  bool journal_whole_bodies = false;
  std::size_t max_sessions = 10000;
  int threads = 32;
  int max_connections = 4096;
  int read_timeout_ms = 2000;
  int write_timeout_ms = 10000;
  bool metrics = false;
  bool no_metrics = false;
};
void AddServe(CLI::App& cmd, ServeArgs& a);
// 0 after a stop signal; 1 when --fail-on-unused or --fail-on-mismatch found
// what they name; 2 on bad traces or options; 3 when the journal cannot be written.
int RunServe(const ServeArgs& a);

}  // namespace llmconform::mockllm
