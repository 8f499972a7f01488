#include "harness/suites/toolcalls_suite.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/http_transport.h"
#include "protocols/toolcalls/conversation_check.h"
#include "protocols/toolcalls/engine.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/mount_path.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/prompts.h"
#include "protocols/toolcalls/tool_schemas.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using reports::CheckResult;
using reports::Evidence;
namespace tc = toolcalls;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A digest of every entry below `dir` (symlinks not followed), to tell
// whether a run changed it.
std::string TreeDigest(const fs::path& dir) {
  std::map<std::string, std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto st = it->symlink_status();
    const std::string rel = it->path().lexically_relative(dir).string();
    entries[rel] = fs::is_symlink(st)     ? "l:" + fs::read_symlink(it->path()).string()
                   : fs::is_directory(st) ? std::string("d")
                                          : "f:" + ReadFile(it->path());
  }
  std::string out;
  for (const auto& [k, v] : entries) out += k + "\n" + v + "\n";
  return out;
}

std::vector<Json> JsonLines(const fs::path& p) {
  std::vector<Json> out;
  std::istringstream in(ReadFile(p));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(ReadJsonOrDiscarded(line));
  }
  return out;
}

// ---- what the journal says was sent -------------------------------------

struct SentRequest {
  std::size_t index = 0;  // in the journal
  Json body;
  const Json& messages() const { return body["messages"]; }
  std::string where() const { return Format("journal[{}]/request/body/messages", index); }
};

std::vector<SentRequest> Requests(const Observation& obs) {
  std::vector<SentRequest> out;
  for (std::size_t i = 0; i < obs.journal.size(); ++i) {
    const Json& e = obs.journal[i];
    if (!e.is_object() || !e.contains("request")) continue;
    const Json& body = e["request"].value("body", Json());
    if (body.is_object() && body.contains("messages") && body["messages"].is_array())
      out.push_back({i, body});
  }
  return out;
}

// One tool call seen on the wire with its answer (the tool message that
// followed it in a later request).
struct AnsweredCall {
  std::string id;
  std::string name;  // as the model named it
  Json args;         // parsed arguments, null when they did not parse
  Json result;       // the parsed tool message content, null when none
  std::string where;
};

std::vector<AnsweredCall> AnsweredCalls(const std::vector<SentRequest>& requests) {
  std::vector<AnsweredCall> out;
  std::set<std::string> seen;
  for (const auto& r : requests) {
    const Json& ms = r.messages();
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const Json& m = ms[i];
      if (m.value("role", "") != "assistant" || !m.contains("tool_calls") ||
          !m["tool_calls"].is_array())
        continue;
      for (const auto& call : m["tool_calls"]) {
        const std::string id = call.value("id", "");
        if (id.empty() || seen.count(id)) continue;
        AnsweredCall a;
        a.id = id;
        a.name = call.contains("function") ? call["function"].value("name", "") : "";
        a.args = ReadJsonOrDiscarded(
            call.contains("function") ? call["function"].value("arguments", "") : "");
        if (a.args.is_discarded()) a.args = nullptr;
        for (std::size_t j = i + 1; j < ms.size() && ms[j].value("role", "") == "tool"; ++j) {
          if (ms[j].value("tool_call_id", "") == id && ms[j]["content"].is_string()) {
            a.result = ReadJsonOrDiscarded(ms[j]["content"].get<std::string>());
            if (a.result.is_discarded()) a.result = nullptr;
            a.where = Format("{}/{}", r.where(), j);
          }
        }
        if (!a.result.is_null()) {
          seen.insert(id);
          out.push_back(std::move(a));
        }
      }
    }
  }
  return out;
}

std::string ToolOf(const AnsweredCall& c) {
  auto t = tc::ToolFromName(c.name);
  return t ? std::string(tc::ToolName(*t)) : c.name;
}

// ---- result shapes of §6 ------------------------------------------------

bool Has(const Json& j, const char* key, Json::value_t type) {
  return j.contains(key) && (j[key].type() == type ||
                             (type == Json::value_t::number_integer && j[key].is_number_integer()));
}

std::string ShapeProblem(const std::string& tool, const Json& r) {
  static const std::set<std::string> kCodes = {"ENOENT",
                                               "E_SANDBOX_VIOLATION",
                                               "E_READ_LIMIT",
                                               "E_WRITE_LIMIT",
                                               "E_INVALID_FRONTMATTER",
                                               "E_SCHEMA_VALIDATION",
                                               "E_INVALID_TRANSITION",
                                               "E_PRECONDITION_FAILED",
                                               "E_INTERNAL"};
  if (!r.is_object() || !r.contains("ok") || !r["ok"].is_boolean()) return "no boolean ok";
  if (!r["ok"].get<bool>()) {
    if (!r.contains("error") || !r["error"].is_object()) return "ok:false without an error object";
    const Json& e = r["error"];
    if (!e.contains("code") || !e["code"].is_string() ||
        !kCodes.count(e["code"].get<std::string>())) {
      return "error.code is not one of the nine codes of §6.1";
    }
    if (!e.contains("message") || !e["message"].is_string()) return "error.message is not a string";
    if (e.contains("details") && !e["details"].is_object()) return "error.details is not an object";
    if (e["code"] == "E_INVALID_TRANSITION" &&
        !(e.contains("details") && e["details"].contains("allowedNext") &&
          e["details"]["allowedNext"].is_array())) {
      return "E_INVALID_TRANSITION without details.allowedNext";
    }
    return "";
  }
  const auto S = Json::value_t::string;
  const auto N = Json::value_t::number_integer;
  const auto B = Json::value_t::boolean;
  const auto A = Json::value_t::array;
  auto hex64 = [&](const char* key) {
    if (!r.contains(key)) return true;
    const std::string h = r[key].is_string() ? r[key].get<std::string>() : "";
    return h.size() == 64 && h.find_first_not_of("0123456789abcdef") == std::string::npos;
  };
  if (tool == "fs.read") {
    if (!Has(r, "path", S) || !Has(r, "bytes", N) || !Has(r, "sha256", S) ||
        !Has(r, "truncated", B)) {
      return "fs.read result without path, bytes, sha256 and truncated";
    }
    if (!hex64("sha256")) return "sha256 is not 64 hex digits";
    if (r["truncated"] == false && !Has(r, "content", S)) return "truncated:false without content";
    if (r["truncated"] == true && (!Has(r, "contentPreview", S) || !Has(r, "hint", S))) {
      return "truncated:true without contentPreview and hint";
    }
    return "";
  }
  if (tool == "fs.search") {
    if (!Has(r, "matches", A)) return "fs.search result without matches";
    for (const auto& m : r["matches"]) {
      if (!Has(m, "path", S) || !Has(m, "line", N) || !Has(m, "text", S))
        return "a match without path, line, text";
    }
    return "";
  }
  if (tool == "fs.list") {
    if (!Has(r, "path", S)) return "fs.list result without path";
    const bool truncated = r.value("truncated", false);
    if (!truncated && !Has(r, "entries", A)) return "fs.list result without entries";
    if (truncated && !Has(r, "entriesPreview", A))
      return "truncated fs.list result without entriesPreview";
    return "";
  }
  if (tool == "fs.write") {
    if (!Has(r, "path", S) || !Has(r, "bytesWritten", N))
      return "fs.write result without path and bytesWritten";
    return hex64("sha256After") ? "" : "sha256After is not 64 hex digits";
  }
  if (tool == "fs.apply_patch") {
    if (!Has(r, "path", S)) return "fs.apply_patch result without path";
    return hex64("sha256Before") && hex64("sha256After")
               ? ""
               : "sha256Before/After are not 64 hex digits";
  }
  return "";
}

// ---- shells of §5 -------------------------------------------------------

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      if (pos < text.size()) out.push_back(text.substr(pos));
      break;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// Parses a RUN_DIRECTIVE text and composes it again: equal texts mean the
// shell is exact. nullopt when a line is missing or out of place.
std::optional<tc::RunDirective> ParseRunDirective(const std::string& text) {
  static const char* kKeys[] = {"runType",  "intent",        "workflow",      "state",
                                "graph",    "artifactsRoot", "currentNodeId", "effectiveAgentId",
                                "autopilot"};
  const auto lines = Lines(text);
  if (lines.size() != 10 || lines[0] != "RUN_DIRECTIVE") return std::nullopt;
  std::vector<std::string> values;
  for (std::size_t i = 0; i < 9; ++i) {
    const std::string prefix = Format("- {}: ", kKeys[i]);
    if (!lines[i + 1].starts_with(prefix)) return std::nullopt;
    values.push_back(lines[i + 1].substr(prefix.size()));
  }
  tc::RunDirective d{values[0], values[1], values[2], values[3],          values[4],
                     values[5], values[6], values[7], values[8] == "true"};
  if (tc::ComposeRunDirective(d) != text) return std::nullopt;
  return d;
}

bool IsExactNodeBrief(const std::string& text) {
  const auto lines = Lines(text);
  if (lines.size() < 5 || lines[0] != "NODE_BRIEF" || !lines[1].starts_with("- currentNodeId: ") ||
      !lines[2].starts_with("- stepFile: ") || lines[3] != "- outputsMap:") {
    return false;
  }
  tc::NodeBrief b{lines[1].substr(17), lines[2].substr(12), {}, {}};
  std::size_t i = 4;
  for (; i < lines.size() && lines[i].starts_with("  - "); ++i) {
    const std::string item = lines[i].substr(4);
    const std::size_t arrow = item.find(" -> ");
    if (arrow == std::string::npos) return false;
    b.outputs_map.push_back({item.substr(0, arrow), item.substr(arrow + 4)});
  }
  if (i >= lines.size() || lines[i] != "- allowedNext:") return false;
  for (++i; i < lines.size(); ++i) {
    if (!lines[i].starts_with("  - ")) return false;
    std::string item = lines[i].substr(4);
    std::string label;
    const std::size_t l = item.find(" (label=");
    if (l != std::string::npos && item.ends_with(")")) {
      label = item.substr(l + 8, item.size() - l - 9);
      item = item.substr(0, l);
    }
    b.allowed_next.push_back({item, label});
  }
  return tc::ComposeNodeBrief(b) == text;
}

std::vector<std::pair<std::string, std::string>> UserTexts(const std::vector<SentRequest>& requests,
                                                           std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;  // (where, text)
  for (const auto& r : requests) {
    const Json& ms = r.messages();
    for (std::size_t i = 0; i < ms.size(); ++i) {
      if (ms[i].value("role", "") == "user" && ms[i]["content"].is_string() &&
          ms[i]["content"].get<std::string>().starts_with(prefix)) {
        out.emplace_back(Format("{}/{}", r.where(), i), ms[i]["content"].get<std::string>());
      }
    }
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
        out.push_back(CheckOne(rule, scenario, obs));
      } catch (const std::exception& e) {
        out.push_back(CheckResult::Error(rule, Format("the check threw: {}", e.what())));
      }
    }
    return out;
  }

 private:
  static CheckResult CheckOne(const std::string& rule, const Scenario& scenario,
                              const Observation& obs) {
    const std::vector<SentRequest> requests = Requests(obs);
    if (requests.empty()) {
      return CheckResult::Fail(rule, "no chat completion request reached mockllm",
                               {"requests", "none", "journal"});
    }
    const Json& outputs = obs.outputs;
    const Json& expect = scenario.expect;
    const bool chat = scenario.input.value("mode", "run") == "chat";
    static const std::set<std::string> kConversationRules = {"TC-3.1-1", "TC-3.2-1", "TC-3.2-2",
                                                             "TC-3.2-3", "TC-3.2-4", "TC-4.1-1",
                                                             "TC-4.1-2", "TC-4.1-4", "TC-4.1-5"};
    if (kConversationRules.count(rule) || rule == "TC-4.1-3") {
      std::size_t tool_messages = 0;
      for (const auto& r : requests) {
        for (const auto& m : r.messages()) tool_messages += m.value("role", "") == "tool";
        for (const auto& f : tc::CheckConversation(r.messages())) {
          if (f.rule == rule)
            return CheckResult::Fail(rule, f.message, {"no finding", f.message, r.where()});
        }
        if (rule == "TC-4.1-3") {
          const Json tools = r.body.value("tools", Json::array());
          if (!tools.is_array() || tools.empty()) {
            return CheckResult::Fail(rule, "a request declares no tools",
                                     {"the five function tools", tools.dump(),
                                      Format("journal[{}]/request/body/tools", r.index)});
          }
          for (const auto& t : tools) {
            const std::string name = t.contains("function") ? t["function"].value("name", "") : "";
            if (t.value("type", "") != "function" || !tc::IsValidFunctionName(name) ||
                !t["function"].contains("parameters") || !t["function"]["parameters"].is_object()) {
              return CheckResult::Fail(
                  rule,
                  Format("tool \"{}\" is not a function tool with a valid name and "
                         "JSON Schema parameters",
                         name),
                  {"{type:function, function:{name, parameters}}", t.dump(),
                   Format("journal[{}]/request/body/tools", r.index)});
            }
          }
        }
      }
      return CheckResult::Pass(rule, Format("{} requests and {} tool messages obey the rule",
                                            requests.size(), tool_messages));
    }
    const std::vector<AnsweredCall> calls = AnsweredCalls(requests);
    const Json turns = outputs.value("turns", Json::array());

    if (rule == "TC-7-1") {
      // Every reply with tool calls was followed by another request.
      for (std::size_t i = 0; i < turns.size(); ++i) {
        const Json& a = turns[i]["response"]["assistant"];
        const bool has_calls =
            a.is_object() && a.contains("tool_calls") && !a["tool_calls"].empty();
        if (has_calls && i + 1 >= requests.size()) {
          return CheckResult::Fail(
              rule, Format("reply {} had tool calls but no request followed it", i + 1),
              {"another request", "the loop stopped", Format("outputs/turns/{}", i)});
        }
      }
      return CheckResult::Pass(
          rule, Format("the loop ran {} LLM calls and stopped only on a reply without tool calls",
                       requests.size()));
    }
    if (rule == "TC-8-1") {
      int checked = 0;
      for (std::size_t i = 0; i < turns.size(); ++i) {
        const Json& a = turns[i]["response"]["assistant"];
        if (!a.is_object() || !a.contains("reasoning_content")) continue;
        for (std::size_t k = i + 1; k < requests.size(); ++k) {
          for (const auto& m : requests[k].messages()) {
            if (m.value("role", "") != "assistant" ||
                m.value("tool_calls", Json()) != a.value("tool_calls", Json()) ||
                m.value("content", Json()) != a.value("content", Json())) {
              continue;
            }
            ++checked;
            if (m.value("reasoning_content", Json()) != a["reasoning_content"]) {
              return CheckResult::Fail(
                  rule, Format("reply {}'s reasoning_content was not sent back", i + 1),
                  {a["reasoning_content"].dump(), m.value("reasoning_content", Json()).dump(),
                   requests[k].where()});
            }
          }
        }
      }
      if (checked == 0)
        return CheckResult::Skip(
            rule, "no reply with reasoning_content was sent back in a later request");
      return CheckResult::Pass(rule,
                               Format("reasoning_content sent back unchanged {} times", checked));
    }
    if (rule == "TC-4.2-1") {
      if (turns.size() != requests.size()) {
        return CheckResult::Fail(rule, "the engine did not record one EngineTurn per LLM call",
                                 {Format("{} turns", requests.size()),
                                  Format("{} turns", turns.size()), "outputs/turns"});
      }
      for (std::size_t i = 0; i < turns.size(); ++i) {
        for (const char* key :
             {"id", "phaseBefore", "request", "response", "toolRuns", "uiAfter"}) {
          if (!turns[i].contains(key)) {
            return CheckResult::Fail(rule, Format("EngineTurn {} has no {}", i + 1, key),
                                     {key, "nothing", Format("outputs/turns/{}", i)});
          }
        }
        if (turns[i]["request"]["messages"] != requests[i].messages()) {
          return CheckResult::Fail(
              rule, Format("EngineTurn {} does not record the messages sent", i + 1),
              {"the journal's messages", "other messages", Format("outputs/turns/{}", i)});
        }
      }
      return CheckResult::Pass(
          rule, Format("{} EngineTurns recorded, each with the request sent", turns.size()));
    }
    if (rule == "TC-4.2-2") {
      const std::string want = expect.value("phase", "");
      const std::string got = outputs.value("phase", "");
      if (want != got)
        return CheckResult::Fail(rule, "the run ended in another phase",
                                 {want, got, "outputs/phase"});
      if (expect.contains("stopReason") &&
          expect["stopReason"] != outputs.value("stopReason", Json())) {
        return CheckResult::Fail(
            rule, "the run stopped for another reason",
            {expect["stopReason"].dump(), outputs.value("stopReason", Json()).dump(),
             "outputs/stopReason"});
      }
      return CheckResult::Pass(
          rule, Format("the run ended {} ({})", got, outputs.value("stopReason", "")));
    }
    if (rule == "TC-5.1-1") {
      if (chat) return CheckResult::Skip(rule, "mode=chat sends no RUN_DIRECTIVE");
      const auto texts = UserTexts(requests, "RUN_DIRECTIVE");
      if (texts.empty())
        return CheckResult::Fail(rule, "no RUN_DIRECTIVE was sent",
                                 {"a RUN_DIRECTIVE user message", "none", "journal"});
      for (const auto& [where, text] : texts) {
        auto d = ParseRunDirective(text);
        if (!d || (d->intent != "start" && d->intent != "continue" && d->intent != "resume")) {
          return CheckResult::Fail(rule, "a RUN_DIRECTIVE is not the exact §5.1 shell",
                                   {"the §5.1 shell", text, where});
        }
      }
      const auto first = ParseRunDirective(texts.front().second);
      const std::string intent = scenario.input.value("intent", "start");
      if (first->intent != intent) {
        return CheckResult::Fail(rule, "the first RUN_DIRECTIVE has another intent",
                                 {intent, first->intent, texts.front().first});
      }
      return CheckResult::Pass(
          rule, Format("{} RUN_DIRECTIVE messages, each the exact shell", texts.size()));
    }
    if (rule == "TC-5.2-1") {
      if (chat) return CheckResult::Skip(rule, "mode=chat sends no NODE_BRIEF");
      const auto texts = UserTexts(requests, "NODE_BRIEF");
      if (texts.empty())
        return CheckResult::Fail(rule, "no NODE_BRIEF was sent",
                                 {"a NODE_BRIEF user message", "none", "journal"});
      for (const auto& [where, text] : texts) {
        if (!IsExactNodeBrief(text))
          return CheckResult::Fail(rule, "a NODE_BRIEF is not the exact §5.2 shell",
                                   {"the §5.2 shell", text, where});
      }
      return CheckResult::Pass(
          rule, Format("{} NODE_BRIEF messages, each the exact shell", texts.size()));
    }
    if (rule == "TC-5.3-1") {
      const Json inputs = scenario.input.value("userInputs", Json::array());
      if (inputs.empty()) return CheckResult::Skip(rule, "the scenario gives no user input");
      const auto texts = UserTexts(requests, "USER_INPUT\n");
      for (const auto& in : inputs) {
        const std::string raw = in.get<std::string>();
        const bool found = std::any_of(texts.begin(), texts.end(), [&](const auto& t) {
          if (chat) return t.second == "USER_INPUT\n" + raw;
          const auto lines = Lines(t.second);
          return lines.size() >= 2 && lines[1].starts_with("- forNodeId: ") &&
                 !lines[1].substr(13).empty() &&
                 t.second == tc::ComposeUserInput(raw, lines[1].substr(13));
        });
        if (!found) {
          return CheckResult::Fail(
              rule, Format("the user input \"{}\" was not sent in the §5.3 shell", raw),
              {chat ? "USER_INPUT\\n<text>" : "USER_INPUT\\n- forNodeId: <node>\\n<text>",
               texts.empty() ? "none" : texts.back().second, "journal"});
        }
      }
      return CheckResult::Pass(rule,
                               Format("{} user inputs sent in the exact shell", inputs.size()));
    }
    if (rule == "TC-3.1-2") {
      if (!chat) return CheckResult::Skip(rule, "the scenario runs in mode=run");
      for (const auto& r : requests) {
        const Json& ms = r.messages();
        std::size_t systems = 0;
        bool policy = false;
        for (const auto& m : ms) {
          const std::string content =
              m.value("content", Json()).is_string() ? m["content"].get<std::string>() : "";
          if (m.value("role", "") == "system") {
            ++systems;
            policy = policy || content.starts_with("Tool policy:");
          }
          if (content.starts_with("RUN_DIRECTIVE") || content.starts_with("NODE_BRIEF")) {
            return CheckResult::Fail(rule, "mode=chat sent a RUN_DIRECTIVE or NODE_BRIEF",
                                     {"none", content.substr(0, 40), r.where()});
          }
        }
        if (systems != 2 || !policy || !r.body.contains("tools")) {
          return CheckResult::Fail(
              rule, "mode=chat must send the chat rules and the tool policy only, and the tools",
              {"2 system messages, one the tool policy", Format("{} system messages", systems),
               r.where()});
        }
      }
      return CheckResult::Pass(rule, "no directives, no persona; tool policy and tools sent");
    }
    if (rule == "TC-1-2") {
      const Json audit = outputs.value("audit", Json::array());
      std::size_t runs = 0;
      std::vector<std::string> ids;
      for (const auto& t : turns) {
        for (const auto& r : t["toolRuns"]) ids.push_back(r.value("toolCallId", ""));
        runs += t["toolRuns"].size();
      }
      if (audit.size() != runs) {
        return CheckResult::Fail(
            rule, "the audit log does not hold one line per tool call",
            {Format("{} lines", runs), Format("{} lines", audit.size()), "outputs/audit"});
      }
      for (std::size_t i = 0; i < audit.size(); ++i) {
        for (const char* key : {"time", "toolCallId", "tool", "args", "ok", "errorCode",
                                "durationMs", "sha256Before", "sha256After"}) {
          if (!audit[i].contains(key))
            return CheckResult::Fail(rule, Format("audit line {} has no {}", i + 1, key),
                                     {key, audit[i].dump(), Format("outputs/audit/{}", i)});
        }
        if (audit[i]["toolCallId"] != ids[i]) {
          return CheckResult::Fail(
              rule, "the audit log is not in the order of the tool calls",
              {ids[i], audit[i]["toolCallId"].dump(), Format("outputs/audit/{}", i)});
        }
      }
      return CheckResult::Pass(rule,
                               Format("{} audit lines, one per tool call, in order", audit.size()));
    }
    if (rule == "TC-1-1") {
      const auto texts = UserTexts({requests.front()}, "RUN_DIRECTIVE");
      const auto d = texts.empty() ? std::nullopt : ParseRunDirective(texts.front().second);
      if (!d || d->intent != "resume") {
        return CheckResult::Fail(
            rule, "the first request of a resumed run has no RUN_DIRECTIVE with intent resume",
            {"intent: resume", texts.empty() ? "none" : texts.front().second,
             requests.front().where()});
      }
      const std::string node = expect.value("resumeNode", "");
      if (d->current_node_id != node) {
        return CheckResult::Fail(rule, "the resumed run does not start at the state's node",
                                 {node, d->current_node_id, texts.front().first});
      }
      for (const auto& m : requests.front().messages()) {
        const std::string role = m.value("role", "");
        if (role == "assistant" || role == "tool") {
          return CheckResult::Fail(
              rule, "the resumed run carries earlier conversation",
              {"no assistant or tool messages", m.dump().substr(0, 80), requests.front().where()});
        }
      }
      return CheckResult::Pass(rule, Format("resumed at {} from the state document alone", node));
    }
    if (rule == "TC-2.1-1" || rule == "TC-2.1-2" || rule == "TC-2.1-3") {
      int relevant = 0;
      for (const auto& c : calls) {
        const std::string path =
            c.args.is_object() && c.args.contains("path") && c.args["path"].is_string()
                ? c.args["path"].get<std::string>()
                : "";
        const std::string tool = ToolOf(c);
        const bool writes = tool == "fs.write" || tool == "fs.apply_patch";
        const std::string code =
            c.result.contains("error") ? c.result["error"].value("code", "") : "";
        bool must_refuse = false;
        if (rule == "TC-2.1-1") must_refuse = !path.empty() && !tc::ParseMountPath(path);
        if (rule == "TC-2.1-2") must_refuse = writes && path.starts_with("@pkg");
        if (rule == "TC-2.1-3") {
          if (!writes || c.result.value("ok", false) != true) continue;
          ++relevant;
          if (!path.starts_with("@project/artifacts/") && !path.starts_with("@state/")) {
            return CheckResult::Fail(rule,
                                     "a file was written outside @project/artifacts/ and @state/",
                                     {"@project/artifacts/…", path, c.where});
          }
          continue;
        }
        if (!must_refuse) continue;
        ++relevant;
        if (code != "E_SANDBOX_VIOLATION") {
          return CheckResult::Fail(
              rule, Format("{} {} was not refused with E_SANDBOX_VIOLATION", tool, path),
              {"E_SANDBOX_VIOLATION", c.result.dump(), c.where});
        }
      }
      if (rule == "TC-2.1-2" && outputs.value("pkgChanged", false)) {
        return CheckResult::Fail(rule, "the run changed @pkg",
                                 {"@pkg unchanged", "@pkg changed", "outputs/pkgChanged"});
      }
      if (relevant == 0)
        return CheckResult::Skip(rule, "no tool call in this scenario exercises the rule");
      return CheckResult::Pass(rule, Format("{} calls checked", relevant));
    }
    if (rule == "TC-2.2-1") {
      const Json state = outputs.value("state", Json());
      if (!state.is_object())
        return CheckResult::Fail(rule, "the run left no state document",
                                 {"@state/workflow.md", "none", "outputs/state"});
      if (expect.contains("finalNode") &&
          state.value("currentNodeId", Json()) != expect["finalNode"]) {
        return CheckResult::Fail(
            rule, "the state ended at another node",
            {expect["finalNode"].dump(), state.value("currentNodeId", Json()).dump(),
             "outputs/state/currentNodeId"});
      }
      if (expect.contains("stepsCompleted") &&
          state.value("stepsCompleted", Json()) != expect["stepsCompleted"]) {
        return CheckResult::Fail(
            rule, "stepsCompleted differs",
            {expect["stepsCompleted"].dump(), state.value("stepsCompleted", Json()).dump(),
             "outputs/state/stepsCompleted"});
      }
      const Json files = outputs.value("projectFiles", Json::array());
      for (const auto& a : expect.value("artifacts", Json::array())) {
        if (std::find(files.begin(), files.end(), a) == files.end()) {
          return CheckResult::Fail(rule,
                                   Format("the artifact {} was not written", a.get<std::string>()),
                                   {a.get<std::string>(), "absent", "outputs/projectFiles"});
        }
      }
      return CheckResult::Pass(rule, Format("the state reached {} with {} steps completed",
                                            state.value("currentNodeId", ""),
                                            state.value("stepsCompleted", Json::array()).size()));
    }
    if (rule.starts_with("TC-6.") || rule == "TC-1-3") {
      static const std::map<std::string, std::string> kToolOf = {
          {"TC-6.2-1", "fs.read"},  {"TC-6.3-1", "fs.search"},      {"TC-6.4-1", "fs.list"},
          {"TC-6.5-1", "fs.write"}, {"TC-6.6-1", "fs.apply_patch"}, {"TC-1-3", "fs.read"}};
      int relevant = 0;
      for (const auto& c : calls) {
        const std::string tool = ToolOf(c);
        if (rule == "TC-6.1-1" || rule == "TC-6.6-2") {
          if (c.result.value("ok", true)) continue;
          const std::string code = c.result["error"].value("code", "");
          if (rule == "TC-6.6-2" && code != "E_INVALID_TRANSITION" &&
              code != "E_INVALID_FRONTMATTER" && code != "E_SCHEMA_VALIDATION") {
            continue;
          }
        } else if (kToolOf.at(rule) != tool) {
          continue;
        }
        if (rule == "TC-1-3" && c.result.value("truncated", false) != true) continue;
        ++relevant;
        if (const std::string p = ShapeProblem(tool, c.result); !p.empty()) {
          return CheckResult::Fail(
              rule, Format("{} answered with a result of the wrong shape: {}", tool, p),
              {"the §6 shape", c.result.dump().substr(0, 300), c.where});
        }
      }
      if (rule == "TC-6.1-1") {
        for (const auto& code : expect.value("errorCodes", Json::array())) {
          const bool seen = std::any_of(calls.begin(), calls.end(), [&](const AnsweredCall& c) {
            return c.result.contains("error") && c.result["error"].value("code", Json()) == code;
          });
          if (!seen)
            return CheckResult::Fail(rule,
                                     Format("no tool result carried {}", code.get<std::string>()),
                                     {code.get<std::string>(), "absent", "journal"});
        }
      }
      if (relevant == 0)
        return CheckResult::Skip(rule, "no tool result in this scenario exercises the rule");
      return CheckResult::Pass(rule, Format("{} tool results have the §6 shape", relevant));
    }
    return CheckResult::Error(rule, Format("no check is implemented for rule {}", rule));
  }
};

}  // namespace

std::expected<Json, Error> RunToolcallsScenario(const Scenario& scenario,
                                                wire::ChatTransport& transport,
                                                const fs::path& source_root,
                                                const fs::path& work_dir) {
  const Json& in = scenario.input;
  auto package = RequireString(in, "package");
  if (!package)
    return std::unexpected(Error{Format("{}: input.{}", scenario.name, package.error().message)});
  const fs::path pkg = work_dir / "pkg", project = work_dir / "project", state = work_dir / "state";
  for (auto [from, to] : {std::pair{source_root / *package / "pkg", pkg},
                          std::pair{source_root / *package / "project", project}}) {
    if (auto c = CopyTree(from, to); !c) return std::unexpected(c.error());
  }
  fs::create_directories(state);
  if (in.contains("state"))
    std::ofstream(state / "workflow.md", std::ios::binary) << in["state"].get<std::string>();
  const std::string pkg_before = TreeDigest(pkg);

  tc::PosixFilesystem filesystem;
  tc::Sandbox sandbox(filesystem, {project.string(), pkg.string(), state.string()});
  tc::SystemClock clock;
  auto limits = tc::LimitsFromJson(in.value("limits", Json()));
  if (!limits)
    return std::unexpected(Error{Format("{}: input.{}", scenario.name, limits.error().message)});
  tc::ToolHost host(sandbox, clock, *limits);
  tc::EngineOptions options;
  options.model = in.value("model", "gpt-4o-mini");
  options.mode = in.value("mode", "run");
  options.stream = in.value("stream", false);
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
  out["audit"] = JsonLines(state / "logs" / "execution.jsonl");
  const tc::FrontmatterSplit split = tc::SplitFrontmatter(ReadFile(state / "workflow.md"));
  auto fm =
      split.present ? tc::ParseYamlMapping(split.yaml) : std::unexpected(Error{"no front matter"});
  out["state"] = fm ? tc::ToPlain(*fm) : Json();
  Json files = Json::array();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(project, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file())
      files.push_back(it->path().lexically_relative(project).generic_string());
  }
  std::sort(files.begin(), files.end());
  out["projectFiles"] = std::move(files);
  out["pkgChanged"] = TreeDigest(pkg) != pkg_before;
  return out;
}

std::unique_ptr<ProtocolSuite> MakeToolcallsSuite() { return std::make_unique<ToolcallsSuite>(); }

}  // namespace llmconform::harness
