// Reasoning inlined at the start of content: "<think>…</think>".
//
// Providers that serve reasoning models without a reasoning parser (Hugging
// Face TGI and its router, vLLM and llama.cpp without `--reasoning-parser`,
// DeepSeek-R1 distills on Ollama) put the model's reasoning at the very start
// of `content` between <think> tags, where others use `reasoning_content`
// (catalogue deviation DIA-THINK-TAGS-IN-CONTENT, docs/dialects.md). A client
// that reads content as the answer has to take that block off first; the
// reference clients do, as docs/protocols.md "Inline reasoning" decides:
// - the block is recognised only at the very start of content (no leading
//   whitespace) and only when closed;
// - the reasoning is the text between the tags with one newline after
//   <think> and one before </think> dropped;
// - the answer is what follows </think>, with at most two line breaks
//   ("\n" or "\r\n") right after it dropped, so an answer's own leading
//   spaces survive.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocols/wire/chat.h"

namespace llmconform::wire {

struct InlineThink {
  std::string_view reasoning;  // views into the content given
  std::string_view answer;
};

// The split of `content`, or nullopt when it does not start with a closed
// <think> block. Never throws.
std::optional<InlineThink> SplitInlineThink(std::string_view content);

// Moves an inline think block of `m`'s string content into
// `reasoning_content` (appended after any reasoning already there, on a new
// line) and leaves the answer in `content`. True when it moved one. Content
// that is not a string (parts, null) is left alone.
bool MoveInlineThink(ChatMessage& m);

// The same for reasoning carried as blocks of an array content (Mistral's
// reasoning models, docs/protocols.md "Mistral"): when every block is a
// `text` or `thinking` block, the thinking text is appended to
// `reasoning_content` (on a new line after any already there) and the
// content becomes its text ("" when it has none, as Mistral's tool-call
// turns carry). True when it changed `m`. An array holding any
// other block is left alone, so nothing is lost.
bool MoveContentThinking(ChatMessage& m);

// The same split for content that arrives in pieces (stream deltas). Feed()
// returns the answer text that can be passed on now; while the start of the
// content could still be "<think>" or the block is open, it holds text back.
// Finish() returns what is still held: the block unclosed at the end of the
// stream is not reasoning after all (nothing was taken off), so it comes back
// as answer text. The concatenation of every Feed() and Finish() equals
// SplitInlineThink(all content)'s answer, or all content when that is
// nullopt, however the content was cut into pieces.
class InlineThinkFilter {
 public:
  std::string Feed(std::string_view piece);
  std::string Finish();
  // The reasoning taken off so far (complete once a block was closed).
  const std::string& reasoning() const { return reasoning_; }

 private:
  enum class State { kStart, kInBlock, kAfterBlock, kPassing };
  State state_ = State::kStart;
  std::string held_;  // content not yet passed on, from its start
  std::string reasoning_;
  int breaks_left_ = 2;  // line breaks still to drop after </think>
  bool cr_pending_ = false;
};

}  // namespace llmconform::wire
