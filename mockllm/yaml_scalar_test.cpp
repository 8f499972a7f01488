#include "mockllm/yaml_scalar.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "mockllm/import.h"

namespace llmconform::mockllm {
namespace {

std::string Read(const std::string& doc) {
  const YAML::Node root = YAML::Load(doc);
  return SingleQuotedScalar(root["s"], doc);
}

// Each document as PyYAML writes the value (yaml.safe_dump, default_style="'").
TEST(SingleQuotedScalar, ReadsWhatPyYamlWrote) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"'s': 'a\n\n\n  b\n\n\n  '\n", "a\n\nb\n\n"},
      {"'s': 'a\n\n\n\n  '\n", "a\n\n\n"},
      {"'s': 'a\n\n\n  '\n", "a\n\n"},
      {"'s': 'data: x\n\n\n  '\n", "data: x\n\n"},
      {"'s': 'it''s\n\n\n  '\n", "it's\n\n"},
      {"'s': 'a\n\n  b\n\n  '\n", "a\nb\n"},
      {"'s': 'a\n\n  '\n", "a\n"},
      {"'s': 'x'\n", "x"},
      {"'s': 'a\n\n\n\n  b'\n", "a\n\n\nb"},
      {"'s': '\xc3\xa9\n\n\n  '\n",
       "\xc3\xa9\n\n"},  // a multi-byte prefix: Mark().pos counts bytes
      {"# a comment\n'x': 1\n's': 'a\n\n\n  '\n", "a\n\n"},
  };
  for (const auto& [doc, want] : cases) EXPECT_EQ(Read(doc), want) << doc;
}

// How PyYAML writes `text` single-quoted (no spaces, no leading line break:
// those make it choose another style): ' doubled, a run of k line breaks as
// k + 1 breaks, each continuation line indented.
std::string AsPyYamlWritesIt(const std::string& text) {
  std::string out = "'s': '";
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '\n') {
      out += text[i] == '\'' ? "''" : std::string(1, text[i]);
      ++i;
      continue;
    }
    std::size_t k = 0;
    while (i < text.size() && text[i] == '\n') ++k, ++i;
    out.append(k + 1, '\n');
    out += "  ";
  }
  return out + "'\n";
}

RC_GTEST_PROP(SingleQuotedScalarProperty, ReadsBackWhatPyYamlWrites, ()) {
  const auto first = *rc::gen::element('a', 'b', '\'');
  const auto rest = *rc::gen::container<std::string>(rc::gen::element('a', '\'', '\n', 'x'));
  const std::string text = std::string(1, first) + rest;
  RC_ASSERT(Read(AsPyYamlWritesIt(text)) == text);
}

TEST(SingleQuotedScalar, LeavesOtherStylesAsYamlCppReadsThem) {
  EXPECT_EQ(Read("s: \"a\\n\\n\"\n"), "a\n\n");
  EXPECT_EQ(Read("s: |\n  a\n\n"), "a\n");
  EXPECT_EQ(Read("s: plain\n"), "plain");
  // A mark that does not point at a quote (another document) is not trusted.
  const YAML::Node root = YAML::Load("'s': 'a\n\n\n  '\n");
  EXPECT_EQ(SingleQuotedScalar(root["s"], "x"), root["s"].Scalar());
}

// The import of a streamed Responses exchange written single-quoted: the last
// event keeps the blank line that ends it.
TEST(SingleQuotedScalar, ImportKeepsTheLastEventsEnd) {
  const std::string cassette = R"(interactions:
- request:
    body: '{"model":"m","input":"x","stream":true}'
    headers: {}
    method: POST
    uri: https://api.openai.com/v1/responses
  response:
    body:
      string: 'event: response.created

        data: {"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress","model":"m","output":[]}}


        event: response.completed

        data: {"type":"response.completed","sequence_number":1,"response":{"id":"r","status":"completed","model":"m","output":[]}}


        '
    headers:
      Content-Type:
      - text/event-stream
    status:
      code: 200
      message: OK
version: 1
)";
  auto r = ParseCassette(cassette, "c.yaml");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->trace.exchanges.size(), 1u);
  const auto& chunks = r->trace.exchanges[0].response.chunks;
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_TRUE(chunks.back().raw.ends_with("\"output\":[]}}\n\n")) << chunks.back().raw;
}

}  // namespace
}  // namespace llmconform::mockllm
