// Oracle operations of the thinkingml protocol and its GymBro event contract:
//   thinkingml.validate {"text"} →
//     {"valid","findings":[{"rule","message","line","column"}],
//      "parts":{"think","serp","phases":[{"id","title","text"}],"final","queries"}}
//     (absent parts are null; "final" is the content without the serp_queries block)
//   thinkingml.escapeThinkingFinalLiterals {"text"} → {"text"}
//   gymbro.checkEvents {"events":[{"event","data"}],"request_id"?} →
//     {"valid","reply","outcome":"completed"|"error"|"none",
//      "findings":[{"rule","severity","message","event"}]}
//     ("data" is the SSE data text or the JSON object itself; "event" in a
//      finding is the 0-based index of the event, null for the whole stream)
#pragma once

#include <vector>

#include "protocols/thinkingml/thinkingml.h"
#include "protocols/wire/oracle_op.h"

namespace llmconform::thinkingml {

std::vector<OracleOp> OracleOps();

// {"valid","findings":[{"rule","message","line","column"}]} and, with
// `with_parts`, "parts" — thinkingml.validate's result, for other outputs
// that report a validation the same way.
nlohmann::json ValidationJson(const Validation& v, bool with_parts);

}  // namespace llmconform::thinkingml
