// Running a program as a test would from a shell: arguments, stdin text,
// captured stdout and stderr, exit code, and a time limit.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace llmconform::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal or the time limit
  std::string out;
  std::string err;
};

// Runs `argv[0]` (a path) with `argv`, feeding `input` on stdin, in `cwd`
// ("" for the current folder), with extra environment `env` ("NAME=value").
// The process is killed after `limit`.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input = "",
                         const std::string& cwd = "", const std::vector<std::string>& env = {},
                         std::chrono::seconds limit = std::chrono::seconds(120));

// The whole file as bytes; "" when it cannot be read.
std::string ReadWholeFile(const std::filesystem::path& path);

}  // namespace llmconform::testing
