// The `mockllm` command line: subcommands serve, lint, record, import and export (see
// --help of each). Exit codes: 0 success, 1 lint found problems, 2 usage,
// configuration or input error, 3 mockllm itself failed.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "mockllm/trace_files.h"

namespace llmconform::mockllm {

int RunCli(int argc, char** argv);

inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

}  // namespace llmconform::mockllm
