#include "harness/suites/toolcalls_suite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <sstream>

#include "base/atomic_file.h"
#include "base/file.h"
#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/http_transport.h"
#include "harness/suites/toolcalls_checks.h"
#include "harness/suites/toolcalls_journal.h"
#include "protocols/toolcalls/engine.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/sha256.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using reports::CheckResult;
namespace tc = toolcalls;

// What a run leaves may be a client's (run --client-cmd): only regular files
// are read (not a fifo, not through a symlink), and at most this much of each.
constexpr std::uintmax_t kMaxCollectedBytes = 16 * 1024 * 1024;

// The content of `p` when it is a regular file (not a FIFO, not through a
// symlink) of at most kMaxCollectedBytes, else "".
std::string ReadRegularFile(const fs::path& p) {
  return ReadFile(p, kMaxCollectedBytes, Symlinks::kRefuse).value_or("");
}

// Hashing what a run left is bounded (a client may leave a 20 GB sparse file
// in pkg/): a file larger than this, or met once the tree's budget is spent,
// is told apart by its size and modification time instead of its content.
constexpr std::uintmax_t kMaxHashedFileBytes = 16 * 1024 * 1024;
constexpr std::uintmax_t kMaxHashedTreeBytes = 256 * 1024 * 1024;
// A tree with more entries than this is digested as its first entries and a mark.
constexpr std::size_t kMaxTreeEntries = 100000;

// The digest of a regular file's content (sha256, read in chunks), or of its
// size and modification time past the budget `hash_budget`, which it spends.
std::string FileDigest(const fs::path& p, std::uintmax_t& hash_budget) {
  auto fd = OpenRegularFile(p, Symlinks::kRefuse);
  if (!fd) return "unreadable";
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return "unreadable";
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > kMaxHashedFileBytes || size > hash_budget)
    return Format("size {} mtime {}.{}", size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  hash_budget -= size;
  tc::Sha256 h;
  char buf[64 * 1024];
  std::uintmax_t left = size;  // a file that grows meanwhile is read as long as it was
  while (left > 0) {
    const ssize_t n = ::read(fd->get(), buf, std::min<std::uintmax_t>(sizeof buf, left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    h.Update(std::string_view(buf, static_cast<std::size_t>(n)));
    left -= static_cast<std::uintmax_t>(n);
  }
  return h.HexDigest();
}

// Whether `p` is a folder itself, not a symlink to one (which a walk would follow).
bool IsRealFolder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec));
}

// A digest of every entry below `dir` (symlinks not followed, only regular
// files read), to tell whether a run changed it.
std::string TreeDigest(const fs::path& dir) {
  if (!IsRealFolder(dir)) return "not a folder";
  std::map<std::string, std::string> entries;
  std::uintmax_t hash_budget = kMaxHashedTreeBytes;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (entries.size() >= kMaxTreeEntries) {
      entries["\x01more entries than counted"] = "";
      break;
    }
    const auto st = it->symlink_status();
    const std::string rel = it->path().lexically_relative(dir).string();
    std::error_code link_ec;
    entries[rel] = fs::is_symlink(st)        ? "l:" + fs::read_symlink(it->path(), link_ec).string()
                   : fs::is_directory(st)    ? std::string("d")
                   : fs::is_regular_file(st) ? "f:" + FileDigest(it->path(), hash_budget)
                                             : std::string("o");
  }
  std::string out;
  for (const auto& [k, v] : entries) out += k + "\n" + v + "\n";
  return out;
}

std::vector<Json> JsonLines(const fs::path& p) {
  std::vector<Json> out;
  std::istringstream in(ReadRegularFile(p));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(ReadJsonOrDiscarded(line));
  }
  return out;
}

// ---- the driver ---------------------------------------------------------

std::expected<void, Error> CopyTree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (fs::exists(from))
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec)
    return std::unexpected(
        Error{Format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message())});
  return {};
}

class ToolcallsSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "toolcalls"; }

  std::expected<void, Error> ReadInput(const Scenario& scenario) const override {
    const Json& in = scenario.input;
    const JsonPointer at("/input");
    if (auto package = RequireString(in, at, "package"); !package)
      return std::unexpected(package.error());
    for (const char* key : {"state", "model", "mode", "activeAgentId", "intent"})
      if (auto v = OptionalString(in, at, key); !v) return std::unexpected(v.error());
    if (auto v = OptionalBool(in, at, "stream"); !v) return std::unexpected(v.error());
    if (auto v = OptionalStrings(in, at, "userInputs"); !v) return std::unexpected(v.error());
    if (auto limits = tc::LimitsFromJson(in.value("limits", Json())); !limits)
      return std::unexpected(limits.error().Under((at / "limits").to_string()));
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    if (ctx.llm_base_url.empty())
      return std::unexpected(Error{Format("{}: the scenario needs a trace", scenario.name)});
    auto transport = MakeHttpTransport(ctx.llm_base_url);
    auto outputs = RunToolcallsScenario(scenario, *transport, ctx.source_root, ctx.work_dir);
    if (!outputs) return std::unexpected(outputs.error());
    Observation obs;
    obs.outputs = std::move(*outputs);
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    for (const auto& rule : scenario.rules) {
      try {
        const std::vector<SentRequest> requests = toolcalls_suite::Requests(obs);
        if (requests.empty()) {
          out.push_back(CheckResult::Fail(rule, "no chat completion request reached mockllm",
                                          {"requests", "none", "journal"}));
          continue;
        }
        out.push_back(RunRuleCheck(toolcalls_suite::Rules(), rule,
                                   toolcalls_suite::Context{scenario, obs, requests}));
      } catch (const std::exception& e) {
        out.push_back(CheckResult::Error(rule, Format("the check threw: {}", e.what())));
      }
    }
    return out;
  }
};

}  // namespace

std::expected<ToolcallsWorkspace, Error> PrepareToolcallsWorkspace(const Scenario& scenario,
                                                                   const fs::path& source_root,
                                                                   const fs::path& dir) {
  const Json& in = scenario.input;
  auto package = RequireString(in, "package");
  if (!package) return std::unexpected(package.error().Under("/input").Within(scenario.name));
  auto state_text = OptionalString(in, "state");
  if (!state_text) return std::unexpected(state_text.error().Under("/input").Within(scenario.name));
  ToolcallsWorkspace ws{dir / "pkg", dir / "project", dir / "state", ""};
  for (auto [from, to] : {std::pair{source_root / *package / "pkg", ws.pkg},
                          std::pair{source_root / *package / "project", ws.project}}) {
    if (auto c = CopyTree(from, to); !c) return std::unexpected(c.error());
  }
  std::error_code ec;
  fs::create_directories(ws.state, ec);
  if (ec)
    return std::unexpected(
        Error::Io(Format("cannot create {}: {}", ws.state.string(), ec.message())));
  if (*state_text) {
    if (auto ok = WriteFileAtomically(ws.state / "workflow.md", **state_text); !ok)
      return std::unexpected(ok.error());
  }
  ws.pkg_before = TreeDigest(ws.pkg);
  return ws;
}

void CollectToolcallsOutputs(const ToolcallsWorkspace& ws, Json& out) {
  out["audit"] = JsonLines(ws.state / "logs" / "execution.jsonl");
  const tc::FrontmatterSplit split =
      tc::SplitFrontmatter(ReadRegularFile(ws.state / "workflow.md"));
  auto fm =
      split.present ? tc::ParseYamlMapping(split.yaml) : std::unexpected(Error{"no front matter"});
  out["state"] = fm ? tc::ToPlain(*fm) : Json();
  Json files = Json::array();
  std::error_code ec;
  for (auto it = IsRealFolder(ws.project) ? fs::recursive_directory_iterator(ws.project, ec)
                                          : fs::recursive_directory_iterator();
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file())
      files.push_back(it->path().lexically_relative(ws.project).generic_string());
  }
  std::sort(files.begin(), files.end());
  out["projectFiles"] = std::move(files);
  out["pkgChanged"] = TreeDigest(ws.pkg) != ws.pkg_before;
}

std::expected<Json, Error> RunToolcallsScenario(const Scenario& scenario,
                                                wire::ChatTransport& transport,
                                                const fs::path& source_root,
                                                const fs::path& work_dir) {
  auto ws = PrepareToolcallsWorkspace(scenario, source_root, work_dir);
  if (!ws) return std::unexpected(ws.error());
  const Json& in = scenario.input;
  tc::PosixFilesystem filesystem;
  tc::Sandbox sandbox(filesystem, {ws->project.string(), ws->pkg.string(), ws->state.string()});
  tc::SystemClock clock;
  auto limits = tc::LimitsFromJson(in.value("limits", Json()));
  if (!limits) return std::unexpected(limits.error().Under("/input/limits").Within(scenario.name));
  tc::ToolHost host(sandbox, clock, *limits);
  tc::EngineOptions options;
  options.model = in.value("model", "gpt-4o-mini");
  options.mode = in.value("mode", "run");
  options.stream = MemberOf(in, "stream") == true;
  options.active_agent_id = in.value("activeAgentId", "");
  tc::ExecutionEngine engine(transport, host, clock, options);

  tc::RunOutcome outcome;
  Json inputs = in.value("userInputs", Json::array());
  std::size_t next_input = 0;
  if (options.mode != "chat") {
    outcome = in.value("intent", "start") == "resume" ? engine.Resume() : engine.Start();
  }
  while (next_input < inputs.size() &&
         (options.mode == "chat" || outcome.phase == tc::RunPhase::kWaitingUser)) {
    outcome = engine.SubmitUserInput(inputs[next_input++].get<std::string>());
  }

  Json out;
  out["phase"] = tc::RunPhaseName(outcome.phase);
  out["stopReason"] = outcome.stop_reason;
  out["message"] = outcome.message;
  out["error"] = outcome.error;
  Json turns = Json::array();
  for (const auto& t : engine.turns()) turns.push_back(t.ToJson());
  out["turns"] = std::move(turns);
  CollectToolcallsOutputs(*ws, out);
  return out;
}

std::unique_ptr<ProtocolSuite> MakeToolcallsSuite() { return std::make_unique<ToolcallsSuite>(); }

}  // namespace llmconform::harness
