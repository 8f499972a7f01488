// The input generator of `llmconform check` for `messages.accumulate`:
// Anthropic Messages streams built from content blocks (text, tool_use,
// thinking with a signature, a server tool call and its result), each block
// or the stream as a whole written right or with one of the departures the
// MSG-* rules of specs/wire/rules.json name (a delta before its block, a
// delta of another block's type, tool input that is no JSON object, an index
// out of step, a block never closed, unnamed events, no message_start, no
// usage, an undocumented stop_reason, no end, an event after it, data that is
// not JSON), streams ended by an error event, and non-streamed bodies.
#pragma once

#include <rapidcheck.h>

#include <nlohmann/json.hpp>

namespace llmconform::harness::difftest {

rc::Gen<nlohmann::json> MessagesAccumulateInput();

}  // namespace llmconform::harness::difftest
