// A protocol suite: the driver that runs a protocol's reference client for a
// scenario against mockllm, and the checks that judge what happened.
//
// Checks read only the observation (outputs and mockllm's journal), never a
// client's internals, so the same checks judge external implementations.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "reports/result.h"

namespace llmconform::harness {

// One scenario file, specs/<protocol>/<name>.json:
//   {"protocol","name","description","trace"?,"input":{…},"expect":{…},"rules":[ids…]}
struct Scenario {
  std::string protocol;
  std::string name;
  std::string description;
  std::filesystem::path file;      // where it was loaded from
  std::string trace;               // fixtures path relative to the source root, "" for none
  Json input = Json::object();     // what the driver feeds the reference client
  Json expect = Json::object();    // what the checks compare against
  std::vector<std::string> rules;  // rule ids this scenario exercises
  Json raw;                        // the whole document, for protocol-specific fields
};

struct DriveContext {
  // Base URL of the OpenAI-compatible endpoint replaying the scenario's trace,
  // e.g. "http://127.0.0.1:41234/t/skill%2Fgit-quick-commit/v1"; "" when the
  // scenario has no trace. Clients append "/chat/completions".
  std::string llm_base_url;
  std::filesystem::path source_root;  // the repository (specs/, fixtures/)
  std::filesystem::path work_dir;     // an empty folder owned by this scenario
  // The endpoint puts reasoning at the start of content between <think> tags
  // (its dialect has DIA-THINK-TAGS-IN-CONTENT). Clients of protocols that
  // give <think> a meaning of their own (ThinkingML) are configured with it,
  // as their users configure them per provider (docs/protocols.md, "Inline
  // reasoning"); the others take such a block off always.
  bool inline_reasoning = false;
};

struct Observation {
  Json outputs = Json::object();  // what the reference client produced
  Json journal = Json::array();   // mockllm's journal entries for this scenario
};

class ProtocolSuite {
 public:
  virtual ~ProtocolSuite() = default;
  virtual std::string_view protocol() const = 0;
  // Runs the reference client. An Error means the harness could not run the
  // scenario (bad input in the scenario file, an unreachable endpoint): every
  // rule of the scenario is then reported as Error.
  virtual std::expected<Observation, Error> Drive(const Scenario& scenario,
                                                  const DriveContext& ctx) = 0;
  // Reads the scenario's "input" as Drive will (with the protocol's own
  // readers), without running anything: the specs loader calls it so that a
  // mistyped input is a located error when specs load, not a failure at run
  // time. Errors are kInvalidInput and begin with the JSON pointer of the
  // value in the scenario file ("/input/maxTokenBudget: expected integer,
  // got string").
  virtual std::expected<void, Error> ReadInput(const Scenario&) const { return {}; }
  // One result per rule in scenario.rules (more where a rule is checked at
  // several places). Never throws.
  virtual std::vector<reports::CheckResult> Check(const Scenario& scenario,
                                                  const Observation& obs) const = 0;
};

}  // namespace llmconform::harness
