#include "harness/client_cmd.h"

#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <optional>

#include "base/atomic_file.h"
#include "base/child_process.h"
#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/client_output.h"
#include "harness/runner.h"
#include "harness/scratch_dir.h"
#include "harness/suites/client_request.h"
#include "harness/suites/toolcalls_suite.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
namespace fs = std::filesystem;

constexpr std::size_t kOutputTail = 2000;

// The client's run: its stdout and stderr (their last kOutputTail bytes),
// killed with its whole group after the timeout. After the shell ends, the
// pipe is read until it has been quiet for kQuietPipe: a writer that left the
// group may hold it.
constexpr std::chrono::milliseconds kQuietPipe{200};

std::vector<CheckResult> SkipAll(const Scenario& s, const std::string& why) {
  std::vector<CheckResult> out;
  for (const auto& rule : s.rules) out.push_back(CheckResult::Skip(rule, why));
  return out;
}

std::string Tail(const std::string& output) {
  std::string t = output;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (t.empty()) return "";
  if (t.size() > 400) t = "…" + t.substr(t.size() - 400);
  return "; its output ends: " + DumpJson(nlohmann::json(t));
}

// Drives the scenario with the user's client instead of the reference one.
class ClientCommandDriver final : public ProtocolSuite {
 public:
  ClientCommandDriver(const Scenario& s, const RunOptions& options) : s_(s), options_(options) {}

  std::string_view protocol() const override { return s_.protocol; }

  std::expected<Observation, Error> Drive(const Scenario& s, const DriveContext& ctx) override {
    const fs::path input = ctx.work_dir / "input.json";
    const fs::path output = ctx.work_dir / "output.json";
    if (auto ok = WriteFileAtomically(input, s.input.dump(2) + "\n"); !ok)
      return std::unexpected(ok.error());
    std::vector<std::string> env = {
        "OPENAI_BASE_URL=" + ctx.llm_base_url, "OPENAI_API_KEY=mockllm",
        "LLMCONFORM_SCENARIO=" + s.protocol + "/" + s.name,
        // The SDKs of the other surfaces add their API version.
        "ANTHROPIC_BASE_URL=" + client_suite::ServerRoot(ctx.llm_base_url),
        "ANTHROPIC_API_KEY=mockllm",
        "GOOGLE_GEMINI_BASE_URL=" + client_suite::ServerRoot(ctx.llm_base_url),
        "GEMINI_API_KEY=mockllm", "LLMCONFORM_INPUT=" + input.string(),
        "LLMCONFORM_OUTPUT=" + output.string()};
    // The call's timeout (a client-profile scenario's options.timeout_ms), for
    // the client to give its SDK.
    if (const nlohmann::json& t = MemberOf(MemberOf(s.input, "options"), "timeout_ms");
        t.is_number_integer())
      env.push_back(Format("LLMCONFORM_TIMEOUT_MS={}", t.get<std::int64_t>()));
    std::optional<ToolcallsWorkspace> workspace;
    if (s.protocol == "toolcalls") {
      const fs::path dir = ctx.work_dir / "workspace";
      auto ws = PrepareToolcallsWorkspace(s, ctx.source_root, dir);
      if (!ws) return std::unexpected(ws.error());
      workspace = std::move(*ws);
      env.push_back("LLMCONFORM_WORKSPACE=" + dir.string());
    }
    auto run = RunToEnd({.command = options_.client_cmd, .env = env}, options_.client_timeout,
                        {.max_bytes = kOutputTail, .keep = OutputLimit::Keep::kTail}, kQuietPipe);
    if (!run)
      return std::unexpected(
          Error::Io("the client command could not start: " + run.error().message));
    run_ = std::move(*run);
    Observation obs;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(output, ec))) {
      output_problem_ =
          Format("the client wrote no {} (LLMCONFORM_OUTPUT)", output.filename().string());
    } else if (auto text = ReadFile(output, kMaxClientOutputBytes, Symlinks::kRefuse); !text) {
      output_problem_ = text.error().message;
    } else {
      raw_output_ = *text;
      ReadOutput(s, *text);
    }
    // No object at all: the rules see an empty one (GATE-CLIENT-OUTPUT says why).
    if (!output_problem_.empty() && mapped_.problems.empty())
      mapped_ = MapClientOutput(s, Json::object());
    obs.outputs = std::move(mapped_.outputs);
    // What a toolcalls run left on disk is read from there, whatever the client says.
    if (workspace) CollectToolcallsOutputs(*workspace, obs.outputs);
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario&, const Observation&) const override { return {}; }

  // Maps the output's text, or says in output_problem_ why it cannot be.
  void ReadOutput(const Scenario& s, const std::string& text) {
    if (auto doc = ReadJson("LLMCONFORM_OUTPUT", text); !doc) {
      output_problem_ = doc.error().message;
    } else if (!doc->is_object()) {
      output_problem_ = "LLMCONFORM_OUTPUT holds JSON that is not an object";
    } else {
      mapped_ = MapClientOutput(s, *doc);
      for (const auto& problem : mapped_.problems)
        output_problem_ += (output_problem_.empty() ? "LLMCONFORM_OUTPUT " : "; ") + problem;
    }
  }

  // LLMCONFORM_OUTPUT as the client wrote it; nullopt when it wrote none (or an unreadable one).
  const std::optional<std::string>& RawOutput() const { return raw_output_; }

  // The results that replace the rules' own where the output lacks what they read.
  const std::vector<CheckResult>& Overrides() const { return mapped_.overrides; }

  std::vector<CheckResult> ClientChecks() const {
    std::vector<CheckResult> out;
    const std::string cmd = Format("`{}`", options_.client_cmd);
    if (run_.timed_out) {
      out.push_back(CheckResult::Fail(
          "GATE-CLIENT-TIMEOUT",
          Format("the client {} did not finish within {} ms and was killed{}", cmd,
                 options_.client_timeout.count(), Tail(run_.output)),
          reports::Evidence{
              .expected = Format("exit within {} ms", options_.client_timeout.count()),
              .actual = "still running",
              .where = "client"}));
      out.push_back(CheckResult::Skip("GATE-CLIENT-EXIT", "the client timed out"));
    } else {
      out.push_back(CheckResult::Pass("GATE-CLIENT-TIMEOUT", "the client finished in time"));
      const bool ok = WIFEXITED(run_.status) && WEXITSTATUS(run_.status) == 0;
      const std::string how = WIFSIGNALED(run_.status)
                                  ? Format("was killed by signal {}", WTERMSIG(run_.status))
                                  : Format("exited with status {}", WEXITSTATUS(run_.status));
      out.push_back(ok ? CheckResult::Pass("GATE-CLIENT-EXIT", "the client exited with status 0")
                       : CheckResult::Fail(
                             "GATE-CLIENT-EXIT",
                             Format("the client {} {}{}", cmd, how, Tail(run_.output)),
                             reports::Evidence{
                                 .expected = "exit status 0", .actual = how, .where = "client"}));
    }
    out.push_back(
        output_problem_.empty()
            ? CheckResult::Pass("GATE-CLIENT-OUTPUT", "the client wrote its output object")
            : CheckResult::Fail("GATE-CLIENT-OUTPUT", output_problem_,
                                reports::Evidence{.expected = "the output object of docs/gate.md",
                                                  .actual = output_problem_,
                                                  .where = "LLMCONFORM_OUTPUT"}));
    return out;
  }

 private:
  const Scenario& s_;
  const RunOptions& options_;
  ChildRun run_;
  ClientOutput mapped_;
  std::string output_problem_;
  std::optional<std::string> raw_output_;
};

// "--- request 2, attempt 2: HTTP 200 text/event-stream, stream, cut"
std::string ReplyHeading(const Json& entry, std::size_t n) {
  const Json& replied = MemberOf(entry, "replied");
  std::string line = Format("--- request {}", n);
  if (MemberOf(entry, "attempt").is_number_integer())
    line += Format(", attempt {}", MemberOf(entry, "attempt").get<long long>());
  if (!replied.is_object())
    return line + Format(": no reply from the trace (mockllm answered HTTP {})",
                         MemberOf(MemberOf(entry, "response"), "status").dump());
  line +=
      Format(": HTTP {} {}", MemberOf(replied, "status").dump(), StringOf(replied, "content_type"));
  if (MemberOf(replied, "stream") == true) line += ", stream";
  if (MemberOf(replied, "cut") == true) line += ", cut (the connection closed early)";
  return line;
}

}  // namespace

bool HasClientSide(const Scenario& s, std::string* why_not) {
  std::string why;
  if (s.trace.empty())
    why = "the scenario replays no trace: there is no LLM for a client to talk to";
  if (why_not) *why_not = why;
  return why.empty();
}

std::string EvidenceFolder(const Scenario& s, const std::string& dialect) {
  return dialect.empty() ? s.name : s.name + "@" + dialect;
}

std::expected<void, Error> WriteClientEvidence(const fs::path& dir, const Json& journal,
                                               const std::optional<std::string>& output) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return std::unexpected(Error::Io(Format("cannot create {}: {}", dir.string(), ec.message())));
  std::string sent;
  std::size_t n = 0;
  for (const Json& entry : journal.is_array() ? journal : Json::array()) {
    sent += ReplyHeading(entry, ++n) + "\n";
    const std::string body = StringOf(MemberOf(entry, "replied"), "body");
    sent += body;
    if (!body.empty() && body.back() != '\n') sent += "\n";
  }
  if (n == 0) sent = "--- no request reached mockllm\n";
  if (auto ok = WriteFileAtomically(dir / "sent.txt", sent); !ok) return ok;
  if (output) return WriteFileAtomically(dir / "read.json", *output);
  fs::remove(dir / "read.json", ec);  // a previous run's: not this client's reading
  return {};
}

// Every result of the scenario's own rules is skipped as "unsupported: …"
// (harness/suites/client_checks.h): a surface the client does not speak, a
// call its SDK refused before sending it.
static bool AllUnsupported(const Scenario& s, const std::vector<CheckResult>& checks) {
  bool any = false;
  for (const auto& c : checks) {
    if (std::find(s.rules.begin(), s.rules.end(), c.rule) == s.rules.end()) continue;
    if (c.outcome != reports::Outcome::kSkip || !c.message.starts_with("unsupported: "))
      return false;
    any = true;
  }
  return any;
}

std::vector<CheckResult> RunClientScenario(const Scenario& s, const RunOptions& options,
                                           const std::string& dialect, const std::string& row) {
  std::string why;
  if (!HasClientSide(s, &why)) return SkipAll(s, "no client side: " + why);
  ScratchDir scratch;
  if (scratch.path().empty())
    return ErrorsForAll(s, "cannot create a scratch folder in the temp directory");
  ClientCommandDriver driver(s, options);
  auto obs =
      ObserveScenario(driver, s, options.source_root, scratch.path(), options.speed, dialect);
  if (!obs) return ErrorsForAll(s, obs.error().message);
  auto checks = ApplyOverrides(JudgeChecks(s, *obs, options.source_root), driver.Overrides());
  if (!options.evidence_dir.empty()) {
    const fs::path dir = options.evidence_dir / EvidenceFolder(s, row.empty() ? dialect : row);
    if (auto kept = WriteClientEvidence(dir, obs->journal, driver.RawOutput()); !kept)
      checks.push_back(
          CheckResult::Error("GATE-CLIENT-OUTPUT",
                             Format("the evidence could not be kept: {}", kept.error().message)));
  }
  auto client = driver.ClientChecks();
  checks.insert(checks.end(), client.begin(), client.end());
  // A scenario the client does not take is skipped as a whole: what the
  // gate found held (and that it sent fewer requests than recorded) is no
  // verdict on it; a crash or an unreadable output still fails.
  if (s.protocol == kClientProfile && AllUnsupported(s, checks)) {
    for (auto& c : checks)
      if (c.outcome == reports::Outcome::kPass ||
          (c.rule == "GATE-TOO-FEW-REQUESTS" && c.outcome == reports::Outcome::kFail))
        c = CheckResult::Skip(c.rule,
                              "the client does not take this scenario (its rules are "
                              "unsupported): " +
                                  c.message);
  }
  return checks;
}

}  // namespace llmconform::harness
