#include "protocols/thinkingml/tag_lexer.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/utf8.h"

namespace llmconform::thinkingml {
namespace {

// ASCII name characters: 1 may start a name, 2 may continue one (3: both).
constexpr std::array<unsigned char, 128> kAsciiName = [] {
  std::array<unsigned char, 128> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = 3;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = 3;
  t['_'] = t[':'] = 3;
  for (int c = '0'; c <= '9'; ++c) t[c] = 2;
  t['-'] = t['.'] = 2;
  return t;
}();

// Length in bytes of the XML name starting at `pos`, 0 if there is none.
std::size_t NameLength(std::string_view text, std::size_t pos) {
  std::size_t i = pos;
  unsigned char need = 1;  // start character first, then name characters
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (!(kAsciiName[c] & need)) break;
      ++i;
    } else {
      char32_t cp = 0;
      const std::size_t len = DecodeUtf8(text, i, cp);
      if (len == 0 || (need == 1 ? !IsXmlNameStartChar(cp) : !IsXmlNameChar(cp))) break;
      i += len;
    }
    need = 2;
  }
  return i - pos;
}

// The next '<' at or after `from`, or npos.
std::size_t FindLt(std::string_view text, std::size_t from) {
  const void* hit = std::memchr(text.data() + from, '<', text.size() - from);
  return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - text.data())
             : std::string_view::npos;
}

}  // namespace

bool IsXmlNameStartChar(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
         (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) ||
         (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) ||
         (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
         (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0xEFFFF);
}

bool IsXmlNameChar(char32_t c) {
  if (IsXmlNameStartChar(c)) return true;
  return c == '-' || c == '.' || (c >= '0' && c <= '9') || c == 0xB7 ||
         (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

bool TagLexer::Next(Token& out) {
  if (has_pending_) {
    has_pending_ = false;
    out = pending_;
    pos_ = out.end;
    return true;
  }
  if (pos_ >= text_.size()) return false;
  const std::size_t start = pos_;
  std::size_t scan = pos_;
  while (true) {
    const std::size_t lt = FindLt(text_, scan);
    if (lt == std::string_view::npos) {
      out = Token{TokenKind::kText, start, text_.size()};
      pos_ = text_.size();
      return true;
    }
    // Markup right at the start is the token; after text it waits its turn.
    Token& markup = lt == start ? out : pending_;
    if (ReadMarkup(lt, markup)) {  // writes `markup` only on success
      if (lt == start) {
        pos_ = markup.end;
      } else {
        out = Token{TokenKind::kText, start, lt};
        has_pending_ = true;
        pos_ = lt;
      }
      return true;
    }
    scan = lt + 1;
  }
}

bool TagLexer::ReadMarkup(std::size_t lt, Token& out) {
  if (lt + 1 >= text_.size()) return false;
  const char next = text_[lt + 1];
  if (next == '<') {
    if (!text_.substr(lt).starts_with(kParsingErrorLiteral)) return false;
    out = Token{TokenKind::kParsingError, lt, lt + kParsingErrorLiteral.size()};
    return true;
  }
  if (next == '!') {
    if (!text_.substr(lt).starts_with("<!--")) return false;
    if (no_comment_end_from_ <= lt + 4) return false;
    const std::size_t close = text_.find("-->", lt + 4);
    if (close == std::string_view::npos) {
      no_comment_end_from_ = lt + 4;
      return false;
    }
    out = Token{TokenKind::kComment, lt, close + 3};
    return true;
  }
  return ReadTag(lt, out);
}

bool TagLexer::ReadTag(std::size_t lt, Token& out) {
  std::size_t i = lt + 1;
  const bool closing = i < text_.size() && text_[i] == '/';
  if (closing) ++i;
  const std::size_t name_len = NameLength(text_, i);
  if (name_len == 0) return false;
  const std::size_t name_end = i + name_len;
  std::size_t gt = name_end;
  if (gt < text_.size() && text_[gt] != '>') {
    // Attributes or junk: the tag ends at the first '>' before the next '<'.
    // Stopping at the next '<' keeps lexing linear (the main scan resumes
    // there); attributes are short, so a byte loop beats two memchr calls.
    while (gt < text_.size() && text_[gt] != '>' && text_[gt] != '<') ++gt;
    if (gt >= text_.size() || text_[gt] == '<') return false;
  }
  if (gt >= text_.size()) return false;
  out = Token{closing ? TokenKind::kCloseTag : TokenKind::kOpenTag, lt, gt + 1};
  out.name = text_.substr(i, name_len);
  std::size_t attr_end = gt;
  if (!closing && gt > name_end && text_[gt - 1] == '/') {
    out.self_closing = true;
    --attr_end;
  }
  out.attributes = text_.substr(name_end, attr_end - name_end);
  return true;
}

}  // namespace llmconform::thinkingml
