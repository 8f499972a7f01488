// The `llmconform` command line: subcommands in one table.
#pragma once

namespace llmconform::harness {

// Runs the CLI; returns the process exit code (docs/architecture.md, "Exit codes"): 0 all
// conformant, 1 conformance failures, 2 usage/configuration/input error,
// 3 the harness itself failed.
int Main(int argc, char** argv);

}  // namespace llmconform::harness
