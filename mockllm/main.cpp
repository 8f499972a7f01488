// The mockllm program: see mockllm/cli.h.
#include "mockllm/cli.h"

int main(int argc, char** argv) { return llmconform::mockllm::RunCli(argc, argv); }
