// What mockllm sent for each request of a journal: the reply of the trace's
// exchange as replay planned it, after the dialect and the fault that
// applied (mockllm/dialect_rewrite.h PlanDialectResponse, mockllm/replay_plan.h
// PlanResponse). The client profile (harness/suites/client_suite.h) reads a
// client's answer against these bytes; the journal itself keeps only sizes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "mockllm/trace.h"

namespace llmconform::harness {

// Adds to every journal entry that replayed an exchange of `trace`
// (response.exchange set, a 2xx-5xx status):
//   "replied": {"surface" (of the exchange's path: "chat", "responses", …), "status",
//   "content_type", "retry_after_ms" (from
//               retry-after-ms or retry-after in seconds; null when none),
//               "stream": chunked, "cut": the plan closes the connection
//               early, "stall_ms": its longest wait between two pieces (a
//               stall fault; 0 for none), "body": the bytes planned, as
//               text, "at_ms": the entry's at_ms, when mockllm journaled it
//               (null when absent)}
//   "attempt": 1 + the number of entries right before it with the same
//              request body (a retry of the same request is attempt 2)
//   "refused": the "replied" objects of those earlier attempts, in order.
// `dialect`: the name the server rewrote replies into ("" for none).
// Entries that are not arrays of objects, or name an exchange the trace does
// not have, are left alone. Never throws.
void AnnotateReplies(nlohmann::json& journal, const mockllm::Trace& trace,
                     const std::string& dialect);

}  // namespace llmconform::harness
