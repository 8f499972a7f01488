#include "harness/child_groups.h"
#include "harness/cli.h"

int main(int argc, char** argv) {
  // A client command or a SUT must not outlive llmconform stopped by a signal.
  llmconform::harness::KillChildGroupsOnSignals();
  return llmconform::harness::Main(argc, argv);
}
