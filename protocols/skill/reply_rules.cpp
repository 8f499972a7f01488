#include "protocols/skill/reply_rules.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "base/format.h"
#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

constexpr std::array<std::string_view, 5> kTags{"[CMD]", "[ASK:optional]", "[ASK]", "[MESSAGE]",
                                                "[DONE]"};

// The tag `text` begins with, compared without case; the longest wins.
std::optional<std::string_view> TagAt(std::string_view text) {
  std::optional<std::string_view> found;
  for (std::string_view t : kTags) {
    if (StartsWithNoCase(text, t) && (!found || t.size() > found->size())) found = t;
  }
  return found;
}

// The first characters of `text` for a message, with line ends shown as \n.
std::string Excerpt(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    if (text[i] == '\n') {
      out += "\\n";
    } else if (text[i] == '\r') {
      out += "\\r";
    } else {
      out.push_back(text[i]);
    }
  }
  if (text.size() > kMax) out += "…";
  return out;
}

struct TagSite {
  std::size_t line;  // 1-based
  std::string_view spelled;
};

std::vector<TagSite> TagsAtLineStarts(std::string_view text) {
  std::vector<TagSite> sites;
  std::size_t line_no = 1;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    if (auto t = TagAt(text.substr(pos))) sites.push_back({line_no, text.substr(pos, t->size())});
    std::size_t end = pos;
    while (end < text.size() && !IsLineEnd(text[end])) ++end;
    if (end >= text.size()) break;
    if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
    pos = end + 1;
    ++line_no;
  }
  return sites;
}

}  // namespace

Findings CheckReply(std::string_view reply) {
  Findings findings;
  const std::optional<std::string_view> tag = TagAt(reply);
  if (!tag) {
    findings.push_back(
        {"SKILL-REPLY-1", Format("reply starts with \"{}\": expected one of [CMD], [ASK], "
                                 "[ASK:optional], [MESSAGE], [DONE] at position 0",
                                 Excerpt(reply))});
    return findings;  // the other rules are about the tag
  }
  const std::string_view spelled = reply.substr(0, tag->size());
  if (spelled != *tag) {
    findings.push_back(
        {"SKILL-REPLY-2", Format("tag spelled \"{}\": expected \"{}\"", spelled, *tag)});
  }
  const std::vector<TagSite> sites = TagsAtLineStarts(reply);
  if (sites.size() > 1) {
    std::string list;
    for (const auto& s : sites) {
      if (!list.empty()) list += ", ";
      list += Format("{} on line {}", s.spelled, s.line);
    }
    findings.push_back(
        {"SKILL-REPLY-3",
         Format("reply holds {} tags ({}): expected one format per reply", sites.size(), list)});
  }
  const std::string_view rest = Trim(reply.substr(tag->size()));
  if (*tag == "[CMD]" && !rest.empty()) {
    if (rest.find("```") != std::string_view::npos) {
      findings.push_back(
          {"SKILL-REPLY-4", "[CMD] reply holds a code fence: expected the bare command"});
    } else if (rest.find_first_of("\r\n") != std::string_view::npos) {
      findings.push_back(
          {"SKILL-REPLY-4",
           Format("[CMD] reply runs over several lines (\"{}\"): expected the command alone",
                  Excerpt(rest))});
    }
  }
  if (*tag != "[DONE]" && rest.empty()) {
    findings.push_back({"SKILL-REPLY-5", Format("{} has no text after it", *tag)});
  }
  return findings;
}

}  // namespace llmconform::skill
