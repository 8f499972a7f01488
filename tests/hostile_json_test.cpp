// Every reader of outside JSON, run as a user runs it, on hostile text: random
// bytes, nesting far past the limit, invalid UTF-8 in a string, numbers out of
// double's range. Each must answer with exit 0, 1 or 2 (never a signal or the
// "internal error" exit 3), and with the JSON or the located message it
// promises. Before base/json_read these aborted (type_error.316,
// out_of_range.406) or overflowed the stack.
//
// Each case starts a sanitized binary, so the properties run RC_PARAMS's
// max_success cases (set small in tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunProcess;

const std::string kLlmconform = ::llmconform::test_paths::LlmconformBinary();
const std::string kMockllm = ::llmconform::test_paths::MockllmBinary();
using ::llmconform::test_paths::kRoot;

// Text a hostile or broken client sends: one of the four shapes.
rc::Gen<std::string> HostileText() {
  return rc::gen::oneOf(
      rc::gen::arbitrary<std::string>(),
      rc::gen::map(
          rc::gen::pair(rc::gen::inRange<std::size_t>(513, 120000), rc::gen::arbitrary<bool>()),
          [](const std::pair<std::size_t, bool>& p) {
            std::string s;
            for (std::size_t i = 0; i < p.first; ++i) s += p.second ? "[" : "{\"a\":";
            return s;
          }),
      rc::gen::map(rc::gen::elementOf(std::vector<std::string>{"\xff", "\xE2\x82", "\xC0\xAF",
                                                               "\xED\xA0\x80", "\x80"}),
                   [](const std::string& bad) { return "{\"text\":\"a" + bad + "b\"}"; }),
      rc::gen::map(rc::gen::elementOf(std::vector<std::string>{"1e999", "-1e999", "1E+400",
                                                               std::string(400, '9')}),
                   [](const std::string& n) { return "{\"text\":" + n + "}"; }));
}

// True when every line of `text` is blank as a trace reader sees it: only spaces and
// tabs, with an optional trailing CR (docs/trace-format.md).
bool IsBlankTraceText(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    auto eol = text.find('\n', start);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(start, eol - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) return false;
    start = eol + 1;
  }
  return true;
}

void Write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Exit 0/1/2 and, on 2, a message on stderr.
void AssertAnswered(const ProcessResult& r) {
  RC_ASSERT(r.exit_code >= 0);  // -1: killed by a signal
  RC_ASSERT(r.exit_code <= 2);
  if (r.exit_code == 2) RC_ASSERT(!r.err.empty());
}

std::vector<std::string> OracleOps() {
  static const std::vector<std::string> ops = [] {
    auto r = RunProcess({kLlmconform, "ref", "--list"});
    std::vector<std::string> names;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      const auto end = line.find_first_of(" \t");
      if (!line.empty()) names.push_back(line.substr(0, end));
    }
    return names;
  }();
  return ops;
}

TEST(HostileJson, TheCrashesOfTheReportAreInputErrors) {
  for (std::string text : {std::string("{\"text\":\"a\xff"
                                       "b\"}"),
                           std::string("{\"text\":1e999}"), std::string(100000, '[')}) {
    auto r = RunProcess({kLlmconform, "ref", "multiturn.estimateMessageTokens"}, text);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty());
    const auto err = nlohmann::json::parse(r.err);
    EXPECT_TRUE(err["error"].get<std::string>().starts_with("stdin:1:")) << r.err;
  }
}

RC_GTEST_PROP(HostileJson, RefAnswersEveryOperation, ()) {
  const auto ops = OracleOps();
  RC_PRE(!ops.empty());
  const auto op = *rc::gen::elementOf(ops);
  const auto text = *HostileText();
  auto r = RunProcess({kLlmconform, "ref", op}, text);
  AssertAnswered(r);
  RC_ASSERT(r.exit_code != 1);
  if (r.exit_code == 0) {
    RC_ASSERT(nlohmann::json::accept(r.out));
  } else {
    RC_ASSERT(r.out.empty());
    RC_ASSERT(nlohmann::json::parse(r.err).contains("error"));
  }
}

// A copy of specs/multiturn with one file replaced by the hostile text.
class SpecCopy : public harness::ScratchDir {
 public:
  SpecCopy() : ScratchDir("llmconform-hostile-") {
    fs::create_directories(path() / "specs");
    fs::copy(kRoot / "specs" / "multiturn", path() / "specs" / "multiturn",
             fs::copy_options::recursive);
  }
  std::string specs() const { return (path() / "specs").string(); }
};

RC_GTEST_PROP(HostileJson, ScenarioAndRulesFilesAreLocatedInputErrors, ()) {
  const auto text = *HostileText();
  const bool rules = *rc::gen::arbitrary<bool>();
  SpecCopy dir;
  const fs::path file =
      dir.path() / "specs" / "multiturn" / (rules ? "rules.json" : "hostile.json");
  Write(file, text);
  auto r = RunProcess({kLlmconform, "list", "--specs", dir.specs()});
  AssertAnswered(r);
  RC_ASSERT(r.exit_code == 2);
  RC_ASSERT(r.err.find(file.filename().string() + ":") != std::string::npos);
}

TEST(HostileJson, ImportRefusesASecondInputForTheSameTrace) {
  // t[a].yaml and t(a).yaml both become t-a-.trace.jsonl (and trace id
  // t-a-): the second replaced the first, with exit 0.
  harness::ScratchDir dir("llmconform-import-");
  const std::string cassette =
      llmconform::testing::ReadWholeFile(kRoot / "tests/import/test_cerebras_model_simple.yaml");
  ASSERT_FALSE(cassette.empty());
  fs::create_directories(dir.path() / "c1");
  fs::create_directories(dir.path() / "c2");
  Write(dir.path() / "c1" / "t[a].yaml", cassette);
  Write(dir.path() / "c2" / "t(a).yaml", cassette);
  auto r = RunProcess({kMockllm, "import", (dir.path() / "c1" / "t[a].yaml").string(),
                       (dir.path() / "c2" / "t(a).yaml").string(), "--out",
                       (dir.path() / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("t(a).yaml: would be written to"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir.path() / "out" / "t-a-.trace.jsonl")) << r.err;
}

TEST(HostileJson, RunRefusesASpecWithANumberOutOfRange) {
  SpecCopy dir;
  Write(dir.path() / "specs" / "multiturn" / "hostile.json",
        "{\"protocol\":\"multiturn\",\"name\":\"h\",\"input\":{\"budget\":1e999}}");
  auto r = RunProcess({kLlmconform, "run", "--specs", dir.specs(), "--out",
                       (dir.path() / "out").string(), "--report", "console"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("hostile.json:1:54: number 1e999 is out of range"), std::string::npos)
      << r.err;
}

RC_GTEST_PROP(HostileJson, JudgeAnswersAnyJournal, ()) {
  const auto text = *HostileText();
  harness::ScratchDir dir("llmconform-hostile-");
  Write(dir.path() / "journal.jsonl", text);
  auto r = RunProcess({kLlmconform, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                       "multiturn/s2-trim-oldest-history", "--journal",
                       (dir.path() / "journal.jsonl").string(), "--report", "console"});
  AssertAnswered(r);
}

RC_GTEST_PROP(HostileJson, MockllmLintAndServeAnswerAnyTrace, ()) {
  const auto text = *HostileText();
  const bool after_header = *rc::gen::arbitrary<bool>();
  harness::ScratchDir dir("llmconform-hostile-");
  const std::string header =
      R"({"format":"llmconform-trace/1","id":"h","origin":"synthesized","provider":"openai",)"
      R"("model":"m","recorded_at":"2026-01-01T00:00:00Z"})";
  const fs::path trace = dir.path() / "h.trace.jsonl";
  Write(trace, after_header ? header + "\n" + text + "\n" : text);
  auto lint = RunProcess({kMockllm, "lint", trace.string()});
  AssertAnswered(lint);
  if (after_header && IsBlankTraceText(text)) {
    // Blank lines after a header are a valid trace with no exchanges.
    RC_ASSERT(lint.exit_code == 0);
    return;
  }
  RC_ASSERT(lint.exit_code != 0);
  RC_ASSERT(lint.out.find("h.trace.jsonl:") != std::string::npos ||
            lint.err.find("h.trace.jsonl:") != std::string::npos);
  // serve refuses the trace before it listens, so it exits on its own.
  auto serve = RunProcess({kMockllm, "serve", "--port", "0", "--traces", trace.string()}, "", "",
                          {}, std::chrono::seconds(30));
  AssertAnswered(serve);
  RC_ASSERT(serve.exit_code != 0);
}

// A FIFO named where a file is read: open(2) waits for a writer that never
// comes. Every reader refuses it, named, with exit 2, before opening it.
TEST(HostileFiles, EveryFileArgumentRefusesAFifo) {
  harness::ScratchDir dir("llmconform-fifo-");
  const fs::path fifo = dir.path() / "input.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string f = fifo.string(), specs = (kRoot / "specs").string();
  const std::vector<std::vector<std::string>> commands = {
      {kMockllm, "lint", f},
      {kMockllm, "serve", "--port", "0", "--traces", f},
      {kMockllm, "import", f, "--out", (dir.path() / "out").string()},
      {kMockllm, "export", f, "--har", "--out", (dir.path() / "out.har").string()},
      {kLlmconform, "judge", "--specs", specs, "--scenario", "multiturn/s1-standard-assembly",
       "--journal", f},
      {kLlmconform, "merge", f, "--out", (dir.path() / "merged").string()},
      {kLlmconform, "run", "--specs", specs, "--filter", "multiturn/s1-standard-assembly",
       "--baseline", f, "--out", (dir.path() / "run").string()},
      {kLlmconform, "check", "--specs", specs, "--sut", "cat", "--op", "action.parse", "--replay",
       f},
  };
  for (const auto& argv : commands) {
    // Bounded, so that a reader that does wait fails this test instead of hanging it.
    const ProcessResult r = RunProcess(argv, "", "", {}, std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 2) << argv[1] << ": " << r.err;
    EXPECT_NE(r.err.find(f + ": cannot read: it is a FIFO"), std::string::npos)
        << argv[1] << ": " << r.err;
  }
}

}  // namespace
}  // namespace llmconform
