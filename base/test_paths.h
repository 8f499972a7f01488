// Where a test program finds the repository and the programs the build made.
//
// Declared here, defined only in test programs: CMake generates one small file
// with the absolute paths of this build (cmake/LlmconformHelpers.cmake,
// llmconform_test_paths) and links it into every test. Keeping the paths out
// of the compile commands lets a second clone of the same commit compile from
// ccache's cache (docs/building.md). Each returns a NUL-terminated absolute
// path with static lifetime.
#pragma once

#include <filesystem>

namespace llmconform::test_paths {

const char* SourceRoot();        // the repository's root (specs/, fixtures/, tests/ …)
const char* LlmconformBinary();  // the built `llmconform`
const char* MockllmBinary();     // the built `mockllm`
const char* SerialRunDir();      // the reports of the ctest fixture `serial_run`

// SourceRoot() as a path.
inline const std::filesystem::path kRoot{SourceRoot()};

}  // namespace llmconform::test_paths
