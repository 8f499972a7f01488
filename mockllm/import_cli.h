// `mockllm import` and `mockllm export` (mockllm/import.h), registered in
// the command table of mockllm/cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace llmconform::mockllm {

struct ImportArgs {
  std::vector<std::string> files;
  std::string out;
  std::string provider;
  bool only_chat = false;  // --only-chat
  bool all_paths = false;  // --all-paths
};
void AddImport(CLI::App& cmd, ImportArgs& a);
// 0: every file imported; 2: a file could not be read or parsed, or held
// nothing to import (nothing is written for it); 3: writing failed.
int RunImport(const ImportArgs& a);

struct ExportArgs {
  std::vector<std::string> traces;
  std::string out;
  bool har = false;
};
void AddExport(CLI::App& cmd, ExportArgs& a);
int RunExport(const ExportArgs& a);

}  // namespace llmconform::mockllm
