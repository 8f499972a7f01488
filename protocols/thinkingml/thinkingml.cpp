#include "protocols/thinkingml/thinkingml.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory_resource>

#include "base/format.h"
#include "protocols/thinkingml/serp_queries.h"
#include "protocols/thinkingml/tag_lexer.h"
#include "protocols/thinkingml/xml_text.h"

namespace llmconform::thinkingml {
namespace {

enum class Name { kThink, kSerp, kThinking, kPhase, kTitle, kFinal };
constexpr std::size_t kNameCount = 6;
constexpr std::array<std::string_view, kNameCount> kNames = {"think", "serp",  "thinking",
                                                             "phase", "title", "final"};

std::string_view NameOf(Name n) { return kNames[static_cast<std::size_t>(n)]; }

std::optional<Name> AllowedName(std::string_view s) {
  // One candidate by length and first letters (this runs for every tag), then
  // one comparison.
  Name candidate;
  if (s.size() == 4) {
    candidate = Name::kSerp;
  } else if (s.size() == 8) {
    candidate = Name::kThinking;
  } else if (s.size() == 5 && s[0] == 't') {
    candidate = s[1] == 'h' ? Name::kThink : Name::kTitle;
  } else if (s.size() == 5 && s[0] == 'p') {
    candidate = Name::kPhase;
  } else if (s.size() == 5) {
    candidate = Name::kFinal;
  } else {
    return std::nullopt;
  }
  // A fixed-size compare per length: inlined, no libc call.
  const char* want = NameOf(candidate).data();
  const bool equal = s.size() == 4   ? std::memcmp(s.data(), want, 4) == 0
                     : s.size() == 5 ? std::memcmp(s.data(), want, 5) == 0
                                     : std::memcmp(s.data(), want, 8) == 0;
  if (!equal) return std::nullopt;
  return candidate;
}

// The allowed name `s` matches when case is ignored ("Title" → "title").
std::optional<std::string_view> CaseInsensitiveMatch(std::string_view s) {
  for (std::string_view n : kNames) {
    if (n.size() == s.size() && std::equal(n.begin(), n.end(), s.begin(), [](char a, char b) {
          return a == (b >= 'A' && b <= 'Z' ? static_cast<char>(b - 'A' + 'a') : b);
        })) {
      return n;
    }
  }
  return std::nullopt;
}

class Validator {
 public:
  // `want_parts`: fill Validation::parts; without, only the verdict is made.
  Validator(std::string_view text, bool want_parts) : text_(text), want_parts_(want_parts) {
    stack_.reserve(kInlineDepth);
    if (want_parts_) parts_.phases.reserve(4);
  }

  Validation Run();

 private:
  struct Open {
    Name name;
    std::size_t begin = 0;        // of the opening tag
    std::size_t inner_begin = 0;  // after it
    bool misplaced = false;       // reported where it opened; its content is not judged
    // <phase>
    std::optional<std::int64_t> id;
    bool has_title = false;
    bool text_before_title_reported = false;
    std::size_t after_title = 0;  // offset after </title>
    std::string_view title;       // its content, untrimmed
    // <thinking>
    int phases = 0;
  };

  void Add(std::string rule, std::size_t offset, std::string message) {
    findings_.push_back({std::move(rule), std::move(message), offset, {}});
  }
  std::string At(std::size_t offset) {
    if (!lines_) lines_.emplace(text_);
    const TextPosition p = lines_->PositionOf(offset);
    return Format("{}:{}", p.line, p.column);
  }
  std::string_view Raw(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
  // Counted, not searched: a reply of 40 000 unclosed tags is that deep, and
  // a search per tag would make it quadratic.
  bool InsideThinking() const { return OpenCount(Name::kThinking) > 0; }
  int& OpenCount(Name n) { return open_count_[static_cast<std::size_t>(n)]; }
  int OpenCount(Name n) const { return open_count_[static_cast<std::size_t>(n)]; }

  void OnText(std::size_t begin, std::size_t end);
  void OnOpen(const Token& t, Name n);
  void OnClose(const Token& t, Name n);
  void OnForbidden(const Token& t);
  void OpenTopLevel(const Token& t, Name n, Open& o);
  void OpenNested(const Token& t, Name n, Open& o);
  // Pops the top element; `inner_end` is where its content ends, `close_end`
  // after its closing tag (== inner_end when it was never closed).
  void Pop(std::size_t inner_end, std::size_t close_end);
  // A comment in the accepted <final> that mentions serp_queries: a block
  // before it is not the last one and is judged now (TML-4.8).
  void OnQueriesComment(const Token& t);
  // `comment`: the serp_queries comment the lexer found in it (absolute offsets).
  void CheckFinal(std::string_view content, std::size_t content_offset,
                  std::optional<std::pair<std::size_t, std::size_t>> comment);
  // TML-4.2 to TML-4.7 on one block of the content of <final>.
  SerpQueriesCheck CheckQueriesBlock(std::string_view content, std::size_t content_offset,
                                     const SerpQueriesBlock& block);

  std::string_view text_;
  bool want_parts_;
  std::optional<LineIndex> lines_;
  std::vector<ValidationFinding> findings_;
  Parts parts_;
  std::shared_ptr<const std::string> owned_final_;
  // The open elements live in the validator's own buffer: nesting is shallow
  // (the heap is used only past kInlineDepth levels), and a reply costs no
  // allocation for it.
  static constexpr std::size_t kInlineDepth = 8;
  alignas(Open) std::array<std::byte, kInlineDepth * sizeof(Open)> stack_buffer_;
  std::pmr::monotonic_buffer_resource stack_resource_{stack_buffer_.data(), stack_buffer_.size()};
  std::pmr::vector<Open> stack_{&stack_resource_};
  int misplaced_depth_ = 0;                   // open elements marked misplaced
  std::array<int, kNameCount> seen_{};        // top-level blocks opened, by name
  std::array<int, kNameCount> open_count_{};  // elements of stack_, by name
  bool thinking_closed_ = false;
  bool final_open_ = false;  // the accepted <final> is open
  // The last comment in the accepted <final> that mentions serp_queries, the
  // first one, and where the content of that <final> begins.
  std::optional<std::pair<std::size_t, std::size_t>> queries_comment_;
  std::size_t first_queries_comment_ = 0;
  std::size_t final_inner_begin_ = 0;
  std::size_t thinking_end_ = 0;  // after </thinking>
  bool text_after_thinking_reported_ = false;
  bool final_closed_ = false;
  // The last top-level tag: which block, and whether it was its closing tag.
  std::optional<Name> last_top_name_;
  bool last_top_closing_ = false;
  std::size_t last_top_offset_ = 0;
  std::int64_t last_phase_id_ = 0;
};

Validation Validator::Run() {
  if (Trim(text_) == kParsingErrorLiteral) {
    Add("TML-5.1", FirstNonSpace(text_),
        "the reply is <<ParsingError>>: the model reported that it could not produce a valid "
        "ThinkingML reply");
  } else {
    TagLexer lexer(text_);
    Token t;
    while (lexer.Next(t)) {
      switch (t.kind) {
        case TokenKind::kComment:
          if (final_open_ && MentionsSerpQueries(Raw(t))) OnQueriesComment(t);
          OnText(t.begin, t.end);
          break;
        case TokenKind::kText:
          OnText(t.begin, t.end);
          break;
        case TokenKind::kParsingError:
          Add("TML-2.3", t.begin,
              "<<ParsingError>> appears inside the reply; it may only be the whole output, alone");
          break;
        case TokenKind::kOpenTag:
        case TokenKind::kCloseTag:
          if (auto n = AllowedName(t.name)) {
            if (t.kind == TokenKind::kOpenTag) {
              OnOpen(t, *n);
            } else {
              OnClose(t, *n);
            }
          } else {
            OnForbidden(t);
          }
          break;
      }
    }
    while (!stack_.empty()) {
      const Open& o = stack_.back();
      Add("TML-1.1", o.begin,
          Format("<{}> opened at {} is never closed", NameOf(o.name), At(o.begin)));
      Pop(text_.size(), text_.size());
    }
    if (seen_[static_cast<std::size_t>(Name::kThinking)] == 0) {
      Add("TML-1.5", text_.size(), "the reply has no <thinking> block; exactly one is required");
    }
    if (seen_[static_cast<std::size_t>(Name::kFinal)] == 0) {
      Add("TML-1.6", text_.size(), "the reply has no <final> block; exactly one is required");
    }
  }
  std::stable_sort(
      findings_.begin(), findings_.end(),
      [](const ValidationFinding& a, const ValidationFinding& b) { return a.offset < b.offset; });
  if (!findings_.empty()) {
    if (!lines_) lines_.emplace(text_);
    for (auto& f : findings_) f.position = lines_->PositionOf(f.offset);
  }
  Validation v;
  v.valid = findings_.empty();
  v.findings = std::move(findings_);
  v.parts = std::move(parts_);
  v.owned_final = std::move(owned_final_);
  return v;
}

void Validator::OnText(std::size_t begin, std::size_t end) {
  if (misplaced_depth_ > 0) return;
  // Only text at the top level, directly in <thinking>, or in a phase before
  // its title is judged; the content of the other elements is free text.
  if (!stack_.empty()) {
    const Open& top = stack_.back();
    const bool judged =
        top.name == Name::kThinking ||
        (top.name == Name::kPhase && !top.has_title && !top.text_before_title_reported);
    if (!judged) return;
  }
  const std::size_t first = FirstNonSpace(text_.substr(begin, end - begin));
  if (first == std::string_view::npos) return;
  const std::size_t at = begin + first;
  const auto excerpt = [&] { return Excerpt(text_.substr(at, end - at)); };
  if (stack_.empty()) {
    if (final_closed_) {
      Add("TML-1.9", at,
          Format("text after </final>: \"{}\"; nothing may follow the <final> block", excerpt()));
    } else if (thinking_closed_ && last_top_name_ == Name::kThinking && last_top_closing_ &&
               seen_[static_cast<std::size_t>(Name::kFinal)] == 0) {
      text_after_thinking_reported_ = true;
      Add("TML-1.7", at,
          Format("</thinking> at {} is followed by text \"{}\"; <final> must come right after it",
                 At(last_top_offset_), excerpt()));
    } else {
      Add("TML-1.8", at,
          Format("text outside the blocks: \"{}\"; only whitespace may stand before, between and "
                 "after "
                 "<think>, <serp>, <thinking> and <final>",
                 excerpt()));
    }
    return;
  }
  Open& top = stack_.back();
  if (top.name == Name::kThinking) {
    Add("TML-3.6", at, Format("text \"{}\" inside <thinking> outside any <phase>", excerpt()));
  } else if (top.name == Name::kPhase && !top.has_title && !top.text_before_title_reported) {
    top.text_before_title_reported = true;
    Add("TML-3.4", at,
        Format("text \"{}\" before the <title> of the <phase> opened at {}; a phase starts with "
               "its <title>",
               excerpt(), At(top.begin)));
  }
}

void Validator::OnForbidden(const Token& t) {
  std::string hint;
  if (auto n = CaseInsensitiveMatch(t.name))
    hint = Format(" (tag names are case-sensitive: <{}>)", *n);
  Add("TML-2.1", t.begin,
      Format("tag \"{}\" is not allowed{}; only <think>, <serp>, <thinking>, <phase id=\"N\">, "
             "<title> and "
             "<final> may appear",
             Excerpt(Raw(t)), hint));
}

void Validator::OnOpen(const Token& t, Name n) {
  Open o{n, t.begin, t.end};
  if (n == Name::kPhase) {
    PhaseId pid = ParsePhaseId(t.attributes);
    if (!pid.problem.empty()) Add("TML-2.2", t.begin, std::move(pid.problem));
    o.id = pid.id;
  } else if (FirstNonSpace(t.attributes) != std::string_view::npos) {
    Add("TML-2.2", t.begin,
        Format("<{}> takes no attributes; found \"{}\"", NameOf(n), Excerpt(Raw(t))));
  }
  if (t.self_closing) {
    Add("TML-2.2", t.begin,
        Format("\"{}\" is self-closing; write <{}>…</{}>", Excerpt(Raw(t)), NameOf(n), NameOf(n)));
    return;
  }
  if (n == Name::kFinal && InsideThinking()) {
    if (misplaced_depth_ == 0) {
      Add("TML-1.11", t.begin,
          "<final> inside <thinking>; escape the literal as &lt;final&gt; or close </thinking> "
          "first");
    }
    return;  // a literal, not a tag
  }
  if (misplaced_depth_ > 0) {
    o.misplaced = true;
  } else if (stack_.empty()) {
    OpenTopLevel(t, n, o);
  } else {
    OpenNested(t, n, o);
  }
  if (o.misplaced) ++misplaced_depth_;
  if (n == Name::kFinal && !o.misplaced) final_open_ = true, final_inner_begin_ = t.end;
  ++OpenCount(o.name);
  stack_.push_back(std::move(o));
}

void Validator::OpenTopLevel(const Token& t, Name n, Open& o) {
  const auto seen = [&](Name k) { return seen_[static_cast<std::size_t>(k)] > 0; };
  const std::size_t at = t.begin;
  switch (n) {
    case Name::kThink:
      if (seen(Name::kThink)) {
        Add("TML-1.3", at, "a second <think> block; at most one is allowed");
        o.misplaced = true;
      } else if (seen(Name::kSerp) || seen(Name::kThinking) || seen(Name::kFinal)) {
        Add("TML-1.2", at, "<think> comes after another block; it must be the first block");
      }
      break;
    case Name::kSerp:
      if (seen(Name::kSerp)) {
        Add("TML-1.4", at, "a second <serp> block; at most one is allowed");
        o.misplaced = true;
      } else if (seen(Name::kThinking) || seen(Name::kFinal)) {
        Add("TML-1.2", at,
            "<serp> comes after <thinking> or <final>; it must come before <thinking>");
      }
      break;
    case Name::kThinking:
      if (seen(Name::kThinking)) {
        Add("TML-1.5", at, "a second <thinking> block; exactly one is required");
        o.misplaced = true;
      } else if (seen(Name::kFinal)) {
        Add("TML-1.2", at,
            "<thinking> comes after <final>; the order is <think>, <serp>, <thinking>, <final>");
      }
      break;
    case Name::kFinal:
      if (seen(Name::kFinal)) {
        Add("TML-1.6", at, "a second <final> block; exactly one is required");
        o.misplaced = true;
      } else if (thinking_closed_ && !text_after_thinking_reported_) {
        const std::string_view between = text_.substr(thinking_end_, at - thinking_end_);
        if (const std::size_t first = FirstNonSpace(between); first != std::string_view::npos) {
          Add("TML-1.7", at,
              Format("<final> does not come right after </thinking>; \"{}\" at {} stands between",
                     Excerpt(Trim(between)), At(thinking_end_ + first)));
        }
      }
      break;
    case Name::kPhase:
    case Name::kTitle:
      Add("TML-1.2", at, Format("<{}> outside <thinking>", NameOf(n)));
      o.misplaced = true;
      break;
  }
  ++seen_[static_cast<std::size_t>(n)];
  last_top_name_ = n;
  last_top_closing_ = false;
  last_top_offset_ = at;
}

void Validator::OpenNested(const Token& t, Name n, Open& o) {
  Open& parent = stack_.back();
  const std::size_t at = t.begin;
  switch (parent.name) {
    case Name::kThink:
    case Name::kSerp:
    case Name::kFinal:
      Add("TML-1.10", at,
          Format("<{}> inside <{}>; <{}> holds {} only", NameOf(n), NameOf(parent.name),
                 NameOf(parent.name),
                 parent.name == Name::kFinal ? "Markdown text" : "plain text"));
      o.misplaced = true;
      break;
    case Name::kThinking:
      if (n != Name::kPhase) {
        Add("TML-3.6", at,
            Format("<{}> directly inside <thinking>; only <phase> elements may stand there",
                   NameOf(n)));
        o.misplaced = true;
      } else {
        ++parent.phases;
        if (o.id) {
          if (*o.id != last_phase_id_ + 1) {
            Add("TML-3.2", at,
                Format("phase id {} where {} was expected; ids go 1, 2, 3, … in order", *o.id,
                       last_phase_id_ + 1));
          }
          last_phase_id_ = *o.id;
        }
      }
      break;
    case Name::kPhase:
      if (n != Name::kTitle) {
        Add("TML-3.5", at,
            Format("<{}> inside the <phase> opened at {}; a phase holds its <title> and then plain "
                   "text only",
                   NameOf(n), At(parent.begin)));
        o.misplaced = true;
      } else if (parent.has_title) {
        Add("TML-3.3", at,
            Format("a second <title> in the <phase> opened at {}; exactly one is required",
                   At(parent.begin)));
        o.misplaced = true;
      } else {
        parent.has_title = true;
      }
      break;
    case Name::kTitle:
      Add("TML-3.7", at, Format("<{}> inside <title>; a title holds plain text only", NameOf(n)));
      o.misplaced = true;
      break;
  }
}

void Validator::OnClose(const Token& t, Name n) {
  if (FirstNonSpace(t.attributes) != std::string_view::npos) {
    Add("TML-2.2", t.begin,
        Format("a closing tag takes no attributes; found \"{}\"", Excerpt(Raw(t))));
  }
  if (n == Name::kFinal && InsideThinking()) {
    if (misplaced_depth_ == 0) {
      Add("TML-1.11", t.begin, "</final> inside <thinking>; escape the literal as &lt;/final&gt;");
    }
    return;
  }
  // Searched only when one is open: what is above it is then popped, so the
  // searches cost no more than the pushes.
  auto match = OpenCount(n) == 0 ? stack_.rend()
                                 : std::find_if(stack_.rbegin(), stack_.rend(),
                                                [n](const Open& o) { return o.name == n; });
  if (match == stack_.rend()) {
    Add("TML-1.1", t.begin,
        Format("</{}> closes nothing: no <{}> is open here", NameOf(n), NameOf(n)));
    return;
  }
  const std::size_t keep = stack_.size() - static_cast<std::size_t>(match - stack_.rbegin()) - 1;
  while (stack_.size() > keep + 1) {
    const Open& o = stack_.back();
    Add("TML-1.1", o.begin,
        Format("<{}> opened at {} is not closed before </{}> at {}", NameOf(o.name), At(o.begin),
               NameOf(n), At(t.begin)));
    Pop(t.begin, t.begin);
  }
  Pop(t.begin, t.end);
  if (stack_.empty()) {
    last_top_name_ = n;
    last_top_closing_ = true;
    last_top_offset_ = t.begin;
  }
}

void Validator::Pop(std::size_t inner_end, std::size_t close_end) {
  Open o = std::move(stack_.back());
  stack_.pop_back();
  --OpenCount(o.name);
  if (o.misplaced) {
    --misplaced_depth_;
    return;
  }
  const std::string_view inner = text_.substr(o.inner_begin, inner_end - o.inner_begin);
  switch (o.name) {
    case Name::kThink:
      if (want_parts_) parts_.think = Trim(inner);
      break;
    case Name::kSerp:
      if (want_parts_) parts_.serp = Trim(inner);
      break;
    case Name::kThinking:
      if (o.phases == 0) {
        Add("TML-3.1", o.begin, "<thinking> holds no <phase>; at least one is required");
      }
      if (stack_.empty() && close_end != inner_end && !thinking_closed_) {
        thinking_closed_ = true;
        thinking_end_ = close_end;
      }
      break;
    case Name::kPhase: {
      if (!o.has_title) {
        Add("TML-3.3", o.begin,
            Format("the <phase> opened at {} has no <title>; exactly one is required",
                   At(o.begin)));
      }
      if (want_parts_) {
        const std::size_t text_begin =
            o.has_title && o.after_title > 0 ? o.after_title : o.inner_begin;
        const std::size_t b = std::min(text_begin, inner_end);
        parts_.phases.push_back({o.id, Trim(o.title), Trim(text_.substr(b, inner_end - b))});
      }
      break;
    }
    case Name::kTitle:
      if (!stack_.empty() && stack_.back().name == Name::kPhase) {
        stack_.back().title = inner;
        stack_.back().after_title = close_end;
      }
      break;
    case Name::kFinal:
      final_open_ = false;
      CheckFinal(inner, o.inner_begin, queries_comment_);
      if (stack_.empty()) final_closed_ = final_closed_ || close_end != inner_end;
      break;
  }
}

void Validator::OnQueriesComment(const Token& t) {
  if (queries_comment_) {
    const std::string_view content = text_.substr(final_inner_begin_, t.begin - final_inner_begin_);
    CheckQueriesBlock(content, final_inner_begin_,
                      ReadSerpQueriesBlock(content, queries_comment_->first - final_inner_begin_,
                                           queries_comment_->second - final_inner_begin_));
    Add("TML-4.8", t.begin,
        Format("a second serp_queries block; the one at {} came first, and <final> holds one",
               At(first_queries_comment_)));
  } else {
    first_queries_comment_ = t.begin;
  }
  queries_comment_ = {t.begin, t.end};
}

SerpQueriesCheck Validator::CheckQueriesBlock(std::string_view content, std::size_t content_offset,
                                              const SerpQueriesBlock& block) {
  if (!block.exact) {
    Add("TML-4.2", content_offset + block.begin,
        Format("the serp_queries block is not written exactly as "
               "\"<!-- <serp_queries>\\n[…]\\n</serp_queries> -->\" at the start of a line; "
               "found \"{}\"",
               Excerpt(content.substr(block.begin, block.end - block.begin), 60)));
  }
  SerpQueriesCheck check = CheckSerpQueries(block.json);
  for (auto& f : check.findings)
    Add(std::move(f.rule), content_offset + block.json_begin, std::move(f.message));
  return check;
}

void Validator::CheckFinal(std::string_view content, std::size_t content_offset,
                           std::optional<std::pair<std::size_t, std::size_t>> comment) {
  if (!comment || comment->second > content_offset + content.size()) {
    if (want_parts_) parts_.final_content = Trim(content);
    Add("TML-4.1", content_offset + content.size(),
        "<final> does not end with the <!-- <serp_queries> … </serp_queries> --> block");
    return;
  }
  const auto block = ReadSerpQueriesBlock(content, comment->first - content_offset,
                                          comment->second - content_offset);
  const std::string_view after = content.substr(block.end);
  if (!want_parts_) {
    // The verdict alone needs no final content.
  } else if (FirstNonSpace(after) == std::string_view::npos) {
    parts_.final_content = Trim(content.substr(0, block.begin));
  } else {
    // Text after the block (TML-4.1): the content around it is joined, into
    // storage the Validation owns.
    std::string rest(content.substr(0, block.begin));
    rest.append(after);
    owned_final_ = std::make_shared<const std::string>(std::move(rest));
    parts_.final_content = Trim(*owned_final_);
  }
  const std::size_t at = content_offset + block.begin;
  if (!block.last) {
    Add("TML-4.1", at,
        Format("text \"{}\" follows the serp_queries block; the block must end <final>",
               Excerpt(Trim(content.substr(block.end)))));
  }
  SerpQueriesCheck check = CheckQueriesBlock(content, content_offset, block);
  if (want_parts_) parts_.queries = std::move(check.queries);
}

}  // namespace

Validation Validate(std::string_view reply) { return Validator(reply, true).Run(); }

Validation Validate(std::string&& reply) {
  // The heap string keeps its bytes where they are when the shared pointer
  // is moved or copied, so the parts' views stay valid.
  auto owned = std::make_shared<const std::string>(std::move(reply));
  Validation v = Validate(std::string_view(*owned));
  v.owned_reply = std::move(owned);
  return v;
}

Validation Validate(const char* reply) { return Validate(std::string(reply ? reply : "")); }

std::vector<ValidationFinding> CheckReply(std::string_view reply) {
  return Validator(reply, false).Run().findings;
}

}  // namespace llmconform::thinkingml
