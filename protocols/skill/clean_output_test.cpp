#include "protocols/skill/clean_output.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "base/utf8.h"
#include "protocols/wire/unicode_space.h"

namespace llmconform::skill {
namespace {

TEST(CleanOutputForAI, EmptyIsNoOutput) {
  EXPECT_EQ(CleanOutputForAI(""), "(no output)");
  EXPECT_EQ(CleanOutputForAI("\n \r\n\t"), "(no output)");
  EXPECT_EQ(CleanOutputForAI("\x1b[0m\x1b]0;title\x07"), "(no output)");
}

TEST(CleanOutputForAI, StripsCsiAndOsc) {
  EXPECT_EQ(CleanOutputForAI("\x1b[1;32mOK\x1b[0m done"), "OK done");
  EXPECT_EQ(CleanOutputForAI("\x1b]0;user@host: ~\x07total 4"), "total 4");
  EXPECT_EQ(CleanOutputForAI("\x1b]2;title\x1b\\rest"), "rest");
  EXPECT_EQ(CleanOutputForAI("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  EXPECT_EQ(CleanOutputForAI("\x1b[?2004hready\x1b[?2004l"), "ready");
  EXPECT_EQ(CleanOutputForAI("\x1b(Bplain\x1b=\x1b>"), "plain");
  // An OSC never closed ends at its line.
  EXPECT_EQ(CleanOutputForAI("\x1b]0;lost title\nnext"), "next");
  // A CSI cut short by the end of the text loses what it had.
  EXPECT_EQ(CleanOutputForAI("end\x1b[31"), "end");
}

TEST(CleanOutputForAI, RemovesPromptsKeepingTheRestOfTheLine) {
  EXPECT_EQ(CleanOutputForAI("user@host:~/proj$ git status\n M server/skills.js", "git status"),
            "M server/skills.js");
  EXPECT_EQ(CleanOutputForAI("root@srv-01:/etc# cat hostname\nsrv-01"), "cat hostname\nsrv-01");
  EXPECT_EQ(CleanOutputForAI("C:\\Users\\me>dir /b\nfile.txt"), "dir /b\nfile.txt");
  EXPECT_EQ(CleanOutputForAI("me@box:~$ me@box:~$ ls\nx"), "ls\nx");
  EXPECT_EQ(CleanOutputForAI("  deploy@web.example-1:~$\n"), "(no output)");
  // Not prompts: no '@', no ':' before the sign, no sign at all.
  EXPECT_EQ(CleanOutputForAI("price: 5$\ngit@github.com:org/repo.git"),
            "price: 5$\ngit@github.com:org/repo.git");
}

TEST(CleanOutputForAI, RemovesWindowsBanners) {
  EXPECT_EQ(CleanOutputForAI("Microsoft Windows [Version 10.0.19045.3803]\r\n"
                             "(c) Microsoft Corporation. All rights reserved.\r\n\r\n"
                             "C:\\Users\\me>echo hi\r\nhi\r\n",
                             "echo hi"),
            "hi");
  EXPECT_EQ(CleanOutputForAI("Microsoft Windows [Version 10"), "Microsoft Windows [Version 10");
}

TEST(CleanOutputForAI, TrimsAndDropsEmptyLines) {
  EXPECT_EQ(CleanOutputForAI("a\r\n\r\n  b  \r\n"), "a\nb");
}

// docs/protocols.md: a CR inside a line is what a terminal makes of it.
TEST(CleanOutputForAI, TextAfterACarriageReturnOverwrites) {
  EXPECT_EQ(CleanOutputForAI("10%\r50%\r100%"), "100%");
  EXPECT_EQ(CleanOutputForAI("abcdef\rXY"), "XYcdef");
  EXPECT_EQ(CleanOutputForAI("\rabc\r\r\n"), "abc");
  // Columns are code points: "Ж" overwrites one column, not one byte.
  EXPECT_EQ(CleanOutputForAI("abc\r\u0416"), "\u0416bc");
  // A banner written over a prompt is still a banner; one overwritten is not.
  EXPECT_EQ(CleanOutputForAI("C:\\>\rMicrosoft Windows [Version 10.0.19045.3803]\nok"), "ok");
  EXPECT_EQ(CleanOutputForAI("Microsoft Windows [Version 10.0]\rX"),
            "Xicrosoft Windows [Version 10.0]");
  // A prompt written over progress text is removed as a prompt.
  EXPECT_EQ(CleanOutputForAI("downloading\ru@h:~$ ls -la"), "ls -la");
}

TEST(CleanOutputForAI, ReportsWhatEachStepDid) {
  CleanTrace trace;
  const std::string out = CleanOutputForAI(
      "ls\n\x1b[1mlsblk\x1b[0m\nx\r\nx\n  \nMicrosoft Windows [Version 1]\nold\rnew\nu@h:~$ y",
      "ls", trace);
  EXPECT_EQ(out, "lsblk\nx\nnew\ny");
  ASSERT_EQ(trace.lines.size(), 8u);
  EXPECT_TRUE(trace.lines[0].Has(CleanStep::kEcho));
  EXPECT_FALSE(trace.lines[0].output_line);
  EXPECT_TRUE(trace.lines[1].Has(CleanStep::kEscape));
  EXPECT_FALSE(trace.lines[1].Has(CleanStep::kEchoPrefix));  // not the first line left
  EXPECT_EQ(trace.lines[1].output_line, 0u);
  EXPECT_EQ(trace.lines[2].steps, 0u);  // a CRLF overwrites nothing
  EXPECT_TRUE(trace.lines[3].Has(CleanStep::kRepeat));
  EXPECT_TRUE(trace.lines[4].Has(CleanStep::kEmptyLine));
  EXPECT_TRUE(trace.lines[5].Has(CleanStep::kBanner));
  EXPECT_TRUE(trace.lines[6].Has(CleanStep::kCarriageReturn));
  EXPECT_EQ(trace.lines[6].output_line, 2u);
  EXPECT_TRUE(trace.lines[7].Has(CleanStep::kPrompt));
  EXPECT_FALSE(trace.no_output);

  CleanOutputForAI("lsblk\nsda", "ls", trace);
  EXPECT_TRUE(trace.lines[0].Has(CleanStep::kEchoPrefix));
  EXPECT_EQ(trace.lines[0].output_line, 0u);
  EXPECT_EQ(CleanOutputForAI("\n", "", trace), "(no output)");
  EXPECT_TRUE(trace.no_output);
  EXPECT_EQ(CleanStepName(CleanStep::kEchoPrefix), "echo-prefix");
  EXPECT_EQ(CleanStepRule(CleanStep::kCarriageReturn), "SKILL-CLEAN-5");
}

// docs/protocols.md: the public implementation cuts any prefix, "lsblk" → "blk".
TEST(CleanOutputForAI, DropsOnlyAWholeEchoedFirstLine) {
  EXPECT_EQ(CleanOutputForAI("ls\nfile", "ls"), "file");
  EXPECT_EQ(CleanOutputForAI("lsblk\nsda", "ls"), "lsblk\nsda");
  EXPECT_EQ(CleanOutputForAI("file\nls", "ls"), "file\nls");
  EXPECT_EQ(CleanOutputForAI("  ls  \nfile", "  ls "), "file");
  EXPECT_EQ(CleanOutputForAI("ls", "ls"), "(no output)");
  // The echo goes before repeats are dropped: a later "ls" is output.
  EXPECT_EQ(CleanOutputForAI("ls\nls\nfoo", "ls"), "ls\nfoo");
}

TEST(CleanOutputForAI, DropsRepeatedLinesKeepingTheFirst) {
  EXPECT_EQ(CleanOutputForAI("a\nb\na\nc\nb"), "a\nb\nc");
  EXPECT_EQ(CleanOutputForAI("x\n x \nx"), "x");
}

TEST(CleanOutputForAI, SeedGitExamples) {
  EXPECT_EQ(CleanOutputForAI(" M server/skills.js\n?? new-file.txt\n", "git status --porcelain"),
            "M server/skills.js\n?? new-file.txt");
  EXPECT_EQ(
      CleanOutputForAI("[main abc1234] fix: update skills API\n 1 file changed, 5 insertions(+)\n",
                       "git add . && git commit -m \"fix: update skills API\""),
      "[main abc1234] fix: update skills API\n1 file changed, 5 insertions(+)");
}

// Issue 18: the 8-bit forms of the escape sequences (C1 controls in UTF-8).
TEST(CleanOutputForAI, StripsC1Controls) {
  EXPECT_EQ(CleanOutputForAI("ab\u009b31mcd"), "abcd");
  EXPECT_EQ(CleanOutputForAI("\u009b1;32mOK\u009b0m done"), "OK done");
  EXPECT_EQ(CleanOutputForAI("\u009d0;title\u0007text"), "text");
  EXPECT_EQ(CleanOutputForAI("\u009d8;;http://x\u009clink"), "link");
  EXPECT_EQ(CleanOutputForAI("\u0090q\u009cafter"), "after");
  EXPECT_EQ(CleanOutputForAI("a\u0084b\u0085c"), "abc");  // IND, NEL: single controls
  // Not C1 controls: a lone byte 0x9B, and "ћ" (D1 9B) whose second byte is 0x9B.
  EXPECT_EQ(CleanOutputForAI("x\x9b"
                             "31my"),
            "x\x9b"
            "31my");
  EXPECT_EQ(CleanOutputForAI("\u045b31m"), "\u045b31m");
  // A lead byte cut off by a removed sequence does not join what follows it.
  EXPECT_EQ(CleanOutputForAI("a\xc2\x1b[m\x9b"
                             "31mb"),
            "a\x9b"
            "31mb");
  // Nor where a write after a CR meets what it did not overwrite.
  EXPECT_EQ(CleanOutputForAI("xy\x9b\ra\xc2"), "a");
  EXPECT_EQ(CleanOutputForAI("a\xc2\r\x9b"
                             "31mb"),
            "\x9b"
            "31mb");
}

// Issue 18: lines are trimmed of Unicode white space, and a line of it is empty.
TEST(CleanOutputForAI, TrimsUnicodeWhiteSpace) {
  EXPECT_EQ(CleanOutputForAI("a\n\u00a0\n\u3000\u3000\nb"), "a\nb");
  EXPECT_EQ(CleanOutputForAI("\u00a0\u00a0x\u3000\n x\ufeff"), "x");
  EXPECT_EQ(CleanOutputForAI("\u00a0\u3000\ufeff"), "(no output)");
  EXPECT_EQ(CleanOutputForAI("ls\u00a0\nfile", "\u3000ls"), "file");
  EXPECT_EQ(CleanOutputForAI("\u3000user@host:~$\u00a0ls\nx"), "ls\nx");
  // Inside a line it is kept.
  EXPECT_EQ(CleanOutputForAI("a\u00a0b"), "a\u00a0b");
}

TEST(CleaningSteps, StripTerminalEscapes) {
  EXPECT_EQ(StripTerminalEscapes("\x1b[1;31mred\x1b[0m\n\x1b]0;t\x07x"), "red\nx");
  EXPECT_EQ(StripTerminalEscapes("plain"), "plain");
}

TEST(CleaningSteps, TerminalPromptLength) {
  EXPECT_EQ(TerminalPromptLength("user@host:~/a$ ls"), 14u);
  EXPECT_EQ(TerminalPromptLength("root@db-1.local:/# id"), 18u);
  EXPECT_EQ(TerminalPromptLength("C:\\Users\\me>dir"), 12u);
  EXPECT_EQ(TerminalPromptLength("@host:~$ ls"), 0u);
  EXPECT_EQ(TerminalPromptLength("user@:~$ ls"), 0u);
  EXPECT_EQ(TerminalPromptLength("user@host ls $"), 0u);
  EXPECT_EQ(TerminalPromptLength("C:\\no prompt end"), 0u);
}

TEST(CleaningSteps, IsWindowsBannerLine) {
  EXPECT_TRUE(IsWindowsBannerLine("Microsoft Windows [Version 10.0.22631.4460]"));
  EXPECT_TRUE(IsWindowsBannerLine("(c) Microsoft Corporation. All rights reserved."));
  EXPECT_FALSE(IsWindowsBannerLine("Microsoft Windows [Version"));
  EXPECT_FALSE(IsWindowsBannerLine(" (c) Microsoft Corporation"));
}

// Terminal-like text: escapes, prompts, banners and line ends are likely.
rc::Gen<std::string> TerminalText() {
  return rc::gen::map(
      rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
          rc::gen::element<std::string>(
              "\x1b", "[", "]", "\x07", "\\", "\r", "\n", " ", "\t", "@", ":", "$", "#", ">",
              "C:\\", "u@h:~$ ", "0;", "31m", "(", "Microsoft Windows [Version 1]",
              "(c) Microsoft Corporation", "ls", "a", "b", "\xc2\x9b", "\x1b[", "\x1b]", "\xc2",
              "\x9b", "\xc2\x9d", "\xc2\x9c", "\xc2\x85", "\u00a0", "\u3000", "\ufeff", "\u045b"),
          rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127)))),
      [](const std::vector<std::string>& parts) {
        std::string s;
        for (const auto& p : parts) s += p;
        return s;
      });
}

// A terminal's line as a model: one cell per column (a code point, or one
// ill-formed subpart), a CR back to column 0.
std::string OverwrittenModel(std::string_view line) {
  std::vector<std::string> cells;
  std::size_t column = 0;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\r') {
      column = 0;
      ++i;
      continue;
    }
    char32_t cp = 0;
    std::size_t n = DecodeUtf8(line, i, cp);
    if (n == 0) n = std::max<std::size_t>(1, MaximalSubpart(line, i));
    if (column == cells.size()) cells.emplace_back();
    cells[column++] = std::string(line.substr(i, n));
    i += n;
  }
  std::string out;
  for (const auto& c : cells) out += c;
  return out;
}

// Each line is cleaned as a terminal shows it: escapes stripped, then written
// over at each CR, then stripped again where two writes meet.
RC_GTEST_PROP(CleanOutputForAIProperties, CarriageReturnsOverwriteAsATerminalDoes, ()) {
  const auto raw = *TerminalText();
  std::string shown;
  std::size_t pos = 0;
  while (true) {
    const std::size_t nl = raw.find('\n', pos);
    const std::string line = raw.substr(pos, nl == std::string::npos ? nl : nl - pos);
    shown += StripTerminalEscapes(OverwrittenModel(StripTerminalEscapes(line)));
    if (nl == std::string::npos) break;
    shown += '\n';
    pos = nl + 1;
  }
  RC_ASSERT(shown.find('\r') == std::string::npos);
  RC_ASSERT(CleanOutputForAI(raw) == CleanOutputForAI(shown));
}

RC_GTEST_PROP(CleanOutputForAIProperties, CleaningIsIdempotent, ()) {
  const auto raw = *TerminalText();
  const auto command = *rc::gen::element<std::string>("", "ls", "a", " u@h:~$ ls ");
  const std::string once = CleanOutputForAI(raw, command);
  RC_ASSERT(CleanOutputForAI(once) == once);
}

RC_GTEST_PROP(CleanOutputForAIProperties, OutputLinesAreCleanAndUnique, ()) {
  const auto raw = *TerminalText();
  const std::string out = CleanOutputForAI(raw);
  RC_ASSERT(!out.empty());
  RC_ASSERT(out.find('\x1b') == std::string::npos);
  RC_ASSERT(out.find('\r') == std::string::npos);
  std::set<std::string> lines;
  std::size_t pos = 0;
  while (true) {
    const std::size_t nl = out.find('\n', pos);
    const std::string line = out.substr(pos, nl == std::string::npos ? nl : nl - pos);
    RC_ASSERT(!line.empty());
    RC_ASSERT(wire::TrimUnicodeSpace(line) == line);
    for (std::size_t i = 0; i + 1 < line.size(); ++i)  // no C1 control is left
      RC_ASSERT(!(line[i] == '\xc2' && static_cast<unsigned char>(line[i + 1]) < 0xA0 &&
                  static_cast<unsigned char>(line[i + 1]) >= 0x80));
    RC_ASSERT(lines.insert(line).second);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
}

}  // namespace
}  // namespace llmconform::skill
