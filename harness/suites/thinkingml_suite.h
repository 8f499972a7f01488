// The thinkingml protocol suite (seed 002 §1–§5): ThinkingML replies streamed
// by mockllm through the reference GymBro service, joined by the reference
// client and validated. It is the gymbro suite's driver and checks under the
// protocol name "thinkingml" (harness/suites/gymbro_suite.h describes the
// scenario fields); its scenarios list TML-* rules, and the rules a reply
// breaks on purpose in expect.violations.
#pragma once

#include <memory>

#include "harness/suite.h"

namespace llmconform::harness {
std::unique_ptr<ProtocolSuite> MakeThinkingmlSuite();
}
