// Oracle operations of the wire layer:
//   sse.parse {"stream","splits"?} → {"events":[{"event","data","id"}],"retry"?}
//   wire.accumulate {"stream"} → {"message","finish_reason","usage","findings"}
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::wire {
std::vector<OracleOp> OracleOps();
}
