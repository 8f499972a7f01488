// The `mockllm` command line: subcommands serve, lint, record, import and export (see
// --help of each). Exit codes: base/exit_code.h.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/exit_code.h"
#include "mockllm/trace_files.h"

namespace llmconform::mockllm {

int RunCli(int argc, char** argv);

}  // namespace llmconform::mockllm
