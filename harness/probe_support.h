// Text helpers shared by the probe's judging (harness/probe.cpp) and its run
// (harness/probe_run.cpp). Internal to the harness.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "harness/probe.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness::probe_support {

// At most `max` bytes of `text` as one readable line: valid UTF-8, control
// characters escaped, "…" when cut.
std::string Snippet(std::string_view text, std::size_t max = 80);
// Snippet(text) in double quotes.
std::string Quoted(std::string_view text);
// An error body's message, quoted, and its type: "\"slow down\" (type rate_limit)".
std::string ErrorText(const wire::ErrorBody& e);

// `text` with the API key `key` replaced by "[redacted]"; `text` itself when
// `key` is empty. A key of kWholeKeyBytes or more is replaced wherever it
// occurs. A shorter one (a placeholder such as `x` or `ollama`, which local
// servers accept) could be a piece of any word, so it is replaced only where it
// stands alone: not next to a letter, digit, '-' or '_'. Used on what the probe
// prints or records, never on a reply before it is judged.
inline constexpr std::size_t kWholeKeyBytes = 16;
std::string ScrubKey(std::string text, std::string_view key);

// Whether the reply's content-type is text/event-stream.
bool IsStream(const ProbeReply& reply);

// Judges the reply `body` to `item` of a surface other than Chat, read by that
// surface's reader; `r` holds the reply's status, streamed flag and DIA-*
// deviations, to which the reader's contract findings are added.
ProbeItemResult JudgeSurface(const ProbeItem& item, const std::string& body, ProbeItemResult r);

}  // namespace llmconform::harness::probe_support
