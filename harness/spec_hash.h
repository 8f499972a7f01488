// The identity of a spec set, written into every report header so that
// `llmconform merge` can refuse to combine reports judged by different specs.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "base/error.h"
#include "harness/scenario.h"

namespace llmconform::harness {

// "sha256:<64 hex digits>" over every regular file under `specs_dir` and every
// trace file the scenarios of `specs` name (relative to `source_root`): for
// each, in order of its path relative to its root (specs first, then
// fixtures), the path, its length and its bytes. Independent of where the
// folders are, of file timestamps and of directory iteration order. A trace
// that cannot be read counts as missing (the run reports it per scenario).
// Error: a spec file or folder that cannot be read ("PATH: cannot read: …").
std::expected<std::string, Error> SpecSetHash(const std::filesystem::path& specs_dir,
                                              const SpecSet& specs,
                                              const std::filesystem::path& source_root);

}  // namespace llmconform::harness
