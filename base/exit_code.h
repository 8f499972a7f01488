// The exit codes of both programs (llmconform and mockllm), one map for all
// of them (README, "Exit codes"; docs/architecture.md).
#pragma once

#include "base/error.h"

namespace llmconform {

// All good: everything conforms, or a tool without a verdict succeeded.
inline constexpr int kExitOk = 0;
// The input was read and breaks a rule: a conformance failure, a
// disagreement, a secret lint found, a --fail-on-* gate tripped.
inline constexpr int kExitFail = 1;
// A usage, configuration or input error: bad arguments, a file that cannot
// be read or parsed, a format error in a trace or spec (located).
inline constexpr int kExitUsage = 2;
// The tool itself failed: a bug, or output it could not write.
inline constexpr int kExitInternal = 3;

// The exit code for an error that stops a program: a bug of ours
// (kInternal) is kExitInternal; invalid input, a file, trace or operation
// not found and a failed read are input errors (kExitUsage).
constexpr int ExitCodeFor(ErrorKind kind) {
  return kind == ErrorKind::kInternal ? kExitInternal : kExitUsage;
}
constexpr int ExitCodeFor(const Error& error) { return ExitCodeFor(error.kind); }

}  // namespace llmconform
