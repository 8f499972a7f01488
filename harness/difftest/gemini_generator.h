// The input generator of `llmconform check` for `gemini.accumulate`: Gemini
// API streams (`streamGenerateContent?alt=sse`) built from parts (text,
// thoughts with signatures, function calls, several in one chunk, code
// execution parts), each chunk or the stream as a whole written right or
// with one of the departures the GEM-* rules of specs/wire/rules.json name
// (a `[DONE]` event, data that is not JSON, a function call without a name
// or with args that are no object, an undocumented finishReason, a chunk
// after the finish, no usage on the last chunk, two candidates with one
// index, no finish at all, an error event whose status does not fit its
// code) or a dialect's departure the rules do not forbid (specs/wire/
// dialects.json DIA-GEM-*: Vertex AI's createTime and trafficType with usage
// on the last chunk only, the chunks framed as one JSON array), and
// non-streamed bodies (a response, Vertex AI's response, an error body, an
// error inside an array, an array of chunks, a body that is no response).
// `wire.dialect` takes them too, with "surface": "gemini".
#pragma once

#include <rapidcheck.h>

#include <nlohmann/json.hpp>

namespace llmconform::harness::difftest {

rc::Gen<nlohmann::json> GeminiAccumulateInput();

}  // namespace llmconform::harness::difftest
