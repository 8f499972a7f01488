#include "mockllm/http_message.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/json_read.h"

namespace llmconform::mockllm {
namespace {

char LowerAscii(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool HasCrLf(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// The `count` hex digits at `at` of `s` as a number; nullopt when they are not all there.
std::optional<int> HexAt(std::string_view s, std::size_t at, std::size_t count) {
  if (at + count > s.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    const char c = s[i];
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    value = value * 16 + digit;
  }
  return value;
}

// A code point below 0x10000 as UTF-8; a surrogate is left out.
void AppendUtf8(std::string& out, int code) {
  const auto byte = [&](int b) { out += static_cast<char>(b); };
  if (code < 0x80) return byte(code);
  if (code < 0x800) return byte(0xC0 | (code >> 6)), byte(0x80 | (code & 0x3F));
  if (code >= 0xD800 && code < 0xE000) return;
  byte(0xE0 | (code >> 12)), byte(0x80 | ((code >> 6) & 0x3F)), byte(0x80 | (code & 0x3F));
}

// Calls `piece` for each piece of `s` between `delimiter`s, blanks around it
// trimmed, empty pieces left out.
template <typename Fn>
void Split(std::string_view s, char delimiter, Fn piece) {
  std::size_t begin = 0;
  while (begin <= s.size()) {
    std::size_t end = s.find(delimiter, begin);
    if (end == std::string_view::npos) end = s.size();
    std::string_view p = s.substr(begin, end - begin);
    while (!p.empty() && (p.front() == ' ' || p.front() == '\t')) p.remove_prefix(1);
    while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.remove_suffix(1);
    if (!p.empty()) piece(p);
    begin = end + 1;
  }
}

}  // namespace

bool HeaderNameLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char x, char y) { return LowerAscii(x) < LowerAscii(y); });
}

std::string FieldValue(const HttpFields& fields, std::string_view name) {
  const auto it = fields.find(name);
  return it == fields.end() ? std::string() : it->second;
}

bool HttpRequest::HasParam(std::string_view name) const {
  return params.contains(std::string(name));
}

std::string HttpRequest::Param(std::string_view name) const {
  const auto it = params.find(std::string(name));
  return it == params.end() ? std::string() : it->second;
}

std::string DecodeUrl(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%' && i + 1 < s.size() && s[i + 1] == 'u') {
      if (const auto code = HexAt(s, i + 2, 4)) {
        AppendUtf8(out, *code);
        i += 5;
        continue;
      }
    } else if (c == '%') {
      if (const auto byte = HexAt(s, i + 1, 2)) {
        out += static_cast<char>(*byte);
        i += 2;
        continue;
      }
    }
    out += plus_is_space && c == '+' ? ' ' : c;
  }
  return out;
}

void ParseTarget(HttpRequest& req) {
  const std::size_t q = req.target.find('?');
  req.path = DecodeUrl(std::string_view(req.target).substr(0, q), false);
  req.params.clear();
  if (q == std::string::npos) return;
  std::set<std::string_view> seen;
  Split(std::string_view(req.target).substr(q + 1), '&', [&](std::string_view pair) {
    if (!seen.insert(pair).second) return;
    std::string_view name, value;
    Split(pair, '=', [&](std::string_view p) { (name.empty() ? name : value) = p; });
    if (!name.empty()) req.params.emplace(DecodeUrl(name, true), DecodeUrl(value, true));
  });
}

void HttpResponse::SetHeader(std::string_view name, std::string_view value) {
  if (HasCrLf(name) || HasCrLf(value)) return;
  headers.emplace(std::string(name), std::string(value));
}

namespace {
void ReplaceContentType(HttpFields& headers, std::string_view content_type) {
  headers.erase(std::string("Content-Type"));
  if (!HasCrLf(content_type)) headers.emplace("Content-Type", std::string(content_type));
}
}  // namespace

void HttpResponse::SetBody(std::string bytes, std::string_view content_type) {
  ReplaceContentType(headers, content_type);
  body = Owned{std::move(bytes)};
}

void HttpResponse::LendBody(std::shared_ptr<const void> owner, std::string_view bytes,
                            std::string_view content_type) {
  ReplaceContentType(headers, content_type);
  body = Lent{std::move(owner), bytes};
}

void HttpResponse::PaceBody(std::shared_ptr<PacedBody> paced, std::optional<std::size_t> length,
                            std::string_view content_type) {
  ReplaceContentType(headers, content_type);
  body = Paced{std::move(paced), length};
}

void HttpResponse::ProvideBody(std::optional<std::size_t> length, std::string_view content_type,
                               std::function<bool(std::size_t, HttpSink&)> provide) {
  ReplaceContentType(headers, content_type);
  body = Provided{std::move(provide), length};
}

void HttpResponse::FinishOnWorker(std::function<void(HttpResponse&)> finish) {
  body = OnWorker{std::move(finish)};
}

std::string_view HttpResponse::Bytes() const {
  if (const auto* owned = std::get_if<Owned>(&body)) return owned->bytes;
  if (const auto* lent = std::get_if<Lent>(&body)) return lent->bytes;
  return {};
}

void AnswerJson(HttpResponse& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.SetBody(DumpJson(body), "application/json");
}

std::vector<std::pair<std::string, std::string>> RequestHeaders(const HttpFields& headers) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    std::string lower(name);
    std::ranges::transform(lower, lower.begin(), LowerAscii);
    out.emplace_back(std::move(lower), value);
  }
  return out;
}

}  // namespace llmconform::mockllm
