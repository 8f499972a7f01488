// cleanOutputForAI (seed 000 §4.2; docs/protocols.md "skill"): terminal output made
// fit to send to the model.
#pragma once

#include <string>
#include <string_view>

namespace llmconform::skill {

inline constexpr std::string_view kNoOutput = "(no output)";

// In order:
//  1. "" → "(no output)".
//  2. Escape sequences are removed: CSI (ESC [ parameter bytes 0x30–0x3F,
//     intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E; a sequence cut
//     short loses what it had), OSC and the other string controls (ESC ] / P /
//     X / ^ / _ up to BEL, ESC \ or the end of the line, the line end kept),
//     and the short escapes (ESC, intermediates 0x20–0x2F, a final 0x30–0x7E).
//     Every ESC byte goes. The C1 controls U+0080–U+009F (in UTF-8, C2 80–C2
//     9F) are the 8-bit forms of ESC + 0x40–0x5F and go the same way: U+009B
//     is CSI, U+009D OSC, U+0090/98/9E/9F the other string controls, U+009C
//     (ST) ends a string, and every other C1 control is removed on its own. A
//     lone byte 0x80–0x9F is no character and is left alone; a byte C2 right
//     before a removed sequence (no character either) is removed with it, and
//     so in step 3 before a dropped CR: no C1 control forms across a gap.
//  3. Per line (split at LF): CR bytes are dropped; the line is trimmed of
//     Unicode white space (text.h; a line of NBSPs or U+3000 is empty); a
//     terminal prompt at its start is removed with the blanks after it, as
//     often as one is there — Windows "X:\…>" (up to the first '>') and
//     POSIX "user@host:…$" ([A-Za-z0-9_.-]+ '@' [A-Za-z0-9_.-]+ ':' up to the
//     first '$', '#' or '>') — keeping the rest of the line; lines that then
//     begin "Microsoft Windows [Version" (with a ']' after) or
//     "(c) Microsoft Corporation" are dropped, and so are empty lines.
//  4. The first remaining line is dropped when it equals `last_command`
//     trimmed (the terminal's echo). Only a whole line: "lsblk" output is not
//     cut by the echo "ls".
//  5. Repeated lines are dropped, keeping the first occurrence.
//  6. The lines are joined with LF; nothing left → "(no output)".
// Cleaning a cleaned text again (with no command) changes nothing.
std::string CleanOutputForAI(std::string_view raw, std::string_view last_command = {});

// The steps of the cleaning, for checks that judge other implementations' output:
// step 2 alone;
std::string StripTerminalEscapes(std::string_view text);
// the length of the terminal prompt at the start of `line` (step 3), 0 if none;
std::size_t TerminalPromptLength(std::string_view line);
// whether `line` is a Windows banner line (step 3).
bool IsWindowsBannerLine(std::string_view line);

}  // namespace llmconform::skill
