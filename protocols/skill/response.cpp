#include "protocols/skill/response.h"

#include <array>
#include <cstdint>
#include <optional>

#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

constexpr std::string_view kFence = "```";

enum class Tag { kCmd, kAskOptional, kAsk, kMessage, kDone };

struct TagSpelling {
  Tag tag;
  std::string_view text;
};

// Priority order (docs/protocols.md): the more specific [ASK:optional] before [ASK].
constexpr std::array<TagSpelling, 5> kTagSpellings{{{Tag::kCmd, "[CMD]"},
                                                    {Tag::kAskOptional, "[ASK:optional]"},
                                                    {Tag::kAsk, "[ASK]"},
                                                    {Tag::kMessage, "[MESSAGE]"},
                                                    {Tag::kDone, "[DONE]"}}};

// Where the line holding `pos` ends (the first CR or LF at or after it).
std::size_t LineEnd(std::string_view text, std::size_t pos) {
  while (pos < text.size() && !IsLineEnd(text[pos])) ++pos;
  return pos;
}

// Where the line after the one ending at `end` starts (CRLF counts as one end).
std::size_t NextLine(std::string_view text, std::size_t end) {
  if (end >= text.size()) return text.size();
  if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') return end + 2;
  return end + 1;
}

// Whether `line` starts with one of the protocol tags (ASCII case ignored).
bool StartsWithTag(std::string_view line);

constexpr std::uint16_t Bit(ParseStep step) {
  return static_cast<std::uint16_t>(1U << static_cast<unsigned>(step));
}

// The command that starts at `start` (a non-space byte) in `text`: the rest of
// the line, or a code fence's content (`steps` gets kFence).
std::string ExtractCommand(std::string_view text, std::size_t start, std::uint16_t& steps) {
  const std::size_t end = LineEnd(text, start);
  std::string_view line = TrimRight(text.substr(start, end - start));
  if (line.starts_with(kFence)) {
    steps |= Bit(ParseStep::kFence);
    const std::string_view inner = line.substr(kFence.size());
    if (const std::size_t close = inner.rfind(kFence); close != std::string_view::npos) {
      return std::string(Trim(inner.substr(0, close)));  // ```ls```
    }
    // An opening fence line ("```" + info string): the lines up to the closing
    // fence, or up to a line starting with a tag when the fence is never closed.
    const std::size_t body = NextLine(text, end);
    std::size_t pos = body;
    while (pos < text.size()) {
      const std::size_t line_end = LineEnd(text, pos);
      const std::string_view fence_line = text.substr(pos, line_end - pos);
      if (TrimLeft(fence_line).starts_with(kFence) || StartsWithTag(fence_line)) break;
      pos = NextLine(text, line_end);
    }
    return std::string(Trim(text.substr(body, std::min(pos, text.size()) - body)));
  }
  if (line.ends_with(kFence)) line = TrimRight(line.substr(0, line.size() - kFence.size()));
  return std::string(line);
}

ParsedReply Unknown(std::string content) {
  ParsedReply r;
  r.type = ReplyType::kUnknown;
  r.content = std::move(content);
  r.error = std::string(kEmptyReplyError);
  return r;
}

// The first occurrence of `tag` at a line start with text after it (any
// occurrence for [DONE]); returns the offset right after the tag.
std::optional<std::size_t> FindTag(std::string_view text, const TagSpelling& tag) {
  std::size_t line = 0;
  while (line < text.size()) {
    if (StartsWithNoCase(text.substr(line), tag.text)) {
      const std::size_t after = line + tag.text.size();
      if (tag.tag == Tag::kDone || !TrimLeft(text.substr(after)).empty()) return after;
    }
    const std::size_t end = LineEnd(text, line);
    if (end >= text.size()) break;
    line = end + 1;  // after CR and after LF, as a JavaScript /m anchor
  }
  return std::nullopt;
}

bool StartsWithTag(std::string_view line) {
  for (const auto& t : kTagSpellings) {
    if (StartsWithNoCase(line, t.text)) return true;
  }
  return false;
}

bool IsBareTag(std::string_view line) {
  for (const auto& t : kTagSpellings) {
    if (line.size() == t.text.size() && StartsWithNoCase(line, t.text)) return true;
  }
  return false;
}

}  // namespace

std::string_view ReplyTypeName(ReplyType type) {
  switch (type) {
    case ReplyType::kCmd:
      return "CMD";
    case ReplyType::kAsk:
      return "ASK";
    case ReplyType::kMessage:
      return "MESSAGE";
    case ReplyType::kDone:
      return "DONE";
    case ReplyType::kUnknown:
      break;
  }
  return "UNKNOWN";
}

namespace {

// By Tag: the step of its decision.
constexpr ParseStep kTagSteps[] = {ParseStep::kCmdTag, ParseStep::kAskOptionalTag,
                                   ParseStep::kAskTag, ParseStep::kMessageTag, ParseStep::kDoneTag};

ParsedReply Parse(std::string_view reply, std::uint16_t& steps) {
  const std::string_view text = Trim(reply);
  for (const auto& tag : kTagSpellings) {
    const auto after = FindTag(text, tag);
    if (!after) continue;
    const std::size_t at = *after - tag.text.size();
    if (at > 0) steps |= Bit(ParseStep::kTagLaterLine);
    if (text.substr(at, tag.text.size()) != tag.text) steps |= Bit(ParseStep::kTagCase);
    const std::string_view rest = Trim(text.substr(*after));
    ParsedReply r;
    r.content = std::string(text);
    switch (tag.tag) {
      case Tag::kCmd:
        r.command = ExtractCommand(text, text.size() - TrimLeft(text.substr(*after)).size(), steps);
        if (r.command.empty()) break;
        steps |= Bit(ParseStep::kCmdTag);
        r.type = ReplyType::kCmd;
        return r;
      case Tag::kAskOptional:
      case Tag::kAsk:
        steps |= Bit(kTagSteps[static_cast<std::size_t>(tag.tag)]);
        r.type = ReplyType::kAsk;
        r.question = std::string(rest);
        r.required = tag.tag == Tag::kAsk;
        return r;
      case Tag::kMessage:
      case Tag::kDone:
        steps |= Bit(kTagSteps[static_cast<std::size_t>(tag.tag)]);
        r.type = tag.tag == Tag::kMessage ? ReplyType::kMessage : ReplyType::kDone;
        r.message = rest.empty() ? std::string(kSkillCompleted) : std::string(rest);
        return r;
    }
    steps |= Bit(ParseStep::kUnknown);  // [CMD] with an empty command
    return Unknown(std::move(r.content));
  }
  // No tag: the first line is the command.
  if (text.empty() || IsBareTag(TrimRight(text.substr(0, LineEnd(text, 0))))) {
    steps |= Bit(ParseStep::kUnknown);
    return Unknown(std::string(text));
  }
  ParsedReply r;
  r.command = ExtractCommand(text, 0, steps);
  if (r.command.empty()) {
    steps |= Bit(ParseStep::kUnknown);
    return Unknown(std::string(text));
  }
  steps |= Bit(ParseStep::kNoTag);
  r.type = ReplyType::kCmd;
  r.content = "[CMD] " + r.command;
  return r;
}

// By ParseStep: its name, and the rule of specs/skill/rules.json it applies.
constexpr std::string_view kParseStepNames[kParseStepCount] = {
    "cmd-tag", "ask-tag", "ask-optional-tag", "message-tag",    "done-tag",
    "no-tag",  "unknown", "tag-case",         "tag-later-line", "fence"};
constexpr std::string_view kParseStepRules[kParseStepCount] = {
    "SKILL-PARSE-1", "SKILL-PARSE-2", "SKILL-PARSE-3", "SKILL-PARSE-4", "SKILL-PARSE-5",
    "SKILL-PARSE-6", "SKILL-PARSE-6", "SKILL-PARSE-7", "SKILL-PARSE-7", "SKILL-PARSE-8"};

}  // namespace

ParsedReply ParseSkillResponse(std::string_view reply) {
  std::uint16_t steps = 0;
  return Parse(reply, steps);
}

ParsedReply ParseSkillResponse(std::string_view reply, ParseTrace& trace) {
  trace = ParseTrace{};
  return Parse(reply, trace.steps);
}

std::string_view ParseStepName(ParseStep step) {
  return kParseStepNames[static_cast<std::size_t>(step)];
}

std::string_view ParseStepRule(ParseStep step) {
  return kParseStepRules[static_cast<std::size_t>(step)];
}

nlohmann::json ToJson(const ParsedReply& reply) {
  nlohmann::json j{{"type", ReplyTypeName(reply.type)}, {"content", reply.content}};
  switch (reply.type) {
    case ReplyType::kCmd:
      j["command"] = reply.command;
      break;
    case ReplyType::kAsk:
      j["question"] = reply.question;
      j["required"] = reply.required;
      break;
    case ReplyType::kMessage:
    case ReplyType::kDone:
      j["message"] = reply.message;
      break;
    case ReplyType::kUnknown:
      j["error"] = reply.error;
      break;
  }
  return j;
}

}  // namespace llmconform::skill
