#include "reports/markdown.h"

#include <algorithm>

#include "reports/text.h"

namespace llmconform::reports {
namespace {

// The longest run of backticks in `text`.
std::size_t LongestBacktickRun(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string MarkdownText(std::string_view text, bool at_line_start) {
  // Escaped anywhere: what opens emphasis, code, links, raw HTML, entities,
  // strikethrough or a table cell. Escaped only where a line starts: what
  // makes a heading, a list item or a setext underline.
  static constexpr std::string_view kInline = "\\`*_[]<>|~&";
  static constexpr std::string_view kLineStart = "#-+=";
  const std::string readable = ReadableText(text);
  std::string out;
  out.reserve(readable.size() + 8);
  std::size_t digits = 0;  // how many digits the text starts with so far
  for (std::size_t i = 0; i < readable.size(); ++i) {
    const char c = readable[i];
    const bool at_start = at_line_start && i == 0;
    const bool ends_number =
        at_line_start && digits == i && i > 0 && (c == '.' || c == ')');  // "1." → "1\."
    if (c >= '0' && c <= '9' && digits == i) ++digits;
    if (c == '\n') {
      out.append("<br>");
    } else if (c == '\t') {
      out.push_back(' ');
    } else {
      if (kInline.find(c) != std::string_view::npos || ends_number ||
          (at_start && kLineStart.find(c) != std::string_view::npos)) {
        out.push_back('\\');
      }
      out.push_back(c);
    }
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  std::string readable = ReadableText(text);
  std::replace(readable.begin(), readable.end(), '\n', ' ');
  // In a table a `|` ends the cell even inside a code span unless escaped;
  // GitHub removes the backslash again before rendering the span.
  std::string body;
  for (char c : readable) {
    if (c == '|') body.push_back('\\');
    body.push_back(c);
  }
  const std::string fence(LongestBacktickRun(body) + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string MarkdownFence(std::string_view text, std::string_view info) {
  const std::string readable = ReadableText(text);
  const std::string fence(std::max<std::size_t>(3, LongestBacktickRun(readable) + 1), '`');
  std::string out = fence;
  out.append(info);
  out.push_back('\n');
  out.append(readable);
  if (!readable.empty() && readable.back() != '\n') out.push_back('\n');
  out.append(fence);
  out.push_back('\n');
  return out;
}

std::string_view OutcomeEmoji(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "\u2705";  // white heavy check mark
    case Outcome::kFail:
      return "\u274C";  // cross mark
    case Outcome::kSkip:
      return "\u23ED\uFE0F";  // next track
    case Outcome::kError:
      return "\u26A0\uFE0F";  // warning sign
  }
  return "";
}

std::string MarkdownOutcome(Outcome o) {
  return std::string(OutcomeEmoji(o)) + " " + std::string(OutcomeName(o));
}

std::string MarkdownTable(const std::vector<std::string>& header, const std::vector<Align>& align,
                          const std::vector<std::vector<std::string>>& rows) {
  const auto row_line = [](const std::vector<std::string>& cells) {
    std::string line = "|";
    for (const std::string& cell : cells) line.append(" " + cell + " |");
    return line + "\n";
  };
  std::string out = row_line(header);
  out.push_back('|');
  for (std::size_t i = 0; i < header.size(); ++i) {
    out.append(i < align.size() && align[i] == Align::kRight ? " --: |" : " --- |");
  }
  out.push_back('\n');
  for (const auto& row : rows) out.append(row_line(row));
  return out;
}

}  // namespace llmconform::reports
