// SDK-shaped matching (`mockllm serve --match sdk`): request-body values
// that equal the API's documented defaults say nothing the absent field
// would not, yet SDKs differ in whether they send them (the Vercel AI SDK
// always sends tool_choice "auto", LangChain.js stream false and
// stream_options). SdkNormalize removes them, so a recording made with one
// client matches the requests of another. Applied to both sides: the
// recorded body and the incoming one. The defaults are those of the request
// path's API surface (protocols/wire/surface.h): Chat Completions unless the
// path is the Responses API's or Anthropic Messages'.
//
// Top-level fields removed (docs/mockllm.md, "Matching"), on every surface:
//   any field whose value is null; tools: [] (an empty list).
// Chat Completions:
//   stream: false; n: 1; temperature: 1; top_p: 1; presence_penalty: 0;
//   frequency_penalty: 0; logprobs: false; store: false; service_tier: "auto";
//   parallel_tool_calls: true; response_format: {"type":"text"};
//   tool_choice: "auto" when tools are present, "none" when they are not;
//   stream_options: {"include_usage": true|false} (nothing but usage).
// Responses API (`POST /v1/responses`):
//   stream: false; store: true; background: false; temperature: 1; top_p: 1;
//   top_logprobs: 0; service_tier: "auto"; truncation: "disabled";
//   parallel_tool_calls: true; text: {"format":{"type":"text"}}; include: [];
//   tool_choice: "auto" (with or without tools), "none" when there are no tools.
// Anthropic Messages (`POST /v1/messages`):
//   stream: false; temperature: 1; service_tier: "auto"; stop_sequences: [];
//   thinking: {"type":"disabled"}; metadata: {}; tool_choice: {"type":"auto"}
//   (also with disable_parallel_tool_use: false), {"type":"none"} without
//   tools. max_tokens is required (the SDKs never default it): always compared.
//   Not a default but the same request: a message's content of one text block
//   with nothing else, [{"type":"text","text":S}], is read as the string S.
// Gemini (`…:generateContent`, `…:streamGenerateContent`): generationConfig's
//   candidateCount: 1, responseMimeType: "text/plain" and null fields, then
//   generationConfig: {}; toolConfig AUTO; safetySettings: []; labels: {}. A
//   function declaration's parametersJsonSchema is read as parameters (the
//   same schema under either name), and parameters {"type":"object"} (with
//   "properties": {} or not) as none.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace llmconform::mockllm {

// `body` without the default-valued fields above of the surface of `path`
// (unchanged unless an object).
nlohmann::json SdkNormalize(nlohmann::json body, std::string_view path = "");

// One line per removed default, for --help.
std::string_view SdkDefaultsHelp();

}  // namespace llmconform::mockllm
