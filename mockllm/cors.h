// CORS for browser clients (`mockllm serve --cors ORIGIN|*`): a web chat UI
// under test calls mockllm from another origin. With an allowed origin, every
// answer carries Access-Control-Allow-Origin (and Expose-Headers: *), and a
// preflight (OPTIONS with Origin and Access-Control-Request-Method) is
// answered 204 with the allowed methods, the requested headers and a max age.
// A request from another origin gets no CORS headers, so the browser refuses it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmconform::mockllm {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// `allowed`: "*" or one origin ("" turns CORS off). `origin`: the request's
// Origin header ("" when absent). Headers for an ordinary answer.
HeaderList CorsHeaders(std::string_view allowed, std::string_view origin);

// Whether a request with the Origin header `origin` ("" when absent) may use
// what only mockllm's own users may (the admin API): no Origin, or one that
// `allowed` allows (as CorsHeaders does; none when `allowed` is "").
bool OriginAllowed(std::string_view allowed, std::string_view origin);

// True for a CORS preflight request.
bool IsPreflight(std::string_view method, std::string_view origin,
                 std::string_view requested_method);

// Headers for the 204 answer to a preflight; `requested_headers` is its
// Access-Control-Request-Headers.
HeaderList PreflightHeaders(std::string_view allowed, std::string_view origin,
                            std::string_view requested_headers);

}  // namespace llmconform::mockllm
