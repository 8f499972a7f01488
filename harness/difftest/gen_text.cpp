#include "harness/difftest/gen_text.h"

namespace llmconform::harness::difftest {

namespace gen = rc::gen;
using Strings = std::vector<std::string>;

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}

rc::Gen<std::string> Words() {
  return gen::element<std::string>("hello", "world", "Safari", "open", "the", "app", "Calculator",
                                   "please", "now", "OK", "yes", "no", "git", "status", "a", "x");
}
// Times, dates, URLs, numbers, e-mail-like text: what a rewriting client breaks.
rc::Gen<std::string> Facts() {
  return gen::element<std::string>(
      "10:30", "3:05 PM", "23:59:59", "2026-11-23", "11/23/2026", "https://example.com/a?b=1&c=2",
      "www.apple.com", "http://127.0.0.1:8080/", "3.14", "-42", "1e9", "100%", "$5.00", "1,000",
      "0", "007", "+1 (555) 010-9999", "me@example.com", "192.168.0.1", "v2.0.1");
}
rc::Gen<std::string> Spaces() {
  return gen::element<std::string>(" ", "  ", "\t", "\n", "\r\n", "\n\n", "\r", "\u00a0", "\u3000",
                                   " \n ");
}
rc::Gen<std::string> Scripts() {
  return gen::element<std::string>("介绍林默", "你好", "Привет", "مرحبا", "שלום", "こんにちは",
                                   "한국어", "Ελληνικά", "ñandú", "e\u0301");
}
rc::Gen<std::string> Emoji() {
  return gen::element<std::string>("😀", "👍🏽", "🇫🇷", "👨‍👩‍👧", "🍎", "✔️");
}
rc::Gen<std::string> Markdown() {
  return gen::element<std::string>("**bold**", "# Title\n", "- item\n", "> quote\n", "`code`",
                                   "```\n", "```json\n", "\n```", "[link](https://x.y)", "|a|b|\n",
                                   "1. first\n", "<b>", "&lt;", "\\n", "\"", "'", "{", "}", "[",
                                   "]", ":", ",");
}
rc::Gen<std::string> Ascii() { return gen::container<std::string>(gen::inRange<char>(32, 127)); }

// Text from fragments: the common ones, weighted, plus `extra` (an op's own
// tags and near-misses) at weight `extra_weight`.
rc::Gen<std::string> TextOf(rc::Gen<std::string> extra, int extra_weight) {
  auto fragment = gen::weightedOneOf<std::string>({{6, Words()},
                                                   {3, Spaces()},
                                                   {2, Facts()},
                                                   {2, Scripts()},
                                                   {1, Emoji()},
                                                   {2, Markdown()},
                                                   {1, Ascii()},
                                                   {extra_weight, std::move(extra)}});
  return gen::map(gen::container<Strings>(std::move(fragment)), Join);
}
rc::Gen<std::string> Text() { return TextOf(Words(), 1); }
rc::Gen<std::string> ShortText() { return gen::resize(12, Text()); }

rc::Gen<std::string> TmlNearMiss() {
  return gen::element<std::string>("<Final>", "</FINAL>", "<final/>", "<phase>", "<phase id=1>",
                                   "<phase id='1'>", "<phase id=\"0\">", "<title x=\"y\">", "<b>",
                                   "</b>", "<br/>", "<final>", "</final>", "&lt;final&gt;",
                                   "<<ParsingError>>", "<think>", "</thinking>", "<serp>", "a < b",
                                   "<3", "<!-- c -->", "x>y");
}

rc::Gen<std::string> Blankish() {
  return gen::element<std::string>("", " ", "\n\t", "\u00a0", "\u3000", "\ufeff", " \r\n");
}

}  // namespace llmconform::harness::difftest
