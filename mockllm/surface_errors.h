// Errors in each API surface's own shape: the bodies of injected HTTP errors
// and of mockllm's answers where it stands in for the API, the rate-limit
// headers of a 429, and the in-stream error events of the `error_event` fault
// (docs/mockllm.md, "Faults per surface").
//
//   Chat Completions, Responses   {"error":{"message","type","param","code"}}
//   Anthropic Messages            {"type":"error","error":{"type","message"}}
//   Gemini                        {"error":{"code":HTTP status,"message","status"}}
//
// Sources: OpenAI's error codes guide; Anthropic's "Errors" page (the status
// → type map below); Gemini's troubleshooting guide and google.rpc.Code (the
// status → status-name map below); the recorded errors under
// fixtures/recorded/{anthropic,openai-responses}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mockllm/trace.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {

// Seconds as a header or a Gemini duration writes them: "2", "1.5".
std::string SecondsText(double seconds);

// Anthropic's error type for an HTTP status: 400 invalid_request_error, 401
// authentication_error, 403 permission_error, 404 not_found_error, 413
// request_too_large, 429 rate_limit_error, 500 api_error, 529
// overloaded_error; any other 4xx invalid_request_error, any other status
// api_error.
std::string_view AnthropicErrorType(int status);
// Gemini's (google.rpc) status name for an HTTP status: 400 INVALID_ARGUMENT,
// 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 NOT_FOUND, 409 ABORTED, 429
// RESOURCE_EXHAUSTED, 499 CANCELLED, 501 UNIMPLEMENTED, 503 UNAVAILABLE, 504
// DEADLINE_EXCEEDED; any other 5xx INTERNAL, anything else FAILED_PRECONDITION.
std::string_view GeminiErrorStatus(int status);

// The body `surface`'s API answers `status` with, saying `message`. On the
// OpenAI surfaces `type`, `code` and `param` fill the error object (an empty
// `type`: the one OpenAI uses for the status); the others carry only what
// their shape has. `retry_after_s` (Gemini): a google.rpc.RetryInfo detail
// with that retryDelay, as Gemini's 429 carries.
OJson SurfaceErrorBody(llmconform::wire::Surface surface, int status, std::string_view message,
                       std::string_view type = "", const OJson& code = nullptr,
                       const OJson& param = nullptr,
                       std::optional<double> retry_after_s = std::nullopt);

// An OpenAI-shaped error body of mockllm's (MakeErrorJson) in the shape of
// `surface`: the answers where mockllm stands in for the API (a body that is
// not JSON, a wrong content type, an unknown route) reach an SDK of that
// surface as that API's error. mockllm's own errors (a type or code starting
// with "mockllm_") keep the OpenAI shape everywhere: tools read their fields.
Json InSurfaceShape(llmconform::wire::Surface surface, int status, Json openai_body);

// The rate-limit headers `surface`'s API documents on a 429, as an exhausted
// limit reads: Chat and Responses `x-ratelimit-remaining-requests: 0` and,
// with a retry delay, `x-ratelimit-reset-requests` ("2s", "1500ms");
// Anthropic `anthropic-ratelimit-requests-remaining: 0` (its `-reset` is a
// wall-clock time, left out so that replies stay deterministic). Gemini
// documents none (its body carries RetryInfo). Empty for other statuses.
std::vector<std::pair<std::string, std::string>> RateLimitHeaders(
    llmconform::wire::Surface surface, int status, std::optional<double> retry_after_s,
    std::optional<std::int64_t> retry_after_ms);

// The error object an `error_event` fault carries when it names none:
// Chat / Responses {"message","type":"server_error","param":null,"code":null},
// Anthropic {"type":"overloaded_error","message":"Overloaded"}, Gemini
// {"code":500,"message","status":"INTERNAL"}.
OJson DefaultStreamError(llmconform::wire::Surface surface);

// The injected error event of `surface` after `before` (the stream's bytes
// so far) holding `events` events: Chat and Gemini `data: {"error":{…}}`;
// Responses `event: error` with the error's fields flat
// ({"type":"error","code","message","param","sequence_number"}) or, `failed`,
// `event: response.failed` whose response is the last one the stream sent
// (its id, model…) with status "failed", the error {"code","message"} and
// the output items accumulated so far; Anthropic `event: error` with
// {"type":"error","error":{…}}.
std::string StreamErrorEvent(llmconform::wire::Surface surface, const OJson& error, bool failed,
                             std::string_view before, std::int64_t events);

}  // namespace llmconform::mockllm
