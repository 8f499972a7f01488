#include "harness/suites/thinkingml_suite.h"

#include "harness/suites/gymbro_suite.h"

namespace llmconform::harness {

std::unique_ptr<ProtocolSuite> MakeThinkingmlSuite() {
  return MakeGymbroStreamSuite("thinkingml", gymbro_suite::ThinkingmlRules());
}

}  // namespace llmconform::harness
