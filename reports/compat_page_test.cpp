#include "reports/compat_page.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/format.h"

namespace llmconform::reports {
namespace {

ScenarioResult Scenario(std::string name, std::string dialect, std::string feature,
                        CheckResult check, std::vector<std::string> deviations = {}) {
  ScenarioResult s;
  s.info.protocol = "client";
  s.info.name = std::move(name);
  s.info.provider = "openai";
  s.info.tags = {std::move(feature)};
  s.info.dialect = std::move(dialect);
  s.info.deviations = std::move(deviations);
  s.checks = {std::move(check)};
  return s;
}

// Two clients in two dialects: "stream" loses the tool calls under gemini.
std::vector<ClientRun> TwoClients() {
  ClientRun good{"fetch", "node fetch.mjs", {}};
  ClientRun broken{"stream", "node stream.mjs", {}};
  for (const char* dialect : {"gemini", "openai"}) {
    good.run.scenarios.push_back(Scenario("streamed-tool-calls", dialect, "streamed-tool-calls",
                                          CheckResult::Pass("R", "")));
    good.run.scenarios.push_back(
        Scenario("plain-text", dialect, "plain-text", CheckResult::Pass("R", "")));
  }
  broken.run.scenarios = {
      Scenario("streamed-tool-calls", "openai", "streamed-tool-calls", CheckResult::Pass("R", "")),
      Scenario("streamed-tool-calls", "gemini", "streamed-tool-calls",
               CheckResult::Fail("CLIENT-TOOL-CALLS",
                                 "the reply carries 2 tool call(s); the client read 0",
                                 {"[…2 calls…]", "[]", "LLMCONFORM_OUTPUT/tool_calls"}),
               {"DIA-TOOLCALL-NO-INDEX"}),
      Scenario("plain-text", "gemini", "plain-text", CheckResult::Skip("R", "unsupported"))};
  return {good, broken};
}

TEST(CompatPage, SummarisesEachClientByDialectWithTheWorstCell) {
  const std::string md = RenderCompatMarkdown(TwoClients());
  EXPECT_NE(md.find("| client | gemini | openai |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fetch | \u2705 pass 2/2 | \u2705 pass 2/2 |"), std::string::npos) << md;
  // gemini: one failure and one skipped scenario (not counted); openai: one pass.
  EXPECT_NE(md.find("| stream | \u274c fail 0/1 | \u2705 pass 1/1 |"), std::string::npos) << md;
}

TEST(CompatPage, HasAGridPerClientAndEveryFailureWithItsEvidence) {
  const std::string md = RenderCompatMarkdown(TwoClients());
  EXPECT_NE(md.find("\n## fetch\n\n`node fetch.mjs`\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\n## stream\n\n`node stream.mjs`\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| dialect | plain-text | streamed-tool-calls |"), std::string::npos) << md;
  EXPECT_NE(md.find("fail 0/1 (DIA-TOOLCALL-NO-INDEX)"), std::string::npos) << md;
  // The failure row: dialect, scenario, rule, message, what the client read, cause, links.
  EXPECT_NE(md.find("| gemini | streamed-tool-calls | `CLIENT-TOOL-CALLS` |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `[]` | `DIA-TOOLCALL-NO-INDEX` |"), std::string::npos) << md;
  EXPECT_NE(md.find("[sent](stream/evidence/streamed-tool-calls@gemini/sent.txt) · "
                    "[read](stream/evidence/streamed-tool-calls@gemini/read.json) · "
                    "[report](stream/report.html#s2)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("No failure."), std::string::npos);  // fetch's
}

TEST(CompatPage, TheHtmlPageLinksEachFailureToItsEvidence) {
  const std::string html = RenderCompatHtml(TwoClients());
  EXPECT_NE(html.find("data-client=\"stream\" data-dialect=\"gemini\">fail 0/1</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"stream/evidence/streamed-tool-calls@gemini/sent.txt\">sent</a>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"stream/report.html#s2\""), std::string::npos);  // the grid's cell
  EXPECT_NE(html.find("<section id=\"client-fetch\">"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

// A Chat client and a Messages client, each over both surfaces' dialects:
// each adapter takes its own surface's scenarios only.
std::vector<ClientRun> TwoSurfaces() {
  ClientRun chat{"chat-sdk", "node chat.mjs", {}};
  ClientRun messages{"messages-sdk", "node messages.mjs", {}};
  const auto unsupported = [](std::string_view surface) {
    return CheckResult::Skip("CLIENT-TEXT",
                             Format("unsupported: this adapter speaks {}, not {}", "x", surface));
  };
  for (const char* dialect : {"openai", "groq"}) {
    chat.run.scenarios.push_back(
        Scenario("plain-text", dialect, "plain-text", CheckResult::Pass("CLIENT-TEXT", "")));
    messages.run.scenarios.push_back(
        Scenario("plain-text", dialect, "plain-text", unsupported("chat")));
  }
  chat.run.scenarios.push_back(
      Scenario("messages-cut", "anthropic", "cut", unsupported("messages")));
  messages.run.scenarios.push_back(
      Scenario("messages-cut", "anthropic", "cut", CheckResult::Pass("CLIENT-CUT-RAISED", "")));
  return {chat, messages};
}

const DialectSurfaces kSurfaces = {{"openai", "chat"}, {"groq", "chat"}, {"anthropic", "messages"}};

TEST(CompatPage, TheSummaryHasATablePerSurfaceOfTheClientsThatRanInIt) {
  const std::string md = RenderCompatMarkdown(TwoSurfaces(), kSurfaces);
  const auto chat = md.find("### Chat Completions (`chat`)\n\n| client | groq | openai |\n");
  const auto messages = md.find("### Anthropic Messages (`messages`)\n\n| client | anthropic |\n");
  ASSERT_NE(chat, std::string::npos) << md;
  ASSERT_NE(messages, std::string::npos) << md;
  EXPECT_LT(chat, messages);  // the surfaces in their order, not by name
  EXPECT_NE(md.find("| chat-sdk | \u2705 pass 1/1 | \u2705 pass 1/1 |\n\n###"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| messages-sdk | \u2705 pass 1/1 |\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("| chat-sdk | \u23ed"), std::string::npos) << md;  // no all-skip row
  // Once, why each client is missing from a table.
  EXPECT_NE(md.find("- `chat-sdk`: messages — this adapter speaks x, not messages\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- `messages-sdk`: chat — this adapter speaks x, not chat\n"),
            std::string::npos)
      << md;
}

TEST(CompatPage, AGridShowsOnlyTheDialectsAndFeaturesTheClientRan) {
  const std::string md = RenderCompatMarkdown(TwoSurfaces(), kSurfaces);
  const auto grid = md.find("\n## messages-sdk\n");
  ASSERT_NE(grid, std::string::npos) << md;
  const std::string messages = md.substr(grid);
  EXPECT_NE(messages.find("| dialect | cut |\n| --- | --- |\n| anthropic | \u2705 pass 1/1 |\n"),
            std::string::npos)
      << messages;
  EXPECT_EQ(messages.find("| openai |"), std::string::npos) << messages;
  const std::string chat = md.substr(md.find("\n## chat-sdk\n"), grid - md.find("\n## chat-sdk\n"));
  EXPECT_NE(chat.find("| dialect | plain-text |\n"), std::string::npos) << chat;
  EXPECT_EQ(chat.find("| anthropic |"), std::string::npos) << chat;
  // The HTML page the same way.
  const std::string html = RenderCompatHtml(TwoSurfaces(), kSurfaces);
  EXPECT_NE(html.find("<h3>Anthropic Messages (<code>messages</code>)</h3>"), std::string::npos);
  EXPECT_EQ(html.find("data-client=\"chat-sdk\" data-dialect=\"anthropic\""), std::string::npos);
  EXPECT_NE(html.find("<li><code>chat-sdk</code>: messages — this adapter speaks x, "
                      "not messages</li>"),
            std::string::npos)
      << html;
}

TEST(CompatPage, EscapesEveryText) {
  auto clients = TwoClients();
  clients[1].command = "<script>x</script>";
  clients[1].run.scenarios[1].checks[0].message = "<img src=x> | *";
  const std::string html = RenderCompatHtml(clients);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  const std::string md = RenderCompatMarkdown(clients);
  EXPECT_NE(md.find("\\<img src=x\\> \\| \\*"), std::string::npos) << md;
}

}  // namespace
}  // namespace llmconform::reports
