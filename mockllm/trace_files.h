// Finding trace files on the command line (mockllm lint, export;
// llmconform dialect).
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "mockllm/trace.h"

namespace llmconform::mockllm {

// The files given, and every *.trace.jsonl below each directory given, sorted.
// Error: a path that does not exist, a directory without traces.
std::expected<std::vector<std::filesystem::path>, Error> TraceFiles(
    const std::vector<std::string>& paths);

}  // namespace llmconform::mockllm
