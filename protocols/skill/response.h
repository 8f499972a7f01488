// parseSkillResponse (seed 000 §5; docs/protocols.md "skill"): the lenient parser
// of an assistant reply. It returns a result for any input and never fails;
// the strict reply rules are reply_rules.h's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace llmconform::skill {

enum class ReplyType { kCmd, kAsk, kMessage, kDone, kUnknown };

std::string_view ReplyTypeName(ReplyType type);  // "CMD" | "ASK" | "MESSAGE" | "DONE" | "UNKNOWN"

// The §5 result. `content` is what the session sends back as the assistant
// message. Which of the other fields is meaningful depends on `type`:
// CMD → command; ASK → question, required; MESSAGE and DONE → message;
// UNKNOWN → error.
struct ParsedReply {
  ReplyType type = ReplyType::kUnknown;
  std::string content;
  std::string command;
  std::string question;
  bool required = false;
  std::string message;
  std::string error;

  friend bool operator==(const ParsedReply&, const ParsedReply&) = default;
};

inline constexpr std::string_view kSkillCompleted = "Skill completed";
inline constexpr std::string_view kEmptyReplyError = "Empty or invalid AI response";

// The reply is trimmed (Unicode white space and the BOM, as everywhere text
// is trimmed here: wire/unicode_space.h) and becomes `content`. Tags are
// looked for case-insensitively (ASCII) at the start of any line — position 0
// or right after LF or CR — in priority order [CMD], [ASK:optional], [ASK],
// [MESSAGE], [DONE]; the first tag of that order that occurs with text after it
// decides, at its first such occurrence:
//   [CMD]: whitespace (line ends included) is skipped, then the rest of that
//     line is the command. A command opening a code fence ("```bash") is the
//     fence's content: the lines up to the closing fence line, or — for a
//     fence never closed — up to the first line that starts with a tag, or the
//     end of the text; a fence opened and closed on one line ("```ls```")
//     yields what is between, all of it ("```bash ls```" → "bash ls": a
//     one-line fence has no info string, docs/decisions.md); a lone closing
//     "```" at the end of a one-line command is dropped.
//   [ASK:optional] / [ASK]: everything after the tag to the end of the text
//     is the question; required is false / true.
//   [MESSAGE]: everything after the tag is the message.
//   [DONE]: everything after the tag is the message, "Skill completed" when
//     there is nothing (the only tag that may stand alone).
// Captured text is trimmed. With no tag, the first line is the command (fences
// as above) and content becomes "[CMD] <command>". An empty reply, an empty
// command, or a reply that is nothing but a bare tag ("[ASK]") is UNKNOWN with
// error "Empty or invalid AI response" and content the trimmed reply.
ParsedReply ParseSkillResponse(std::string_view reply);

// The decisions of the parse, as the reference reports them (for the
// differential tester: which step decided a case, and which rules the cases
// reached). Each names its rule of specs/skill/rules.json.
enum class ParseStep : std::uint8_t {
  kCmdTag,          // [CMD] decided (SKILL-PARSE-1)
  kAskTag,          // [ASK] decided (SKILL-PARSE-2)
  kAskOptionalTag,  // [ASK:optional] decided (SKILL-PARSE-3)
  kMessageTag,      // [MESSAGE] decided (SKILL-PARSE-4)
  kDoneTag,         // [DONE] decided (SKILL-PARSE-5)
  kNoTag,           // no tag: the first line is the command (SKILL-PARSE-6)
  kUnknown,         // an empty reply, command or bare tag: UNKNOWN (SKILL-PARSE-6)
  kTagCase,         // the deciding tag written in another case (SKILL-PARSE-7)
  kTagLaterLine,    // the deciding tag at a later line's start (SKILL-PARSE-7)
  kFence,           // the command is a code fence's content (SKILL-PARSE-8)
};
inline constexpr std::size_t kParseStepCount = 10;
std::string_view ParseStepName(ParseStep step);  // "cmd-tag", "tag-case", "fence", …
std::string_view ParseStepRule(ParseStep step);  // "SKILL-PARSE-1", …

struct ParseTrace {
  std::uint16_t steps = 0;  // bit 1 << ParseStep of each step taken
  bool Has(ParseStep step) const { return (steps >> static_cast<unsigned>(step)) & 1U; }
};

// ParseSkillResponse, reporting in `trace` (cleared first) the steps it took.
ParsedReply ParseSkillResponse(std::string_view reply, ParseTrace& trace);

// The §5 result object: {"type","content", and "command" | "question" +
// "required" | "message" | "error"}.
nlohmann::json ToJson(const ParsedReply& reply);

}  // namespace llmconform::skill
