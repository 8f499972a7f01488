// `mockllm record`: records a trace through a proxy to a real endpoint (mockllm/recorder.h),
// registered in the command table of mockllm/cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace llmconform::mockllm {

struct RecordArgs {
  std::string upstream;
  std::string out;
  std::string host = "127.0.0.1";
  int port = 0;
  std::vector<std::string> redact_headers;
  std::vector<std::string> redact_json;
  std::string id;
  std::string provider;
  std::string model;
  std::string notes;
  int upstream_timeout = 600;
  std::string upstream_ca;
  bool append = false;
  std::size_t max_body = 16 * 1024 * 1024;
};
void AddRecord(CLI::App& cmd, RecordArgs& a);
// 0 after a stop signal; 2 when the recorder cannot start.
int RunRecord(const RecordArgs& a);

}  // namespace llmconform::mockllm
