// The toolcalls rules on what the tools did: the sandbox (TC-2.1-*) and the
// shape of tool results (TC-6.*, TC-1-3), and their part of the suite's
// table (toolcalls_checks.h).
#include <algorithm>
#include <array>
#include <string_view>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/suites/toolcalls_checks.h"
#include "harness/suites/toolcalls_shapes.h"
#include "protocols/toolcalls/mount_path.h"

namespace llmconform::harness::toolcalls_suite {
namespace {

namespace tc = toolcalls;
using reports::CheckResult;

std::string PathArg(const AnsweredCall& call) {
  return call.args.is_object() && call.args.contains("path") && call.args["path"].is_string()
             ? call.args["path"].get<std::string>()
             : "";
}

bool Writes(const std::string& tool) { return tool == "fs.write" || tool == "fs.apply_patch"; }

// The calls `must_refuse` picks were refused with E_SANDBOX_VIOLATION; with
// `pkg_unchanged`, the run also left @pkg as it was.
CheckResult CheckRefusals(const std::string& rule, const Context& c,
                          bool (*must_refuse)(const std::string& tool, const std::string& path),
                          bool pkg_unchanged) {
  int relevant = 0;
  for (const auto& call : AnsweredCalls(c.requests)) {
    const std::string path = PathArg(call);
    const std::string tool = ToolOf(call);
    if (!must_refuse(tool, path)) continue;
    ++relevant;
    const std::string code = StringOf(MemberOf(call.result, "error"), "code");
    if (code != "E_SANDBOX_VIOLATION") {
      return CheckResult::Fail(rule,
                               Format("{} {} was not refused with E_SANDBOX_VIOLATION", tool, path),
                               {"E_SANDBOX_VIOLATION", call.result.dump(), call.where});
    }
  }
  if (pkg_unchanged && MemberOf(c.obs.outputs, "pkgChanged") == true) {
    return CheckResult::Fail(rule, "the run changed @pkg",
                             {"@pkg unchanged", "@pkg changed", "outputs/pkgChanged"});
  }
  if (relevant == 0)
    return CheckResult::Skip(rule, "no tool call in this scenario exercises the rule");
  return CheckResult::Pass(rule, Format("{} calls checked", relevant));
}

// TC-2.1-1: a path outside the mounts is refused.
CheckResult CheckOutsideMounts(const std::string& rule, const Context& c) {
  return CheckRefusals(
      rule, c,
      [](const std::string&, const std::string& path) {
        return !path.empty() && !tc::ParseMountPath(path);
      },
      /*pkg_unchanged=*/false);
}

// TC-2.1-2: @pkg is read-only.
CheckResult CheckPkgReadOnly(const std::string& rule, const Context& c) {
  return CheckRefusals(
      rule, c,
      [](const std::string& tool, const std::string& path) {
        return Writes(tool) && path.starts_with("@pkg");
      },
      /*pkg_unchanged=*/true);
}

// TC-2.1-3: files are written under @project/artifacts/ and @state/ only.
CheckResult CheckWritesInArtifacts(const std::string& rule, const Context& c) {
  int relevant = 0;
  for (const auto& call : AnsweredCalls(c.requests)) {
    const std::string path = PathArg(call);
    if (!Writes(ToolOf(call)) || MemberOf(call.result, "ok") != true) continue;
    ++relevant;
    if (!path.starts_with("@project/artifacts/") && !path.starts_with("@state/")) {
      return CheckResult::Fail(rule, "a file was written outside @project/artifacts/ and @state/",
                               {"@project/artifacts/…", path, call.where});
    }
  }
  if (relevant == 0)
    return CheckResult::Skip(rule, "no tool call in this scenario exercises the rule");
  return CheckResult::Pass(rule, Format("{} calls checked", relevant));
}

// The results `selects` picks have the §6 shape; with `expected_codes`, every
// code of expect.errorCodes was carried by some result.
CheckResult CheckShapes(const std::string& rule, const Context& c,
                        bool (*selects)(const AnsweredCall& call, const std::string& tool),
                        bool expected_codes) {
  const std::vector<AnsweredCall> calls = AnsweredCalls(c.requests);
  int relevant = 0;
  for (const auto& call : calls) {
    const std::string tool = ToolOf(call);
    if (!selects(call, tool)) continue;
    ++relevant;
    if (const std::string p = ShapeProblem(tool, call.result); !p.empty()) {
      return CheckResult::Fail(rule,
                               Format("{} answered with a result of the wrong shape: {}", tool, p),
                               {"the §6 shape", call.result.dump().substr(0, 300), call.where});
    }
  }
  if (expected_codes) {
    for (const auto& code : c.scenario.expect.value("errorCodes", Json::array())) {
      const bool seen = std::any_of(calls.begin(), calls.end(), [&](const AnsweredCall& call) {
        return MemberOf(MemberOf(call.result, "error"), "code") == code;
      });
      if (!seen)
        return CheckResult::Fail(rule, Format("no tool result carried {}", code.get<std::string>()),
                                 {code.get<std::string>(), "absent", "journal"});
    }
  }
  if (relevant == 0)
    return CheckResult::Skip(rule, "no tool result in this scenario exercises the rule");
  return CheckResult::Pass(rule, Format("{} tool results have the §6 shape", relevant));
}

bool Failed(const AnsweredCall& call) { return MemberOf(call.result, "ok") == false; }

// TC-6.1-1: failures are {ok:false, error:{code, message, details?}}, with the
// codes the scenario expects.
CheckResult CheckErrorShape(const std::string& rule, const Context& c) {
  return CheckShapes(
      rule, c, [](const AnsweredCall& call, const std::string&) { return Failed(call); },
      /*expected_codes=*/true);
}

// TC-6.6-2: workflow failures carry their code.
CheckResult CheckWorkflowErrorShape(const std::string& rule, const Context& c) {
  return CheckShapes(
      rule, c,
      [](const AnsweredCall& call, const std::string&) {
        if (!Failed(call)) return false;
        const std::string code = StringOf(MemberOf(call.result, "error"), "code");
        return code == "E_INVALID_TRANSITION" || code == "E_INVALID_FRONTMATTER" ||
               code == "E_SCHEMA_VALIDATION";
      },
      /*expected_codes=*/false);
}

// TC-6.2-1 … TC-6.6-1: the results of one tool have its §6 shape.
template <const std::string_view& kTool>
CheckResult CheckToolShape(const std::string& rule, const Context& c) {
  return CheckShapes(
      rule, c, [](const AnsweredCall&, const std::string& tool) { return tool == kTool; },
      /*expected_codes=*/false);
}

constexpr std::string_view kRead = "fs.read", kSearch = "fs.search", kList = "fs.list",
                           kWrite = "fs.write", kPatch = "fs.apply_patch";

// TC-1-3: a truncated fs.read says so in the §6.2 shape.
CheckResult CheckTruncatedRead(const std::string& rule, const Context& c) {
  return CheckShapes(
      rule, c,
      [](const AnsweredCall& call, const std::string& tool) {
        return tool == kRead && MemberOf(call.result, "truncated") == true;
      },
      /*expected_codes=*/false);
}

constexpr std::array<RuleCheck<Context>, 11> kToolRules = {{
    {"TC-1-3", &CheckTruncatedRead},
    {"TC-2.1-1", &CheckOutsideMounts},
    {"TC-2.1-2", &CheckPkgReadOnly},
    {"TC-2.1-3", &CheckWritesInArtifacts},
    {"TC-6.1-1", &CheckErrorShape},
    {"TC-6.2-1", &CheckToolShape<kRead>},
    {"TC-6.3-1", &CheckToolShape<kSearch>},
    {"TC-6.4-1", &CheckToolShape<kList>},
    {"TC-6.5-1", &CheckToolShape<kWrite>},
    {"TC-6.6-1", &CheckToolShape<kPatch>},
    {"TC-6.6-2", &CheckWorkflowErrorShape},
}};

}  // namespace

std::span<const RuleCheck<Context>> ToolRules() { return kToolRules; }

}  // namespace llmconform::harness::toolcalls_suite
