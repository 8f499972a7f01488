// The input generator of `llmconform check` for `messages.accumulate`:
// Anthropic Messages streams built from content blocks (text, tool_use,
// thinking with a signature, a server tool call and its result), each block
// or the stream as a whole written right or with one of the departures the
// MSG-* rules of specs/wire/rules.json name (a delta before its block, a
// delta of another block's type, tool input that is no JSON object, an index
// out of step, a block never closed, unnamed events, no message_start, no
// usage, an undocumented stop_reason, no end, an event after it, data that is
// not JSON), or with a dialect's departure the rules do not forbid
// (specs/wire/dialects.json DIA-MSG-*: message_start's usage all zeros, a
// tool_use block's input whole in its start or in one delta, a thinking block
// without a signature or whose start has no `signature`), streams ended by an
// error event, and non-streamed bodies (an error in OpenAI's envelope and
// unsigned thinking among them). `wire.dialect` takes them too, with
// "surface": "messages".
#pragma once

#include <rapidcheck.h>

#include <nlohmann/json.hpp>

namespace llmconform::harness::difftest {

rc::Gen<nlohmann::json> MessagesAccumulateInput();

}  // namespace llmconform::harness::difftest
