#include "protocols/wire/inline_think.h"

#include <algorithm>
#include <utility>

namespace llmconform::wire {

namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

// `s` without one leading line break ("\r\n" or "\n").
std::string_view DropLeadingBreak(std::string_view s) {
  if (s.starts_with("\r\n")) return s.substr(2);
  if (s.starts_with('\n')) return s.substr(1);
  return s;
}

std::string_view DropTrailingBreak(std::string_view s) {
  if (s.ends_with("\r\n")) return s.substr(0, s.size() - 2);
  if (s.ends_with('\n')) return s.substr(0, s.size() - 1);
  return s;
}

}  // namespace

std::optional<InlineThink> SplitInlineThink(std::string_view content) {
  if (!content.starts_with(kOpen)) return std::nullopt;
  const auto close = content.find(kClose, kOpen.size());
  if (close == std::string_view::npos) return std::nullopt;
  InlineThink out;
  out.reasoning =
      DropTrailingBreak(DropLeadingBreak(content.substr(kOpen.size(), close - kOpen.size())));
  out.answer = DropLeadingBreak(DropLeadingBreak(content.substr(close + kClose.size())));
  return out;
}

bool MoveInlineThink(ChatMessage& m) {
  if (!m.content || !m.content->is_string()) return false;
  const std::string content = m.content->get<std::string>();
  const auto split = SplitInlineThink(content);
  if (!split) return false;
  std::string reasoning(split->reasoning);
  if (m.reasoning_content && !m.reasoning_content->empty())
    reasoning = *m.reasoning_content + "\n" + reasoning;
  m.reasoning_content = std::move(reasoning);
  m.content = std::string(split->answer);
  return true;
}

bool MoveContentThinking(ChatMessage& m) {
  if (!m.content || !m.content->is_array()) return false;
  for (const Json& block : *m.content) {
    const Json type = block.is_object() ? block.value("type", Json()) : Json();
    if (type != "text" && type != "thinking") return false;
  }
  std::string thinking = m.ContentThinking();
  if (!thinking.empty()) {
    if (m.reasoning_content && !m.reasoning_content->empty())
      thinking = *m.reasoning_content + "\n" + thinking;
    m.reasoning_content = std::move(thinking);
  }
  m.content = m.Text();
  return true;
}

std::string InlineThinkFilter::Feed(std::string_view piece) {
  std::string out;
  switch (state_) {
    case State::kPassing:
      return std::string(piece);
    case State::kStart:
      held_.append(piece);
      if (held_.size() < kOpen.size() && kOpen.starts_with(held_)) return out;
      if (!held_.starts_with(kOpen)) {
        state_ = State::kPassing;
        return std::exchange(held_, {});
      }
      state_ = State::kInBlock;
      break;
    case State::kInBlock:
      held_.append(piece);
      break;
    case State::kAfterBlock:
      break;
  }
  std::string_view rest = piece;
  if (state_ == State::kInBlock) {
    // The first </think> may straddle the pieces: look again from where a
    // partial one could have started.
    const std::size_t from =
        std::max(kOpen.size(), held_.size() - piece.size() -
                                   std::min(held_.size() - piece.size(), kClose.size() - 1));
    const auto close = held_.find(kClose, from);
    if (close == std::string::npos) return out;
    const auto split = SplitInlineThink(held_);
    reasoning_ = std::string(split ? split->reasoning : std::string_view{});
    state_ = State::kAfterBlock;
    held_.erase(0, close + kClose.size());
    rest = held_;
  }
  // Drop up to two line breaks right after </think>.
  std::size_t i = 0;
  while (i < rest.size() && state_ == State::kAfterBlock) {
    if (cr_pending_) {
      cr_pending_ = false;
      if (rest[i] != '\n') {
        out += '\r';
        state_ = State::kPassing;
        break;
      }
      ++i;
      if (--breaks_left_ == 0) state_ = State::kPassing;
    } else if (rest[i] == '\n') {
      ++i;
      if (--breaks_left_ == 0) state_ = State::kPassing;
    } else if (rest[i] == '\r') {
      cr_pending_ = true;
      ++i;
    } else {
      state_ = State::kPassing;
    }
  }
  out.append(rest.substr(i));
  held_.clear();
  return out;
}

std::string InlineThinkFilter::Finish() {
  std::string out;
  if (state_ == State::kStart || state_ == State::kInBlock) out = std::exchange(held_, {});
  if (cr_pending_) out += '\r';
  cr_pending_ = false;
  state_ = State::kPassing;
  return out;
}

}  // namespace llmconform::wire
