// Text helpers shared by the probe's judging (harness/probe.cpp) and its run
// (harness/probe_run.cpp). Internal to the harness.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "harness/probe.h"

namespace llmconform::harness::probe_support {

// At most `max` bytes of `text` as one readable line: valid UTF-8, control
// characters escaped, "…" when cut.
std::string Snippet(std::string_view text, std::size_t max = 80);

// `text` with every occurrence of `secret` replaced by "[redacted]"; `text`
// itself when `secret` is empty.
std::string ReplaceAll(std::string text, std::string_view secret);

// Whether the reply's content-type is text/event-stream.
bool IsStream(const ProbeReply& reply);

// Judges the reply `body` to `item` of a surface other than Chat, read by that
// surface's reader; `r` holds the reply's status, streamed flag and DIA-*
// deviations, to which the reader's contract findings are added.
ProbeItemResult JudgeSurface(const ProbeItem& item, const std::string& body, ProbeItemResult r);

}  // namespace llmconform::harness::probe_support
