// What a client's LLMCONFORM_OUTPUT becomes for the rules of `run
// --client-cmd` (docs/gate.md lists each protocol's shape): the observation's
// outputs, named as the reference driver names them, so the scenario's own
// checks judge it, and the rules whose fields the client left out or got
// wrong, each with the result it gets instead.
#pragma once

#include <string>
#include <vector>

#include "harness/suite.h"
#include "reports/result.h"

namespace llmconform::harness {

struct ClientOutput {
  Json outputs = Json::object();  // the observation's outputs
  // What is wrong with the file, each naming the field by its JSON pointer
  // ("/stream/events/2/data: expected string, got number"): GATE-CLIENT-OUTPUT.
  std::vector<std::string> problems;
  // Results that replace all of a rule's own (a Fail for a field the rule
  // needs that is missing or ill-typed; a Skip for an optional one left out).
  std::vector<reports::CheckResult> overrides;
};

// `doc` is the client's output object (the caller has checked it is one).
ClientOutput MapClientOutput(const Scenario& scenario, const Json& doc);

// `checks` with every result of a rule `overrides` names replaced by the
// override, at the place of the rule's first result (appended when it has none).
std::vector<reports::CheckResult> ApplyOverrides(
    std::vector<reports::CheckResult> checks, const std::vector<reports::CheckResult>& overrides);

}  // namespace llmconform::harness
