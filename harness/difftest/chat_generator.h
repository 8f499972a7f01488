// The input generators of `llmconform check` for `wire.accumulate` and
// `wire.dialect`: Chat Completions streams built chunk by chunk (content,
// reasoning, tool calls in fragments, usage, and odd frames), each chunk
// written right or with one of the provider deviations of
// specs/wire/dialects.json or a flaw the WIRE-STREAM-* rules name; and, for
// wire.dialect, non-streamed bodies in the providers' shapes.
#pragma once

#include <rapidcheck.h>

#include <nlohmann/json.hpp>

namespace llmconform::harness::difftest {

rc::Gen<nlohmann::json> WireAccumulateInput();
rc::Gen<nlohmann::json> WireDialectInput();

}  // namespace llmconform::harness::difftest
