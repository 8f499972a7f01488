#include "protocols/thinkingml/serp_queries.h"

#include <algorithm>
#include <array>
#include <memory_resource>
#include <nlohmann/json.hpp>

#include "base/format.h"
#include "base/json_quote.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/thinkingml/sensitive_info.h"
#include "protocols/thinkingml/xml_text.h"
#include "protocols/wire/chat.h"

namespace llmconform::thinkingml {
namespace {

constexpr std::string_view kOpen = "<serp_queries>";
constexpr std::string_view kClose = "</serp_queries>";
// Whether the comment `content[begin, end)` is written exactly as the format.
bool IsExact(std::string_view content, std::size_t begin, std::size_t end) {
  if (begin > 0 && content[begin - 1] != '\n') return false;
  std::string_view c = content.substr(begin, end - begin);
  constexpr std::string_view kHead = "<!-- <serp_queries>\n";
  constexpr std::string_view kTail = "\n</serp_queries> -->";
  if (!c.starts_with(kHead) || !c.ends_with(kTail) || c.size() < kHead.size() + kTail.size())
    return false;
  const std::string_view line = c.substr(kHead.size(), c.size() - kHead.size() - kTail.size());
  return line.size() >= 2 && line.front() == '[' && line.back() == ']' &&
         line.find('\n') == std::string_view::npos;
}

// Four hex digits at `s[i]`, or nullopt.
std::optional<char32_t> Hex4(std::string_view s, std::size_t i) {
  if (i + 4 > s.size()) return std::nullopt;
  char32_t v = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<char32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<char32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<char32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
  }
  return v;
}

// What CheckQueries needs to know of a query besides its text, gathered
// while the fast path decodes it (so that the query is read only once).
struct QueryFacts {
  std::size_t code_points = 0;
  bool trigger = false;  // holds a character IsSensitiveInfoTrigger accepts
};

// The common case, without building a JSON tree: a well-formed JSON array
// whose elements are all strings (RFC 8259, UTF-8 validated), with the facts
// of each string. nullopt for anything else, which the general parser then
// handles and explains.
std::optional<std::vector<std::string>> ParseStringArray(std::string_view s,
                                                         std::pmr::vector<QueryFacts>& facts) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  };
  std::vector<std::string> out;
  out.reserve(kMaxSerpQueries);
  skip();
  if (i >= s.size() || s[i++] != '[') return std::nullopt;
  skip();
  if (i < s.size() && s[i] == ']') {
    ++i;
    skip();
    return i == s.size() ? std::optional(std::move(out)) : std::nullopt;
  }
  while (true) {
    if (i >= s.size() || s[i++] != '"') return std::nullopt;
    std::string value;
    QueryFacts& fact = facts.emplace_back();
    while (true) {
      // A run of characters that need no decoding goes in with one append.
      const std::size_t run = i;
      while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
          if (c == '"' || c == '\\' || c < 0x20) break;
          fact.trigger |= IsSensitiveInfoTrigger(c);
          ++i;
        } else {
          char32_t cp = 0;
          const std::size_t len = DecodeUtf8(s, i, cp);
          if (len == 0) return std::nullopt;
          i += len;
        }
        ++fact.code_points;
      }
      value.append(s.substr(run, i - run));
      if (i >= s.size()) return std::nullopt;
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"') {
        ++i;
        break;
      }
      if (c < 0x20) return std::nullopt;
      if (++i >= s.size()) return std::nullopt;
      ++fact.code_points;   // an escape is one code point (a surrogate pair too)
      fact.trigger = true;  // it may decode to one: let the detectors look
      switch (s[i++]) {
        case '"':
          value.push_back('"');
          break;
        case '\\':
          value.push_back('\\');
          break;
        case '/':
          value.push_back('/');
          break;
        case 'b':
          value.push_back('\b');
          break;
        case 'f':
          value.push_back('\f');
          break;
        case 'n':
          value.push_back('\n');
          break;
        case 'r':
          value.push_back('\r');
          break;
        case 't':
          value.push_back('\t');
          break;
        case 'u': {
          auto hi = Hex4(s, i);
          if (!hi) return std::nullopt;
          i += 4;
          char32_t cp = *hi;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return std::nullopt;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 2 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return std::nullopt;
            auto lo = Hex4(s, i + 2);
            if (!lo || *lo < 0xDC00 || *lo > 0xDFFF) return std::nullopt;
            i += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (*lo - 0xDC00);
          }
          AppendUtf8(value, cp);
          break;
        }
        default:
          return std::nullopt;
      }
    }
    out.push_back(std::move(value));
    skip();
    if (i >= s.size()) return std::nullopt;
    if (s[i] == ']') {
      ++i;
      skip();
      return i == s.size() ? std::optional(std::move(out)) : std::nullopt;
    }
    if (s[i++] != ',') return std::nullopt;
    skip();
  }
}

// Rules TML-4.4 to TML-4.7 on the strings of the array; `facts` as
// ParseStringArray gathered them, or empty to work them out here.
void CheckQueries(const std::vector<std::string>& queries,
                  const std::pmr::vector<QueryFacts>& facts, Findings& findings) {
  if (queries.size() > kMaxSerpQueries) {
    findings.push_back({"TML-4.4", Format("{} serp queries, at most {} are allowed", queries.size(),
                                          kMaxSerpQueries)});
  }
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const std::string& q = queries[i];
    if (std::find(queries.begin(), queries.begin() + static_cast<std::ptrdiff_t>(i), q) !=
        queries.begin() + static_cast<std::ptrdiff_t>(i)) {
      findings.push_back(
          {"TML-4.5", Format("serp query {} {} repeats an earlier query", i + 1, QuoteJson(q))});
    }
    const bool known = i < facts.size();
    if (const std::size_t n = known ? facts[i].code_points : CountCodePoints(q);
        n > kMaxSerpQueryCodePoints) {
      findings.push_back(
          {"TML-4.6", Format("serp query {} is {} characters long, at most {} are allowed", i + 1,
                             n, kMaxSerpQueryCodePoints)});
    }
    if (known && !facts[i].trigger) continue;
    if (auto what = DescribeSensitiveInfo(q)) {
      findings.push_back(
          {"TML-4.7", Format("serp query {} {} holds {}", i + 1, QuoteJson(q), *what)});
    }
  }
}

}  // namespace

bool MentionsSerpQueries(std::string_view comment) {
  return comment.find("serp_queries") != std::string_view::npos;
}

SerpQueriesBlock ReadSerpQueriesBlock(std::string_view content, std::size_t begin,
                                      std::size_t end) {
  SerpQueriesBlock b;
  b.begin = begin;
  b.end = end;
  const std::string_view body = content.substr(begin + 4, end - begin - 7);  // inside <!-- and -->
  std::size_t json_from = 0, json_to = 0;                                    // within body
  const std::size_t tag = body.find(kOpen);
  const std::size_t end_tag =
      tag == std::string_view::npos ? tag : body.find(kClose, tag + kOpen.size());
  if (end_tag != std::string_view::npos) {
    json_from = tag + kOpen.size();
    json_to = end_tag;
  } else if (const std::size_t lb = body.find('['); lb != std::string_view::npos) {
    const std::size_t rb = body.rfind(']');
    if (rb != std::string_view::npos && rb > lb) json_from = lb, json_to = rb + 1;
  }
  const std::string_view raw = body.substr(json_from, json_to - json_from);
  b.json = Trim(raw);
  b.json_begin = begin + 4 + json_from +
                 (b.json.empty() ? 0 : static_cast<std::size_t>(b.json.data() - raw.data()));
  b.exact = IsExact(content, begin, end);
  b.last = Trim(content.substr(end)).empty();
  return b;
}

std::optional<SerpQueriesBlock> FindSerpQueriesBlock(std::string_view content) {
  std::optional<SerpQueriesBlock> found;
  std::size_t pos = 0;
  while (true) {
    const std::size_t open = content.find("<!--", pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = content.find("-->", open + 4);
    if (close == std::string_view::npos) break;
    const std::size_t end = close + 3;
    if (MentionsSerpQueries(content.substr(open, end - open)))
      found = ReadSerpQueriesBlock(content, open, end);
    pos = end;
  }
  return found;
}

std::string FormatSerpQueriesBlock(const std::vector<std::string>& queries) {
  return Format("<!-- <serp_queries>\n{}\n</serp_queries> -->", DumpJson(nlohmann::json(queries)));
}

SerpQueriesCheck CheckSerpQueries(std::string_view json) {
  SerpQueriesCheck out;
  // The facts of the usual few queries stay in this frame.
  std::array<std::byte, 2 * kMaxSerpQueries * sizeof(QueryFacts)> buffer;
  std::pmr::monotonic_buffer_resource resource(buffer.data(), buffer.size());
  std::pmr::vector<QueryFacts> facts(&resource);
  facts.reserve(kMaxSerpQueries);
  if (auto fast = ParseStringArray(json, facts)) {
    CheckQueries(*fast, facts, out.findings);
    out.queries = std::move(*fast);
    return out;
  }
  const nlohmann::json parsed = ReadJsonOrDiscarded(json);
  if (parsed.is_discarded() || !parsed.is_array()) {
    out.findings.push_back(
        {"TML-4.3",
         parsed.is_discarded()
             ? Format("the serp_queries block does not hold valid JSON: {}",
                      QuoteJson(json.substr(0, 120)))
             : Format("the serp_queries block holds a JSON {}, expected an array of strings",
                      JsonTypeName(parsed))});
    return out;
  }
  std::vector<std::string> queries;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    if (!parsed[i].is_string()) {
      out.findings.push_back({"TML-4.3", Format("serp query {} is a JSON {}, expected a string",
                                                i + 1, JsonTypeName(parsed[i]))});
      continue;
    }
    queries.push_back(parsed[i].get<std::string>());
  }
  CheckQueries(queries, std::pmr::vector<QueryFacts>(), out.findings);
  out.queries = std::move(queries);
  return out;
}

}  // namespace llmconform::thinkingml
