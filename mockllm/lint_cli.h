// `mockllm lint`: checks traces for format errors, secrets and contract warnings (mockllm/lint.h),
// registered in the command table of mockllm/cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace llmconform::mockllm {

struct LintArgs {
  std::vector<std::string> traces;
};
void AddLint(CLI::App& cmd, LintArgs& a);
// 0 when clean, 1 when only secrets were found, 2 on a format error or an
// unreadable file.
int RunLint(const LintArgs& a);

}  // namespace llmconform::mockllm
