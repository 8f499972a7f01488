// cleanOutputForAI (seed 000 §4.2; docs/protocols.md "skill"): terminal output made
// fit to send to the model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
//     before a removed sequence (no character either) is removed with it: no
//     C1 control forms across a gap.
//  3. Per line (split at LF): a CR returns to the line's start and what
//     follows overwrites what was there, as a terminal shows it (docs/
//     protocols.md): "10%\r100%" is "100%", "abcdef\rXY" is "XYcdef", a
//     trailing CR (CRLF) changes nothing. A column is a code point, or one
//     ill-formed subpart (base/utf8.h); escapes of the overwritten line are
//     removed again, so no C1 control forms where two writes meet. Then the
//     line is trimmed of Unicode white space (text.h; a line of NBSPs or
//     U+3000 is empty); a terminal prompt at its start is removed with the
//     blanks after it, as often as one is there — Windows "X:\…>" (up to the
//     first '>') and POSIX "user@host:…$" ([A-Za-z0-9_.-]+ '@' [A-Za-z0-9_.-]+
//     ':' up to the first '$', '#' or '>') — keeping the rest of the line;
//     lines that then begin "Microsoft Windows [Version" (with a ']' after)
//     or "(c) Microsoft Corporation" are dropped, and so are empty lines. A
//     banner written over other text after a CR is still a banner.
//  4. The first remaining line is dropped when it equals `last_command`
//     trimmed (the terminal's echo). Only a whole line: "lsblk" output is not
//     cut by the echo "ls".
//  5. Repeated lines are dropped, keeping the first occurrence.
//  6. The lines are joined with LF; nothing left → "(no output)".
// Cleaning a cleaned text again (with no command) changes nothing.
std::string CleanOutputForAI(std::string_view raw, std::string_view last_command = {});

// The decisions of the cleaning, as the reference reports them (for the
// differential tester: which step decided a case, and which rules the cases
// reached). Each names its rule of specs/skill/rules.json.
enum class CleanStep : std::uint8_t {
  kEscape,          // step 2: an escape sequence removed (SKILL-CLEAN-2)
  kCarriageReturn,  // step 3: text overwritten after a CR (SKILL-CLEAN-5)
  kTrim,            // step 3: white space trimmed off the line (SKILL-CLEAN-5)
  kPrompt,          // step 3: a terminal prompt removed (SKILL-CLEAN-3)
  kBanner,          // step 3: a Windows banner line dropped (SKILL-CLEAN-4)
  kEmptyLine,       // step 3: an empty line dropped (SKILL-CLEAN-5)
  kEcho,            // step 4: the first line dropped as the command's echo (SKILL-CLEAN-6)
  kEchoPrefix,      // step 4: a first line kept that only begins with the command (SKILL-CLEAN-6)
  kRepeat,          // step 5: a repeated line dropped (SKILL-CLEAN-7)
  kNoOutput,        // steps 1, 6: the answer "(no output)" (SKILL-CLEAN-8)
};
inline constexpr std::size_t kCleanStepCount = 10;
std::string_view CleanStepName(CleanStep step);  // "carriage-return", "echo-prefix", …
std::string_view CleanStepRule(CleanStep step);  // "SKILL-CLEAN-5", …

// What the cleaning did to one line of the input (split at LF).
struct CleanedLine {
  std::uint16_t steps = 0;                 // bit 1 << CleanStep of each step that acted on the line
  std::optional<std::size_t> output_line;  // its line in the result; none when dropped
  bool Has(CleanStep step) const { return (steps >> static_cast<unsigned>(step)) & 1U; }
};
struct CleanTrace {
  std::vector<CleanedLine> lines;  // one per input line (none for an empty input)
  bool no_output = false;          // the answer is "(no output)"
};

// CleanOutputForAI, reporting in `trace` (cleared first) what each step did.
std::string CleanOutputForAI(std::string_view raw, std::string_view last_command,
                             CleanTrace& trace);

// The steps of the cleaning, for checks that judge other implementations' output:
// step 2 alone;
std::string StripTerminalEscapes(std::string_view text);
// the length of the terminal prompt at the start of `line` (step 3), 0 if none;
std::size_t TerminalPromptLength(std::string_view line);
// whether `line` is a Windows banner line (step 3).
bool IsWindowsBannerLine(std::string_view line);

}  // namespace llmconform::skill
