#include "harness/cli.h"

int main(int argc, char** argv) { return llmconform::harness::Main(argc, argv); }
