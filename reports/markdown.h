// Building GitHub-flavoured Markdown from untrusted text. Every function
// passes its text through ReadableText first, so the output is valid UTF-8
// without control characters, and escapes it so that it renders as the text it
// is: no emphasis, links, raw HTML or broken tables from a message that
// happens to hold `*`, `<think>` or `|`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/result.h"

namespace llmconform::reports {

// Inline text, safe in a paragraph and in a table cell: Markdown punctuation
// backslash-escaped, line breaks as <br>. With `at_line_start`, also what
// would make a heading or a list item of a paragraph's first characters.
std::string MarkdownText(std::string_view text, bool at_line_start = false);

// A code span (`rule.id`), with as many backticks as it needs; line breaks
// become spaces.
std::string MarkdownCode(std::string_view text);

// A fenced code block ending in a newline: the fence is longer than any run
// of backticks in the text, `info` (e.g. "text") follows the opening fence.
std::string MarkdownFence(std::string_view text, std::string_view info);

// An outcome's emoji, for scanning a table by eye: ✅ ❌ ⏭️ ⚠️.
std::string_view OutcomeEmoji(Outcome o);
// The emoji and the name: "✅ pass", "❌ fail", "⏭️ skip", "⚠️ error".
std::string MarkdownOutcome(Outcome o);

enum class Align { kLeft, kRight };

// A pipe table. Cells are written as given (build them with MarkdownText or
// MarkdownCode); `align` holds one entry a column, missing entries are left.
std::string MarkdownTable(const std::vector<std::string>& header, const std::vector<Align>& align,
                          const std::vector<std::vector<std::string>>& rows);

}  // namespace llmconform::reports
