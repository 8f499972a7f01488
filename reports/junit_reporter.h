// JUnit XML (junit.xml) for CI systems, valid against the Jenkins JUnit
// schema (tests/junit/junit.xsd, checked with xmllint in the tests), which
// Jenkins and GitLab read:
//
//   <testsuites name="llmconform" tests failures errors time>
//     <testsuite name="<protocol>" tests failures errors skipped time timestamp>
//       <properties>tool_version, started_at</properties>
//       <testcase classname="<protocol>.<scenario>" name="<rule id>">
//         <failure message type="fail">evidence as text</failure>   (Fail)
//         <error message type="error">…</error>                     (Error)
//         <skipped>why</skipped>            (Skip; the schema allows no attributes)
//
// One testsuite a protocol (in run order), one testcase a CheckResult. Suite
// time is the sum of its scenarios' times in seconds; a testcase has no time
// of its own (checks are not timed). The text body of a failure holds the
// rule text and source from the catalogue, the expected/actual/where
// evidence, and the scenario file and trace. All text is made XML-safe with
// ReadableText (XML 1.0 forbids most control characters).
#pragma once

#include <ostream>
#include <string>

#include "reports/reporter.h"

namespace llmconform::reports {

std::string RenderJUnit(const RunResult& run);

// Writes RenderJUnit to the stream at OnRunEnd.
class JUnitReporter final : public CumulativeReporter {
 public:
  explicit JUnitReporter(std::ostream& out) : CumulativeReporter(out, RenderJUnit) {}
};

}  // namespace llmconform::reports
