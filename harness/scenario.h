// Loading scenarios and rule catalogues from specs/.
//
//   specs/<protocol>/rules.json      [{"id","source","text","severity"}…]
//   specs/<protocol>/<scenario>.json  one Scenario (harness/suite.h), fields:
//     protocol (string, = the folder), name (string, unique in its protocol),
//     description (string), trace? (path relative to the source root, under
//     fixtures/, no "." or ".." segment, an existing file that does not lead
//     outside fixtures/ through a symlink), provider? (string),
//     tags? ([string]), features? ([string]: the client features it exercises,
//     columns of the matrix), input? (object), expect? (object), rules ([rule id]),
//     notes? (string)
// Every error names the file, line and column and says what was expected and
// what was found: `specs/skill/x.json:3:14: "rules"[2]: unknown rule id
// "SKL-99" (not in specs/skill/rules.json)`.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/file.h"
#include "harness/suite.h"
#include "reports/result.h"

namespace llmconform::harness {

using RuleCatalog = std::vector<reports::RuleInfo>;

// Parses a rules.json text for `protocol`. `name` is used in messages.
std::expected<RuleCatalog, Error> ParseRuleCatalog(std::string_view name, std::string_view text,
                                                   std::string_view protocol);

// Parses one scenario text; `rules` are the ids it may name.
std::expected<Scenario, Error> ParseScenario(std::string_view name, std::string_view text,
                                             std::string_view expected_protocol,
                                             const RuleCatalog& rules);

struct SpecSet {
  std::map<std::string, RuleCatalog> rules;  // by protocol
  std::vector<Scenario> scenarios;           // sorted by protocol, then name
};

// Loads every specs/<protocol>/ folder under `specs_dir` (specs/oracle/, the
// oracle's schemas, is not a protocol; specs/wire/dialects.json is a catalogue,
// not a scenario). File names in messages are relative to `specs_dir`'s
// parent. A scenario's `trace` must name a file under `root`/fixtures (`root`:
// the folder traces are relative to; empty means `specs_dir`'s parent). All
// errors are collected, one per line, so a user fixes them in one pass.
std::expected<SpecSet, Error> LoadSpecs(const std::filesystem::path& specs_dir,
                                        const std::filesystem::path& root = {});

// ReadFile (base/file.h) is the whole-file reader of specs, rules and journals.
using ::llmconform::ReadFile;

}  // namespace llmconform::harness
