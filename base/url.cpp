#include "base/url.h"

namespace llmconform {

std::expected<UrlParts, UrlError> SplitHttpUrl(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::unexpected(UrlError::kNotHttp);
  const std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return std::unexpected(UrlError::kNotHttp);
  const auto path_start = url.find('/', scheme_end + 3);
  UrlParts parts;
  parts.origin = std::string(url.substr(0, path_start));
  if (parts.origin.size() == scheme_end + 3) return std::unexpected(UrlError::kNoHost);
  if (path_start != std::string_view::npos) parts.path = std::string(url.substr(path_start));
  while (!parts.path.empty() && parts.path.back() == '/') parts.path.pop_back();
  return parts;
}

}  // namespace llmconform
