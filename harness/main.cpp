#include "base/child_groups.h"
#include "harness/cli.h"

int main(int argc, char** argv) {
  // A client command, a SUT or a scratch folder must not outlive llmconform
  // stopped by a signal.
  llmconform::KillChildGroupsOnSignals();
  return llmconform::harness::Main(argc, argv);
}
