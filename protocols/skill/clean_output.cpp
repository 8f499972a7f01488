#include "protocols/skill/clean_output.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "base/utf8.h"
#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

constexpr char kEsc = '\x1b';
constexpr char kBel = '\x07';

constexpr bool InRange(char c, unsigned lo, unsigned hi) {
  const auto u = static_cast<unsigned char>(c);
  return u >= lo && u <= hi;
}

// The 8-bit control (C1, U+0080–U+009F) whose UTF-8 encoding (C2 80–C2 9F)
// starts at `t[i]`, as the byte of its 7-bit form's final (ESC + 0x40–0x5F),
// or 0 when there is none.
char C1At(std::string_view t, std::size_t i) {
  if (i + 1 >= t.size() || t[i] != '\xc2' || !InRange(t[i + 1], 0x80, 0x9F)) return 0;
  return static_cast<char>(static_cast<unsigned char>(t[i + 1]) - 0x40);
}

// The end of a CSI's parameters, intermediates and final byte from `j`.
std::size_t CsiEnd(std::string_view t, std::size_t j) {
  const std::size_t n = t.size();
  while (j < n && InRange(t[j], 0x30, 0x3F)) ++j;
  while (j < n && InRange(t[j], 0x20, 0x2F)) ++j;
  if (j < n && InRange(t[j], 0x40, 0x7E)) ++j;
  return j;
}

// The end of a control string's body from `j`: up to BEL, ESC \ or the 8-bit
// ST (included), a lone ESC (excluded) or the end of the line (kept).
std::size_t ControlStringEnd(std::string_view t, std::size_t j) {
  const std::size_t n = t.size();
  while (j < n) {
    if (t[j] == kBel) return j + 1;
    if (t[j] == '\n') return j;
    if (t[j] == kEsc) return j + 1 < n && t[j + 1] == '\\' ? j + 2 : j;
    if (const char c1 = C1At(t, j)) return c1 == '\\' ? j + 2 : j;
    ++j;
  }
  return j;
}

constexpr bool IsControlStringIntroducer(char b) {  // OSC, DCS, SOS, PM, APC
  return b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_';
}

// Where the escape sequence starting at `i` — an ESC, or a C1 control in
// UTF-8 — ends (one past it).
std::size_t EscapeEnd(std::string_view t, std::size_t i) {
  if (const char c1 = C1At(t, i)) {  // the 8-bit form of ESC + c1
    if (c1 == '[') return CsiEnd(t, i + 2);
    if (IsControlStringIntroducer(c1)) return ControlStringEnd(t, i + 2);
    return i + 2;  // any other C1 control, on its own
  }
  const std::size_t n = t.size();
  std::size_t j = i + 1;
  if (j >= n) return j;
  const char b = t[j];
  if (b == '[') return CsiEnd(t, j + 1);
  if (IsControlStringIntroducer(b)) return ControlStringEnd(t, j + 1);
  if (InRange(b, 0x20, 0x2F)) {  // nF: intermediates, then a final byte
    while (j < n && InRange(t[j], 0x20, 0x2F)) ++j;
    if (j < n && InRange(t[j], 0x30, 0x7E)) ++j;
    return j;
  }
  if (InRange(b, 0x30, 0x7E)) return j + 1;  // Fp, Fe, Fs: two bytes
  return j;                                  // a lone ESC
}

// The first ESC or C1 control at or after `from`, or t.size().
std::size_t NextEscape(std::string_view t, std::size_t from) {
  for (std::size_t i = from; i < t.size(); ++i) {
    if (t[i] == kEsc || C1At(t, i) != 0) return i;
  }
  return t.size();
}

// The text without escape sequences; `storage` holds it when anything was removed.
std::string_view StripEscapes(std::string_view raw, std::string& storage) {
  std::size_t i = NextEscape(raw, 0);
  if (i == raw.size()) return raw;
  storage.reserve(raw.size());
  std::size_t copied = 0;
  while (i < raw.size()) {
    storage.append(raw.data() + copied, i - copied);
    // A lead byte C2 cut off by the sequence is no character and goes with
    // it, so that no C1 control forms across the gap (cleaning stays
    // idempotent).
    while (!storage.empty() && storage.back() == '\xc2') storage.pop_back();
    copied = std::min(EscapeEnd(raw, i), raw.size());
    i = NextEscape(raw, copied);
  }
  storage.append(raw.data() + copied, raw.size() - copied);
  return storage;
}

constexpr bool IsWordish(char c) {  // [\w.-]
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

std::size_t TerminalPromptLength(std::string_view line) {
  const std::size_t n = line.size();
  if (n >= 3 && ((line[0] >= 'a' && line[0] <= 'z') || (line[0] >= 'A' && line[0] <= 'Z')) &&
      line[1] == ':' && line[2] == '\\') {
    const std::size_t gt = line.find('>', 3);
    return gt == std::string_view::npos ? 0 : gt + 1;
  }
  std::size_t i = 0;
  while (i < n && IsWordish(line[i])) ++i;
  if (i == 0 || i >= n || line[i] != '@') return 0;
  const std::size_t host = ++i;
  while (i < n && IsWordish(line[i])) ++i;
  if (i == host || i >= n || line[i] != ':') return 0;
  const std::size_t end = line.find_first_of("$#>", i + 1);
  return end == std::string_view::npos ? 0 : end + 1;
}

bool IsWindowsBannerLine(std::string_view line) {
  constexpr std::string_view kVersion = "Microsoft Windows [Version";
  if (line.starts_with(kVersion)) return line.find(']', kVersion.size()) != std::string_view::npos;
  return line.starts_with("(c) Microsoft Corporation");
}

namespace {

constexpr std::uint16_t Bit(CleanStep step) {
  return static_cast<std::uint16_t>(1U << static_cast<unsigned>(step));
}

// The length of the column (a code point, or one ill-formed subpart) at `i`.
std::size_t ColumnLength(std::string_view t, std::size_t i) {
  char32_t cp = 0;
  const std::size_t n = DecodeUtf8(t, i, cp);
  return n != 0 ? n : std::max<std::size_t>(1, MaximalSubpart(t, i));
}

// The line as a terminal shows it: each part after a CR written from column
// 0 over what was there (step 3). Built from the last part back: a part shows
// only in the columns past every later part.
std::string Overwritten(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  std::size_t columns = 0;  // of `out`
  std::size_t end = line.size();
  for (;;) {
    const std::size_t cr = end == 0 ? std::string_view::npos : line.rfind('\r', end - 1);
    const std::size_t begin = cr == std::string_view::npos ? 0 : cr + 1;
    const std::string_view part = line.substr(begin, end - begin);
    std::size_t i = 0;
    for (std::size_t hidden = 0; i < part.size() && hidden < columns; ++hidden) {
      i += ColumnLength(part, i);
    }
    for (std::size_t k = i; k < part.size(); ++columns) k += ColumnLength(part, k);
    out.append(part.substr(i));
    if (cr == std::string_view::npos) return out;
    end = cr;
  }
}

// Whether `line` with its CRs left out is `shown`, without copying `line`.
bool EqualsWithoutCr(std::string_view line, std::string_view shown) {
  std::size_t j = 0;
  for (const char c : line) {
    if (c == '\r') continue;
    if (j == shown.size() || shown[j] != c) return false;
    ++j;
  }
  return j == shown.size();
}

// One line of output as it is sent: overwritten after CRs, trimmed, prompts
// removed; "" when dropped. `steps` gets what acted on it.
std::string_view CleanLine(std::string_view line, std::string& scratch, std::uint16_t& steps) {
  if (std::memchr(line.data(), '\r', line.size()) != nullptr) {
    std::string_view head = line;
    while (!head.empty() && head.back() == '\r') head.remove_suffix(1);
    if (std::memchr(head.data(), '\r', head.size()) == nullptr) {
      // Only CRs at the end (CRLF): they hide nothing, and no two writes meet.
      line = head;
    } else {
      const std::string shown = Overwritten(line);
      // Where two writes meet, a C1 control may form: escapes go again.
      std::string stripped;
      scratch.assign(StripEscapes(shown, stripped));
      // Only an overwrite is reported, not a CR that hides nothing.
      if (!EqualsWithoutCr(line, scratch)) steps |= Bit(CleanStep::kCarriageReturn);
      line = scratch;
    }
  }
  const std::size_t before = line.size();
  line = TrimLeft(line);
  while (const std::size_t prompt = TerminalPromptLength(line)) {
    steps |= Bit(CleanStep::kPrompt);
    line = TrimLeft(line.substr(prompt));
  }
  line = TrimRight(line);
  if (line.size() != before && !(steps & Bit(CleanStep::kPrompt))) steps |= Bit(CleanStep::kTrim);
  if (IsWindowsBannerLine(line)) {
    steps |= Bit(CleanStep::kBanner);
    return {};
  }
  if (line.empty()) steps |= Bit(CleanStep::kEmptyLine);
  return line;
}

// The cleaning; `trace` (when given) gets what each step did.
std::string Clean(std::string_view raw, std::string_view last_command, CleanTrace* trace) {
  if (trace) *trace = CleanTrace{};
  if (raw.empty()) {
    if (trace) trace->no_output = true;
    return std::string(kNoOutput);
  }
  const std::string_view echo = Trim(last_command);

  std::string out;
  out.reserve(raw.size() + 1);  // never outgrown: `seen` points into it
  std::unordered_set<std::string_view> seen;
  std::string stripped, scratch;
  bool first = true;
  std::size_t lines_out = 0;
  std::size_t pos = 0;
  while (pos <= raw.size()) {
    const char* nl =
        static_cast<const char*>(std::memchr(raw.data() + pos, '\n', raw.size() - pos));
    const std::size_t end = nl == nullptr ? raw.size() : static_cast<std::size_t>(nl - raw.data());
    // No escape sequence spans an LF (step 2), so lines are stripped one by one.
    stripped.clear();
    const std::string_view raw_line = raw.substr(pos, end - pos);
    const std::string_view bare = StripEscapes(raw_line, stripped);
    CleanedLine traced;
    if (bare.size() != raw_line.size()) traced.steps |= Bit(CleanStep::kEscape);
    const std::string_view line = CleanLine(bare, scratch, traced.steps);
    pos = end + 1;
    bool keep = !line.empty();
    if (keep && first) {
      first = false;
      if (!echo.empty() && line == echo) {
        traced.steps |= Bit(CleanStep::kEcho);
        keep = false;
      } else if (!echo.empty() && line.starts_with(echo)) {
        traced.steps |= Bit(CleanStep::kEchoPrefix);
      }
    }
    if (keep && seen.contains(line)) {
      traced.steps |= Bit(CleanStep::kRepeat);
      keep = false;
    }
    if (keep) {
      if (!out.empty()) out.push_back('\n');
      const std::size_t at = out.size();
      out.append(line);
      seen.insert(std::string_view(out).substr(at));
      traced.output_line = lines_out++;
    }
    if (trace) trace->lines.push_back(traced);
  }
  if (out.empty()) {
    if (trace) trace->no_output = true;
    return std::string(kNoOutput);
  }
  return out;
}

}  // namespace

std::string StripTerminalEscapes(std::string_view text) {
  std::string storage;
  return std::string(StripEscapes(text, storage));
}

std::string CleanOutputForAI(std::string_view raw, std::string_view last_command) {
  return Clean(raw, last_command, nullptr);
}

std::string CleanOutputForAI(std::string_view raw, std::string_view last_command,
                             CleanTrace& trace) {
  return Clean(raw, last_command, &trace);
}

namespace {

// By CleanStep: its name, and the rule of specs/skill/rules.json it applies.
constexpr std::string_view kCleanStepNames[kCleanStepCount] = {
    "escape", "carriage-return", "trim",   "prompt",   "banner", "empty-line",
    "echo",   "echo-prefix",     "repeat", "no-output"};
constexpr std::string_view kCleanStepRules[kCleanStepCount] = {
    "SKILL-CLEAN-2", "SKILL-CLEAN-5", "SKILL-CLEAN-5", "SKILL-CLEAN-3", "SKILL-CLEAN-4",
    "SKILL-CLEAN-5", "SKILL-CLEAN-6", "SKILL-CLEAN-6", "SKILL-CLEAN-7", "SKILL-CLEAN-8"};

}  // namespace

std::string_view CleanStepName(CleanStep step) {
  return kCleanStepNames[static_cast<std::size_t>(step)];
}

std::string_view CleanStepRule(CleanStep step) {
  return kCleanStepRules[static_cast<std::size_t>(step)];
}

}  // namespace llmconform::skill
