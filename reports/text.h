// Making arbitrary text safe to show. Messages and evidence carry whatever an
// implementation sent: invalid UTF-8, carriage returns, escape sequences that
// would drive a terminal, characters XML 1.0 forbids. Every human-readable
// renderer (console, Markdown, HTML, JUnit) passes such text through
// ReadableText first; the JSON renderers keep the text as it is (JSON escapes
// everything) and only replace invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace llmconform::reports {

// Valid UTF-8 with only printable characters, tab and LF: each ill-formed
// sequence (overlong forms, surrogates and code points past U+10FFFF
// included) becomes U+FFFD as base/utf8.h's ToValidUtf8 replaces it; CR, other C0 controls, DEL,
// C1 controls and the noncharacters U+FFFE/U+FFFF become visible escapes
// ("\r", "\u001b", "\u0085", "\ufffe"). Text that needs none of this is
// returned unchanged.
std::string ReadableText(std::string_view text);

// Only invalid UTF-8 replaced by U+FFFD (base/utf8.h), everything else kept.
std::string ValidUtf8(std::string_view text);

// & < > " ' as character references, for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);
// ReadableText, then HtmlEscape: results' text as HTML text.
std::string HtmlText(std::string_view text);

// A duration for people: "0 ms", "<1 ms", "840 ms", "1.25 s", "3 min 07 s".
std::string HumanDuration(double ms);

}  // namespace llmconform::reports
