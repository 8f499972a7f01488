// The input generator of `llmconform check` for `responses.accumulate`:
// Responses API streams built from output items (messages, function calls,
// reasoning with summaries, built-in tool items), each item or the stream
// as a whole written right or with one of the departures the RESP-* rules of
// specs/wire/rules.json name (an unnamed event, a missing sequence_number, a
// delta before its item, a function call without call_id, deltas that do not
// join to their .done, an event after the end, …) or a dialect's deviation
// the rules do not forbid (no usage, a closing `data: [DONE]`), and
// non-streamed bodies.
#pragma once

#include <rapidcheck.h>

#include <nlohmann/json.hpp>

namespace llmconform::harness::difftest {

rc::Gen<nlohmann::json> ResponsesAccumulateInput();

}  // namespace llmconform::harness::difftest
