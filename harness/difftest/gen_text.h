// The text building blocks the input generators of `llmconform check` share
// (harness/difftest/ops_*.cpp): words, facts, white space, scripts, emoji,
// Markdown and the near-misses of tags, mixed into text. Internal to the
// differential tester.
#pragma once

#include <rapidcheck.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmconform::harness::difftest {

// The parts joined, in order.
std::string Join(const std::vector<std::string>& parts);

rc::Gen<std::string> Words();
// Times, dates, URLs, numbers, e-mail-like text: what a rewriting client breaks.
rc::Gen<std::string> Facts();
rc::Gen<std::string> Spaces();
rc::Gen<std::string> Scripts();
rc::Gen<std::string> Emoji();
rc::Gen<std::string> Markdown();
rc::Gen<std::string> Ascii();
// Text from fragments: the common ones, weighted, plus `extra` (an op's own
// tags and near-misses) at weight `extra_weight`.
rc::Gen<std::string> TextOf(rc::Gen<std::string> extra, int extra_weight);
rc::Gen<std::string> Text();
rc::Gen<std::string> ShortText();
// ThinkingML tags, their near-misses and lone angle brackets.
rc::Gen<std::string> TmlNearMiss();
// Empty text and text of white space only (Unicode spaces and the BOM included).
rc::Gen<std::string> Blankish();

// Absent, or a value of `g`.
template <typename T>
rc::Gen<std::optional<T>> Opt(rc::Gen<T> g) {
  return rc::gen::oneOf(rc::gen::just(std::optional<T>()), rc::gen::map(std::move(g), [](T v) {
                          return std::optional<T>(std::move(v));
                        }));
}

}  // namespace llmconform::harness::difftest
