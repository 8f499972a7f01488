#include "protocols/skill/clean_output.h"

#include <cstring>
#include <unordered_set>

#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

constexpr char kEsc = '\x1b';
constexpr char kBel = '\x07';

constexpr bool InRange(char c, unsigned lo, unsigned hi) {
  const auto u = static_cast<unsigned char>(c);
  return u >= lo && u <= hi;
}

// Where the escape sequence starting with the ESC at `i` ends (one past it).
std::size_t EscapeEnd(std::string_view t, std::size_t i) {
  const std::size_t n = t.size();
  std::size_t j = i + 1;
  if (j >= n) return j;
  const char b = t[j];
  if (b == '[') {  // CSI
    ++j;
    while (j < n && InRange(t[j], 0x30, 0x3F)) ++j;
    while (j < n && InRange(t[j], 0x20, 0x2F)) ++j;
    if (j < n && InRange(t[j], 0x40, 0x7E)) ++j;
    return j;
  }
  if (b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_') {  // OSC, DCS, SOS, PM, APC
    ++j;
    while (j < n) {
      if (t[j] == kBel) return j + 1;
      if (t[j] == '\n') return j;
      if (t[j] == kEsc) return j + 1 < n && t[j + 1] == '\\' ? j + 2 : j;
      ++j;
    }
    return j;
  }
  if (InRange(b, 0x20, 0x2F)) {  // nF: intermediates, then a final byte
    while (j < n && InRange(t[j], 0x20, 0x2F)) ++j;
    if (j < n && InRange(t[j], 0x30, 0x7E)) ++j;
    return j;
  }
  if (InRange(b, 0x30, 0x7E)) return j + 1;  // Fp, Fe, Fs: two bytes
  return j;                                  // a lone ESC
}

// The text without escape sequences; `storage` holds it when anything was removed.
std::string_view StripEscapes(std::string_view raw, std::string& storage) {
  const char* esc = static_cast<const char*>(std::memchr(raw.data(), kEsc, raw.size()));
  if (esc == nullptr) return raw;
  storage.reserve(raw.size());
  std::size_t copied = 0;
  std::size_t i = static_cast<std::size_t>(esc - raw.data());
  while (true) {
    storage.append(raw.data() + copied, i - copied);
    copied = EscapeEnd(raw, i);
    if (copied >= raw.size()) break;
    esc = static_cast<const char*>(std::memchr(raw.data() + copied, kEsc, raw.size() - copied));
    if (esc == nullptr) {
      storage.append(raw.data() + copied, raw.size() - copied);
      break;
    }
    i = static_cast<std::size_t>(esc - raw.data());
  }
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

// One line of output as it is sent: no CR, trimmed, prompts removed; "" when dropped.
std::string_view CleanLine(std::string_view line, std::string& scratch) {
  if (std::memchr(line.data(), '\r', line.size()) != nullptr) {
    scratch.clear();
    for (char c : line) {
      if (c != '\r') scratch.push_back(c);
    }
    line = scratch;
  }
  line = TrimLeft(line);
  while (const std::size_t prompt = TerminalPromptLength(line))
    line = TrimLeft(line.substr(prompt));
  line = TrimRight(line);
  if (IsWindowsBannerLine(line)) return {};
  return line;
}

}  // namespace

std::string StripTerminalEscapes(std::string_view text) {
  std::string storage;
  return std::string(StripEscapes(text, storage));
}

std::string CleanOutputForAI(std::string_view raw, std::string_view last_command) {
  if (raw.empty()) return std::string(kNoOutput);
  std::string stripped;
  const std::string_view text = StripEscapes(raw, stripped);
  const std::string_view echo = Trim(last_command);

  std::string out;
  out.reserve(text.size() + 1);  // never outgrown: `seen` points into it
  std::unordered_set<std::string_view> seen;
  std::string scratch;
  bool first = true;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const char* nl =
        static_cast<const char*>(std::memchr(text.data() + pos, '\n', text.size() - pos));
    const std::size_t end =
        nl == nullptr ? text.size() : static_cast<std::size_t>(nl - text.data());
    const std::string_view line = CleanLine(text.substr(pos, end - pos), scratch);
    pos = end + 1;
    if (line.empty()) continue;
    if (first) {
      first = false;
      if (!echo.empty() && line == echo) continue;
    }
    if (seen.contains(line)) continue;
    if (!out.empty()) out.push_back('\n');
    const std::size_t at = out.size();
    out.append(line);
    seen.insert(std::string_view(out).substr(at));
  }
  if (out.empty()) return std::string(kNoOutput);
  return out;
}

}  // namespace llmconform::skill
