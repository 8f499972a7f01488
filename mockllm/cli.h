// The `mockllm` command line: subcommands serve, lint and record (see
// --help of each). Exit codes: 0 success, 1 lint found problems, 2 usage,
// configuration or input error, 3 mockllm itself failed.
#pragma once

namespace mockllm {

int RunCli(int argc, char** argv);

}  // namespace mockllm
