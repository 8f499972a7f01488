// Where the bundled specs are when the user names none.
#pragma once

#include <filesystem>

namespace llmconform::harness {

// The default --specs: "specs" when the current folder has one (a checkout),
// else the specs installed beside the program, <prefix>/share/llmconform/specs
// for a program at <prefix>/bin/llmconform (found from /proc/self/exe, so an
// unpacked package works wherever it lies; a build tree mirrors that layout,
// so build/<preset>/harness/llmconform finds build/<preset>/share/llmconform/specs,
// a link to the checkout's), else "specs" (whose absence the commands then
// report, saying to name the folder with --specs).
std::filesystem::path DefaultSpecsDir();

// The installed data folder for a program at `exe`: <exe's folder>/../share/llmconform.
std::filesystem::path InstalledDataDir(const std::filesystem::path& exe);

}  // namespace llmconform::harness
