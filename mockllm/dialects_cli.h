// `mockllm dialects`: the replay dialects built into mockllm
// (mockllm/dialect_rewrite.h), registered in the command table of
// mockllm/cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace llmconform::mockllm {

struct DialectsArgs {
  bool json = false;
  std::string surface;  // "" = every surface; else only that surface's dialects
};
void AddDialects(CLI::App& cmd, DialectsArgs& a);
// Prints the dialects; 0.
int RunDialects(const DialectsArgs& a);

}  // namespace llmconform::mockllm
