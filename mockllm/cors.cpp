#include "mockllm/cors.h"

namespace llmconform::mockllm {

HeaderList CorsHeaders(std::string_view allowed, std::string_view origin) {
  if (allowed.empty() || origin.empty()) return {};
  if (allowed == "*") {
    return {{"Access-Control-Allow-Origin", "*"}, {"Access-Control-Expose-Headers", "*"}};
  }
  if (origin != allowed) return {};
  return {{"Access-Control-Allow-Origin", std::string(origin)},
          {"Access-Control-Expose-Headers", "*"},
          {"Vary", "Origin"}};
}

bool OriginAllowed(std::string_view allowed, std::string_view origin) {
  return origin.empty() || !CorsHeaders(allowed, origin).empty();
}

bool IsPreflight(std::string_view method, std::string_view origin,
                 std::string_view requested_method) {
  return method == "OPTIONS" && !origin.empty() && !requested_method.empty();
}

HeaderList PreflightHeaders(std::string_view allowed, std::string_view origin,
                            std::string_view requested_headers) {
  HeaderList out = CorsHeaders(allowed, origin);
  if (out.empty()) return out;
  out.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
  out.emplace_back("Access-Control-Allow-Headers",
                   requested_headers.empty() ? std::string("*") : std::string(requested_headers));
  out.emplace_back("Access-Control-Max-Age", "600");
  return out;
}

}  // namespace llmconform::mockllm
