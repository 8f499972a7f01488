// Splitting an http(s) URL into what an HTTP client is built from (the
// origin) and what goes before every request path (the path prefix).
#pragma once

#include <expected>
#include <string>
#include <string_view>

namespace llmconform {

struct UrlParts {
  std::string origin;  // "scheme://host[:port]"
  std::string path;    // "" or "/…" without a trailing slash
};

enum class UrlError {
  kNotHttp,  // no "http://" or "https://" scheme
  kNoHost,   // "http://" with nothing after it
};

// "http://h:1/a/b/" → {"http://h:1", "/a/b"}.
std::expected<UrlParts, UrlError> SplitHttpUrl(std::string_view url);

}  // namespace llmconform
