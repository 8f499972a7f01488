#include "harness/suites/skill_suite.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/http_transport.h"
#include "protocols/skill/chat_client.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/command_runner.h"
#include "protocols/skill/json_input.h"
#include "protocols/skill/knowledge.h"
#include "protocols/skill/reply_rules.h"
#include "protocols/skill/response.h"
#include "protocols/skill/session.h"
#include "protocols/skill/skill_document.h"
#include "protocols/skill/text.h"
#include "protocols/skill/user_console.h"
#include "protocols/skill/user_messages.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
namespace sk = skill;
using reports::CheckResult;
using reports::Evidence;

// ---------------------------------------------------------------------------
// The scenario's script: the session inputs and the scripted terminal.

struct ScriptedCommand {
  std::string command;  // informational
  bool skip = false;
  std::string output;
  int exit_code = 0;
};

struct ScriptedAnswer {
  bool skip = false;
  std::string text;
};

struct Script {
  sk::SessionSetup setup;
  std::string model = "CHEAP";
  std::chrono::milliseconds timeout{30000};
  bool has_knowledge = false;
  std::optional<std::string> project_knowledge;
  std::optional<std::string> home_knowledge;
  std::vector<ScriptedCommand> commands;
  std::vector<ScriptedAnswer> answers;

  // The server context the system prompt must carry, trimmed.
  std::string Context() const {
    if (!has_knowledge) return std::string(sk::Trim(setup.server_context));
    if (project_knowledge) return std::string(sk::Trim(*project_knowledge));
    return std::string(sk::Trim(home_knowledge.value_or("")));
  }
};

std::unexpected<Error> At(std::string_view where, const Error& e) {
  return std::unexpected(Error{Format("input.{}: {}", where, e.message)});
}

// Reads the optional array `key` of objects with `read`; errors name the element.
template <typename T, typename Read>
std::expected<std::vector<T>, Error> ReadList(const Json& in, std::string_view key, Read read) {
  std::vector<T> out;
  auto it = in.find(key);
  if (it == in.end() || it->is_null()) return out;
  if (!it->is_array()) return At(key, Error{Format("expected array, got {}", JsonTypeName(*it))});
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string where = Format("{}[{}]", key, i);
    if (auto ok = RequireObjectInput((*it)[i]); !ok) return At(where, ok.error());
    std::expected<T, Error> item = read((*it)[i]);
    if (!item) return At(where, item.error());
    out.push_back(std::move(*item));
  }
  return out;
}

std::expected<ScriptedCommand, Error> ReadCommand(const Json& c) {
  ScriptedCommand cmd;
  auto command = OptionalString(c, "command");
  if (!command) return std::unexpected(command.error());
  auto skip = OptionalBool(c, "skip");
  if (!skip) return std::unexpected(skip.error());
  auto exit_code = OptionalInt(c, "exitCode");
  if (!exit_code) return std::unexpected(exit_code.error());
  cmd.command = command->value_or("");
  cmd.skip = skip->value_or(false);
  cmd.exit_code = static_cast<int>(exit_code->value_or(0));
  if (!cmd.skip) {
    auto output = RequireString(c, "output");
    if (!output) return std::unexpected(output.error());
    cmd.output = std::move(*output);
  }
  return cmd;
}

std::expected<ScriptedAnswer, Error> ReadAnswer(const Json& a) {
  auto skip = OptionalBool(a, "skip");
  if (!skip) return std::unexpected(skip.error());
  ScriptedAnswer answer{skip->value_or(false), ""};
  if (!answer.skip) {
    auto text = RequireString(a, "text");
    if (!text) return std::unexpected(text.error());
    answer.text = std::move(*text);
  }
  return answer;
}

std::expected<Script, Error> ReadScript(const Json& in) {
  Script s;
  auto setup = sk::SessionSetupFromJson(in);
  if (!setup) return std::unexpected(Error{Format("input: {}", setup.error().message)});
  s.setup = std::move(*setup);
  auto model = OptionalString(in, "model");
  if (!model) return At("model", model.error());
  if (*model) s.model = **model;
  auto timeout = OptionalInt(in, "timeoutMs");
  if (!timeout) return At("timeoutMs", timeout.error());
  if (*timeout) {
    if (**timeout < 1)
      return At("timeoutMs", Error{Format("expected at least 1, got {}", **timeout)});
    s.timeout = std::chrono::milliseconds(**timeout);
  }
  if (auto k = in.find("knowledge"); k != in.end() && !k->is_null()) {
    if (auto ok = RequireObjectInput(*k); !ok) return At("knowledge", ok.error());
    s.has_knowledge = true;
    auto project = OptionalString(*k, "project");
    auto home = OptionalString(*k, "home");
    if (!project) return At("knowledge", project.error());
    if (!home) return At("knowledge", home.error());
    s.project_knowledge = *project;
    s.home_knowledge = *home;
  }
  auto commands = ReadList<ScriptedCommand>(in, "commands", ReadCommand);
  if (!commands) return std::unexpected(commands.error());
  s.commands = std::move(*commands);
  auto answers = ReadList<ScriptedAnswer>(in, "answers", ReadAnswer);
  if (!answers) return std::unexpected(answers.error());
  s.answers = std::move(*answers);
  return s;
}

// Writes the scenario's knowledge files where LocalKnowledgeSource looks for
// them, with `work_dir` as the working folder's parent and the home folder's.
std::expected<std::string, Error> ReadKnowledge(const Script& s, const fs::path& work_dir) {
  const fs::path project = work_dir / "project";
  const fs::path home = work_dir / "home";
  auto write = [](const fs::path& dir,
                  const std::optional<std::string>& text) -> std::expected<void, Error> {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      return std::unexpected(Error{Format("{}: cannot create: {}", dir.string(), ec.message())});
    if (!text) return {};
    std::ofstream f(dir / "ai_system_promt.md", std::ios::binary);
    f << *text;
    if (!f)
      return std::unexpected(Error{Format("{}: cannot write ai_system_promt.md", dir.string())});
    return {};
  };
  if (auto ok = write(project / ".kosmos-panel", s.project_knowledge); !ok)
    return std::unexpected(ok.error());
  if (auto ok = write(home / ".config" / "kosmos-panel", s.home_knowledge); !ok)
    return std::unexpected(ok.error());
  return sk::LocalKnowledgeSource(project, home).Read();
}

// ---------------------------------------------------------------------------
// The conversation as the journal shows it, with what each next request must
// carry according to the protocol.

struct ExpectedUser {
  sk::UserMessageKind kind = sk::UserMessageKind::kOther;
  std::string payload;  // cleaned output or answer
  std::string raw;      // the raw output of a command
  std::string command;
};

struct Turn {
  std::size_t entry = 0;  // index in the journal
  std::string method;
  std::string path;
  const Json* body = nullptr;  // the request body when it is an object
  std::vector<sk::Message> messages;
  std::string messages_problem;  // "" when `messages` is a well-formed list
  int status = 0;
  std::optional<std::int64_t> exchange;
  Json fault;                        // null when none applied
  std::optional<std::string> reply;  // the model's reply the client received
  std::optional<sk::ParsedReply> parsed;
  std::optional<ExpectedUser> next;  // what the next request's last message must be
  bool limit_reached = false;        // the next user message would pass max_steps

  std::string Where(std::string_view rest = "") const {
    return Format("journal[{}]{}", entry, rest);
  }
  const sk::Message* LastUser() const {
    return !messages.empty() && messages.back().role == "user" ? &messages.back() : nullptr;
  }
};

struct Conversation {
  std::vector<Turn> turns;
};

std::vector<sk::Message> ReadMessages(const Json& body, std::string& problem) {
  std::vector<sk::Message> out;
  auto it = body.find("messages");
  if (it == body.end() || !it->is_array()) {
    problem = "body has no messages array";
    return out;
  }
  static const std::set<std::string> kRoles = {"system", "user", "assistant"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& m = (*it)[i];
    auto role = RequireString(m, "role");
    auto content = RequireString(m, "content");
    if (!role || !content) {
      if (problem.empty())
        problem = Format("messages[{}]: {}", i, (!role ? role.error() : content.error()).message);
      out.push_back({role ? *role : "", content ? *content : ""});
      continue;
    }
    if (!kRoles.contains(*role) && problem.empty()) {
      problem =
          Format("messages[{}].role: expected system, user or assistant, got \"{}\"", i, *role);
    }
    out.push_back({std::move(*role), std::move(*content)});
  }
  return out;
}

std::expected<Conversation, Error> Analyse(const Script& script, const Scenario& scenario,
                                           const Json& journal) {
  Conversation conv;
  const Json replies = scenario.expect.value("replies", Json::array());
  if (!replies.is_array()) return std::unexpected(Error{"expect.replies: expected array"});
  std::size_t next_command = 0, next_answer = 0;
  for (std::size_t i = 0; i < journal.size(); ++i) {
    const Json& e = journal[i];
    Turn t;
    t.entry = i;
    t.method = e.value("method", "");
    t.path = e.value("path", "");
    if (e.contains("request") && e["request"].contains("body") &&
        e["request"]["body"].is_object()) {
      t.body = &e["request"]["body"];
      t.messages = ReadMessages(*t.body, t.messages_problem);
    } else {
      t.messages_problem = "the request body is not a JSON object";
    }
    if (e.contains("response") && e["response"].is_object()) {
      const Json& r = e["response"];
      t.status = r.value("status", 0);
      if (r.contains("exchange") && r["exchange"].is_number_integer())
        t.exchange = r["exchange"].get<std::int64_t>();
    }
    if (e.contains("fault")) t.fault = e["fault"];
    if (t.status >= 200 && t.status < 300 && t.exchange && *t.exchange >= 0 &&
        static_cast<std::size_t>(*t.exchange) < replies.size() &&
        replies[*t.exchange].is_string()) {
      t.reply = replies[*t.exchange].get<std::string>();
      t.parsed = sk::ParseSkillResponse(*t.reply);
    }
    // What the protocol sends next, counting steps as a conformant client does.
    const std::int64_t step = static_cast<std::int64_t>(conv.turns.size()) + 1;
    t.limit_reached = step + 1 > script.setup.max_steps;
    if (t.parsed) {
      ExpectedUser next;
      switch (t.parsed->type) {
        case sk::ReplyType::kCmd: {
          if (next_command >= script.commands.size()) {
            return std::unexpected(
                Error{Format("input.commands: no entry for the [CMD] reply of exchange {} (\"{}\")",
                             *t.exchange, t.parsed->command)});
          }
          const ScriptedCommand& c = script.commands[next_command++];
          next.command = t.parsed->command;
          if (c.skip) {
            next.kind = sk::UserMessageKind::kCommandSkipped;
          } else {
            next.kind = sk::UserMessageKind::kCommandOutput;
            next.raw = c.output;
            next.payload = sk::CleanOutputForAI(c.output, t.parsed->command);
          }
          t.next = std::move(next);
          break;
        }
        case sk::ReplyType::kAsk: {
          if (next_answer >= script.answers.size()) {
            return std::unexpected(Error{
                Format("input.answers: no entry for the question of exchange {}", *t.exchange)});
          }
          const ScriptedAnswer& a = script.answers[next_answer++];
          next.kind = sk::UserMessageKind::kUserResponse;
          next.payload = a.skip ? "" : a.text;
          t.next = std::move(next);
          break;
        }
        case sk::ReplyType::kMessage:
          next.kind = sk::UserMessageKind::kContinue;
          t.next = std::move(next);
          break;
        case sk::ReplyType::kDone:
        case sk::ReplyType::kUnknown:
          break;
      }
      if (t.limit_reached) t.next.reset();
    }
    conv.turns.push_back(std::move(t));
  }
  return conv;
}

// ---------------------------------------------------------------------------
// Checks.

struct Context {
  const Scenario& scenario;
  const Script& script;
  const Observation& obs;
  const Conversation& conv;

  const std::vector<Turn>& turns() const { return conv.turns; }
  bool has_outputs() const { return obs.outputs.contains("transcript"); }
  std::int64_t max_steps() const { return script.setup.max_steps; }
};

// `s` as a JSON string literal (invalid UTF-8 shown as U+FFFD).
std::string Quote(std::string_view s) {
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

CheckResult NoRequests(const std::string& rule) {
  return CheckResult::Fail(rule, "no request reached mockllm",
                           {"at least one request", "none", "journal"});
}

// Applies `bad` to every turn; the first it reports fails the rule.
CheckResult ForEveryTurn(const std::string& rule, const Context& c, std::string pass,
                         const std::function<std::optional<Evidence>(const Turn&)>& bad,
                         std::string failure) {
  if (c.turns().empty()) return NoRequests(rule);
  for (const Turn& t : c.turns()) {
    if (auto ev = bad(t)) return CheckResult::Fail(rule, failure, *ev);
  }
  return CheckResult::Pass(rule, Format("{} requests: {}", c.turns().size(), pass));
}

CheckResult CheckReq1(const std::string& rule, const Context& c) {
  return ForEveryTurn(
      rule, c, "each POST …/chat/completions with a JSON object body",
      [](const Turn& t) -> std::optional<Evidence> {
        if (t.method != "POST" || !t.path.ends_with("/chat/completions") || !t.body) {
          return Evidence{
              "POST …/chat/completions with a JSON object body",
              Format("{} {}{}", t.method, t.path, t.body ? "" : " (body not an object)"),
              t.Where()};
        }
        return std::nullopt;
      },
      "a request is not POST …/chat/completions with a JSON object body");
}

CheckResult CheckBodyField(const std::string& rule, const Context& c, std::string_view field,
                           const Json& want) {
  return ForEveryTurn(
      rule, c, Format("\"{}\" is {}", field, want.dump()),
      [&](const Turn& t) -> std::optional<Evidence> {
        const Json* v =
            t.body && t.body->contains(field) ? &(*t.body)[std::string(field)] : nullptr;
        bool ok = false;
        if (v && want.is_string()) {
          ok = *v == want;
        } else if (v && want.is_number_integer()) {
          ok = v->is_number_integer() && *v == want;
        } else if (v) {
          ok = v->is_number() && v->get<double>() == want.get<double>();
        }
        if (ok) return std::nullopt;
        return Evidence{want.dump(), v ? v->dump() : "absent",
                        t.Where(Format("/request/body/{}", field))};
      },
      Format("a request's \"{}\" is not {}", field, want.dump()));
}

CheckResult CheckReq5(const std::string& rule, const Context& c) {
  return ForEveryTurn(
      rule, c, "messages are {role, content} with roles system, user, assistant",
      [](const Turn& t) -> std::optional<Evidence> {
        if (t.messages_problem.empty()) return std::nullopt;
        return Evidence{"[{role: system|user|assistant, content: string}…]", t.messages_problem,
                        t.Where("/request/body/messages")};
      },
      "a request's messages are not well-formed");
}

// The index of the first turn after `k`, if any.
bool HasLaterTurn(const Context& c, std::size_t k) { return k + 1 < c.turns().size(); }

// When the client's outputs are there: a failure unless the session ended
// for `reason` with a message holding `message_contains`.
std::optional<CheckResult> WrongEnd(const std::string& rule, const Context& c,
                                    std::string_view reason, std::string_view message_contains) {
  if (!c.has_outputs()) return std::nullopt;
  const Json& end = c.obs.outputs.value("end", Json::object());
  const std::string got_reason = end.is_object() ? end.value("reason", "") : "";
  const std::string got_message = end.is_object() ? end.value("message", "") : "";
  if (got_reason != reason || got_message.find(message_contains) == std::string::npos) {
    return CheckResult::Fail(
        rule, "the session did not end as the protocol says",
        {Format("{{\"reason\":\"{}\", a message containing {}}}", reason, Quote(message_contains)),
         end.dump(), "outputs/end"});
  }
  // And as the scenario says, where it says so.
  const Json want = c.scenario.expect.value("end", Json::object());
  const bool same = (!want.contains("reason") || want["reason"] == got_reason) &&
                    (!want.contains("message") || want["message"] == got_message) &&
                    (!want.contains("messageContains") ||
                     got_message.find(want.value("messageContains", "")) != std::string::npos);
  if (!same) {
    return CheckResult::Fail(rule, "the session's end differs from the scenario's",
                             {want.dump(), end.dump(), "outputs/end"});
  }
  return std::nullopt;
}

bool IsDelayedPastTimeout(const Turn& t, const Script& s) {
  if (!t.fault.is_object()) return false;
  const std::int64_t delay = t.fault.value("delay_ms", std::int64_t{0});
  const std::int64_t stall = t.fault.value("stall_ms", std::int64_t{0});
  return std::max(delay, stall) > s.timeout.count();
}

CheckResult CheckReq6(const std::string& rule, const Context& c) {
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!IsDelayedPastTimeout(t, c.script)) continue;
    if (HasLaterTurn(c, k)) {
      return CheckResult::Fail(
          rule, "the client waited past its timeout and went on with the delayed answer",
          {"no request after the timed-out one",
           Format("a request at {}", c.turns()[k + 1].Where()), c.turns()[k + 1].Where()});
    }
    if (auto wrong = WrongEnd(rule, c, "model_error", "timed out")) return *wrong;
    return CheckResult::Pass(
        rule, Format("the answer to {} was delayed {} past the {} ms timeout; the client gave "
                     "up and sent nothing more",
                     t.Where(), t.fault.dump(), c.script.timeout.count()));
  }
  return CheckResult::Skip(rule, "no answer in this scenario is delayed past the client's timeout");
}

bool IsErrorAnswer(const Turn& t) { return !t.reply.has_value(); }

CheckResult CheckReq7(const std::string& rule, const Context& c) {
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!IsErrorAnswer(t) || IsDelayedPastTimeout(t, c.script)) continue;
    for (std::size_t j = k + 1; j < c.turns().size(); ++j) {
      if (c.turns()[j].messages.size() > t.messages.size()) {
        return CheckResult::Fail(
            rule, "the history grew after an error answer",
            {Format("at most the {} messages of {}", t.messages.size(), t.Where()),
             Format("{} messages", c.turns()[j].messages.size()), c.turns()[j].Where()});
      }
    }
    if (auto wrong = WrongEnd(rule, c, "model_error", "")) return *wrong;
    return CheckResult::Pass(
        rule,
        Format("the HTTP {} answer to {} was taken as an error, not a reply", t.status, t.Where()));
  }
  return CheckResult::Skip(rule, "no answer in this scenario is an error");
}

CheckResult CheckMsg1(const std::string& rule, const Context& c) {
  return ForEveryTurn(
      rule, c, "messages[0] is the system message",
      [](const Turn& t) -> std::optional<Evidence> {
        if (!t.messages.empty() && t.messages[0].role == "system") return std::nullopt;
        return Evidence{"role \"system\"",
                        t.messages.empty() ? "no messages" : Quote(t.messages[0].role),
                        t.Where("/request/body/messages/0/role")};
      },
      "a request does not start with the system message");
}

CheckResult CheckMsg2(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const std::string first = c.turns()[0].messages.empty() ? "" : c.turns()[0].messages[0].content;
  return ForEveryTurn(
      rule, c, "the system message is the same in every request",
      [&](const Turn& t) -> std::optional<Evidence> {
        const std::string got = t.messages.empty() ? "" : t.messages[0].content;
        if (got == first) return std::nullopt;
        return Evidence{Quote(first), Quote(got), t.Where("/request/body/messages/0/content")};
      },
      "the system message changed during the session");
}

std::string Show(const std::vector<sk::Message>& ms) {
  Json out = Json::array();
  for (const auto& m : ms) out.push_back({{"role", m.role}, {"content", m.content}});
  return out.dump();
}

CheckResult CheckMsg3(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const auto& ms = c.turns()[k].messages;
    for (std::size_t i = 1; i < ms.size(); ++i) {
      const char* want = i % 2 ? "user" : "assistant";
      if (ms[i].role != want) {
        return CheckResult::Fail(
            rule, "the roles do not alternate user, assistant after the system message",
            {want, Quote(ms[i].role),
             c.turns()[k].Where(Format("/request/body/messages/{}/role", i))});
      }
    }
    if (ms.empty() || ms.back().role != "user") {
      return CheckResult::Fail(
          rule, "a request does not end with a user message",
          {"user", ms.empty() ? "no messages" : Quote(ms.back().role), c.turns()[k].Where()});
    }
    if (k == 0) continue;
    const auto& prev = c.turns()[k - 1].messages;
    const bool grows =
        ms.size() == prev.size() + 2 && std::equal(prev.begin(), prev.end(), ms.begin());
    if (!grows) {
      return CheckResult::Fail(
          rule, "a request does not carry the previous history unchanged plus one exchange",
          {Format("{} + [assistant, user]", Show(prev)), Show(ms),
           c.turns()[k].Where("/request/body/messages")});
    }
  }
  return CheckResult::Pass(
      rule, Format("{} requests; each adds one assistant and one user message to an unchanged "
                   "history",
                   c.turns().size()));
}

CheckResult CheckMsg4(const std::string& rule, const Context& c) {
  std::size_t checked = 0;
  for (std::size_t k = 1; k < c.turns().size(); ++k) {
    const Turn& prev = c.turns()[k - 1];
    const Turn& t = c.turns()[k];
    if (!prev.parsed || t.messages.size() < 2) continue;
    const sk::Message& a = t.messages[t.messages.size() - 2];
    if (a.role != "assistant" || a.content != prev.parsed->content) {
      return CheckResult::Fail(
          rule, "the assistant message sent back is not the parsed reply's content",
          {Quote(prev.parsed->content), Quote(a.content),
           t.Where(Format("/request/body/messages/{}/content", t.messages.size() - 2))});
    }
    ++checked;
  }
  if (checked == 0) return CheckResult::Skip(rule, "no reply was followed by another request");
  return CheckResult::Pass(
      rule, Format("{} assistant messages are the parsed replies' content", checked));
}

struct SystemParts {
  std::string base, context_section, skill_section;
};

SystemParts ExpectedSystem(const Script& s) {
  SystemParts p;
  p.base = s.setup.base_prompt;
  const std::string ctx = s.Context();
  if (!ctx.empty()) p.context_section = "\n\n--- System Context ---\n" + ctx;
  p.skill_section = Format("\n\n--- Active Skill: {} ---\n{}", s.setup.skill_name,
                           sk::SkillBody(s.setup.skill_markdown));
  return p;
}

CheckResult CheckPrompt(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const Turn& t = c.turns()[0];
  const std::string got = t.messages.empty() ? "" : t.messages[0].content;
  const std::string where = t.Where("/request/body/messages/0/content");
  const SystemParts want = ExpectedSystem(c.script);
  const std::string whole = want.base + want.context_section + want.skill_section;
  const bool base_ok = got.starts_with(want.base);
  const bool skill_ok = got.ends_with(want.skill_section);
  if (rule == "SKILL-PROMPT-1") {
    if (base_ok)
      return CheckResult::Pass(
          rule, Format("the system prompt begins with the {}-byte base prompt", want.base.size()));
    return CheckResult::Fail(rule, "the system prompt does not begin with the base prompt",
                             {whole, got, where});
  }
  if (rule == "SKILL-PROMPT-3") {
    if (skill_ok)
      return CheckResult::Pass(rule,
                               Format("the system prompt ends with the active skill section of {}",
                                      c.script.setup.skill_name));
    return CheckResult::Fail(rule, "the system prompt does not end with the active skill section",
                             {whole, got, where});
  }
  // SKILL-PROMPT-2 and -4: what lies between.
  if (!base_ok || !skill_ok || got.size() < want.base.size() + want.skill_section.size()) {
    return CheckResult::Fail(rule, "the system prompt is not base + context + active skill",
                             {whole, got, where});
  }
  const std::string middle =
      got.substr(want.base.size(), got.size() - want.base.size() - want.skill_section.size());
  if (rule == "SKILL-PROMPT-4" && !c.script.has_knowledge) {
    return CheckResult::Skip(rule,
                             "the scenario gives the context directly, not as knowledge files");
  }
  if (middle != want.context_section) {
    return CheckResult::Fail(rule, "the server context section is not as specified",
                             {Quote(want.context_section), Quote(middle), where});
  }
  if (rule == "SKILL-PROMPT-4") {
    return CheckResult::Pass(rule, Format("the context is the {} file's text",
                                          c.script.project_knowledge ? "project (./.kosmos-panel)"
                                                                     : "home (~/.config)"));
  }
  return CheckResult::Pass(
      rule, want.context_section.empty()
                ? "the blank context adds nothing"
                : "the context follows the base prompt under \"--- System Context ---\"");
}

CheckResult CheckUser1(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const Turn& t = c.turns()[0];
  const auto& s = c.script.setup;
  const std::string want =
      sk::BuildInitialUserPrompt(s.skill_name, s.parameters, s.custom_prompt, 1, s.max_steps);
  const std::string want_head = want.substr(0, want.size() - sk::StepMarker(1, s.max_steps).size());
  if (t.messages.size() < 2 || t.messages[1].role != "user") {
    return CheckResult::Fail(rule, "the first request has no first user message",
                             {Quote(want), Show(t.messages), t.Where()});
  }
  const sk::UserMessageParts parts = sk::SplitUserMessage(t.messages[1].content);
  const std::string head = parts.step ? parts.payload : t.messages[1].content;
  if (head != want_head) {
    return CheckResult::Fail(
        rule, "the first user message is not as §4.1 builds it",
        {Quote(want_head), Quote(head), t.Where("/request/body/messages/1/content")});
  }
  return CheckResult::Pass(rule, Format("the first user message is {}", Quote(want_head)));
}

// The user message of the request after turn `k`.
const sk::Message* NextUserMessage(const Context& c, std::size_t k) {
  return HasLaterTurn(c, k) ? c.turns()[k + 1].LastUser() : nullptr;
}

CheckResult CheckFollowUp(const std::string& rule, const Context& c, sk::UserMessageKind kind) {
  std::size_t checked = 0;
  for (std::size_t k = 0; k + 1 < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!t.next || t.next->kind != kind) continue;
    const Turn& n = c.turns()[k + 1];
    const sk::Message* m = n.LastUser();
    const std::string where =
        n.Where(Format("/request/body/messages/{}/content", n.messages.size() - 1));
    const sk::UserMessageParts parts = sk::SplitUserMessage(m ? m->content : "");
    const bool payload_matters = kind == sk::UserMessageKind::kUserResponse;
    if (!m || parts.kind != kind || (payload_matters && parts.payload != t.next->payload)) {
      std::string want;
      switch (kind) {
        case sk::UserMessageKind::kCommandOutput:
          want = "Command output:\n…";
          break;
        case sk::UserMessageKind::kCommandSkipped:
          want = sk::CommandSkippedMessage(k + 2, c.max_steps());
          break;
        case sk::UserMessageKind::kUserResponse:
          want = sk::UserResponseMessage(t.next->payload, k + 2, c.max_steps());
          break;
        default:
          want = sk::ContinueMessage(k + 2, c.max_steps());
          break;
      }
      return CheckResult::Fail(rule,
                               Format("after the reply {} the user message is not the {} template",
                                      Quote(t.reply.value_or("")), sk::UserMessageKindName(kind)),
                               {Quote(want), m ? Quote(m->content) : "no user message", where});
    }
    ++checked;
  }
  if (checked == 0) {
    return CheckResult::Skip(
        rule, Format("no {} message is due in this conversation", sk::UserMessageKindName(kind)));
  }
  return CheckResult::Pass(
      rule, Format("{} {} messages follow the template", checked, sk::UserMessageKindName(kind)));
}

CheckResult CheckUser6(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    const sk::Message* m = t.LastUser();
    const sk::UserMessageParts parts = sk::SplitUserMessage(m ? m->content : "");
    const std::int64_t step = static_cast<std::int64_t>(k) + 1;
    if (!parts.step || *parts.step != step || *parts.max_steps != c.max_steps()) {
      return CheckResult::Fail(
          rule, "a user message does not end with the step marker that counts it",
          {Quote(sk::StepMarker(step, c.max_steps())),
           m ? Quote(m->content.substr(m->content.size() -
                                       std::min<std::size_t>(m->content.size(), 24)))
             : "no user message",
           t.Where(Format("/request/body/messages/{}/content", t.messages.size() - 1))});
    }
  }
  if (c.has_outputs() && c.scenario.expect.contains("steps") &&
      c.obs.outputs.value("steps", Json()) != c.scenario.expect["steps"]) {
    return CheckResult::Fail(rule, "the session's steps differ from the scenario's",
                             {c.scenario.expect["steps"].dump(),
                              c.obs.outputs.value("steps", Json()).dump(), "outputs/steps"});
  }
  return CheckResult::Pass(
      rule, Format("steps 1 to {} of {}, one per user message", c.turns().size(), c.max_steps()));
}

// ---- cleaning

struct SentOutput {
  const Turn* turn;  // the turn whose [CMD] reply the output answers
  const Turn* next;  // the request carrying it
  std::string where;
  std::string payload;  // what was sent after "Command output:\n"
};

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t nl = text.find('\n', pos);
    out.emplace_back(text.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::vector<SentOutput> SentOutputs(const Context& c) {
  std::vector<SentOutput> out;
  for (std::size_t k = 0; k + 1 < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!t.next || t.next->kind != sk::UserMessageKind::kCommandOutput) continue;
    const Turn& n = c.turns()[k + 1];
    const sk::Message* m = n.LastUser();
    const sk::UserMessageParts parts = sk::SplitUserMessage(m ? m->content : "");
    out.push_back(
        {&t, &n, n.Where(Format("/request/body/messages/{}/content", n.messages.size() - 1)),
         parts.kind == sk::UserMessageKind::kCommandOutput ? parts.payload
                                                           : std::string(m ? m->content : "")});
  }
  return out;
}

// A raw line as the cleaning sees it before prompts: escapes gone, CR gone, trimmed.
std::vector<std::string> RawLines(std::string_view raw) {
  std::vector<std::string> out;
  for (std::string line : Lines(sk::StripTerminalEscapes(raw))) {
    std::erase(line, '\r');
    out.emplace_back(sk::Trim(line));
  }
  return out;
}

struct CleanRule {
  // Whether the raw output exercises the rule.
  std::function<bool(const ExpectedUser&)> applies;
  // A problem with the sent payload, or "".
  std::function<std::string(const ExpectedUser&, const std::string&)> problem;
  std::string what;  // the outputs the rule is about, for messages ("" for all)
};

CheckResult CheckClean(const std::string& rule, const Context& c, const CleanRule& r) {
  std::size_t checked = 0;
  for (const SentOutput& s : SentOutputs(c)) {
    const ExpectedUser& want = *s.turn->next;
    if (!r.applies(want)) continue;
    if (std::string p = r.problem(want, s.payload); !p.empty()) {
      return CheckResult::Fail(rule, Format("the output of {} was sent {}", Quote(want.command), p),
                               {Quote(want.payload), Quote(s.payload), s.where});
    }
    ++checked;
  }
  const std::string what = r.what.empty() ? "" : " " + r.what;
  if (checked == 0)
    return CheckResult::Skip(rule, Format("no command output in this conversation{}", what));
  return CheckResult::Pass(rule,
                           Format("{} command output(s){}: cleaned as specified", checked, what));
}

CleanRule CleanRuleFor(const std::string& rule) {
  auto any = [](const ExpectedUser&) { return true; };
  if (rule == "SKILL-CLEAN-1") {
    return {any,
            [](const ExpectedUser& w, const std::string& got) {
              return got == w.payload ? "" : "differently from cleanOutputForAI";
            },
            ""};
  }
  if (rule == "SKILL-CLEAN-2") {
    return {[](const ExpectedUser& w) { return w.raw.find('\x1b') != std::string::npos; },
            [](const ExpectedUser&, const std::string& got) {
              return got.find('\x1b') == std::string::npos ? "" : "with escape sequences left in";
            },
            "with escape sequences"};
  }
  if (rule == "SKILL-CLEAN-3") {
    return {[](const ExpectedUser& w) {
              for (const auto& l : RawLines(w.raw)) {
                if (sk::TerminalPromptLength(l) > 0) return true;
              }
              return false;
            },
            [](const ExpectedUser& w, const std::string& got) -> std::string {
              for (const auto& l : Lines(got)) {
                if (sk::TerminalPromptLength(l) > 0)
                  return Format("with a prompt left at a line start ({})", Quote(l));
              }
              // The rest of a prompt's line stays: every line of the reference is there.
              for (const auto& l : Lines(w.payload)) {
                if (got.find(l) == std::string::npos) return Format("without {}", Quote(l));
              }
              return "";
            },
            "with terminal prompts"};
  }
  if (rule == "SKILL-CLEAN-4") {
    return {[](const ExpectedUser& w) {
              return w.raw.find("Microsoft Windows [Version") != std::string::npos ||
                     w.raw.find("(c) Microsoft Corporation") != std::string::npos;
            },
            [](const ExpectedUser&, const std::string& got) -> std::string {
              for (const auto& l : Lines(got)) {
                if (sk::IsWindowsBannerLine(l)) return Format("with the banner line {}", Quote(l));
              }
              return "";
            },
            "with a Windows banner"};
  }
  if (rule == "SKILL-CLEAN-5") {
    return {any,
            [](const ExpectedUser&, const std::string& got) -> std::string {
              if (got.find('\r') != std::string::npos) return "with carriage returns";
              for (const auto& l : Lines(got)) {
                if (l.empty()) return "with an empty line";
                if (sk::Trim(l) != l) return Format("with an untrimmed line {}", Quote(l));
              }
              return "";
            },
            ""};
  }
  if (rule == "SKILL-CLEAN-6") {
    return {[](const ExpectedUser& w) {
              const auto first = Lines(sk::CleanOutputForAI(w.raw)).front();
              return first.starts_with(std::string(sk::Trim(w.command)));
            },
            [](const ExpectedUser& w, const std::string& got) -> std::string {
              const std::string want = Lines(w.payload).front();
              const std::string have = Lines(got).front();
              return want == have
                         ? ""
                         : Format("with the first line {} instead of {}", Quote(have), Quote(want));
            },
            "opening with the echoed command"};
  }
  if (rule == "SKILL-CLEAN-7") {
    return {[](const ExpectedUser& w) {
              std::set<std::string> seen;
              for (const auto& l : RawLines(w.raw)) {
                if (!l.empty() && !seen.insert(l).second) return true;
              }
              return false;
            },
            [](const ExpectedUser& w, const std::string& got) -> std::string {
              std::set<std::string> seen;
              for (const auto& l : Lines(got)) {
                if (!seen.insert(l).second) return Format("with the line {} repeated", Quote(l));
              }
              return Lines(got) == Lines(w.payload) ? "" : "without the first occurrences in order";
            },
            "with repeated lines"};
  }
  // SKILL-CLEAN-8
  return {[](const ExpectedUser& w) { return w.payload == sk::kNoOutput; },
          [](const ExpectedUser&, const std::string& got) {
            return got == sk::kNoOutput ? "" : "as something other than \"(no output)\"";
          },
          "that clean to nothing"};
}

// ---- parsing, reply rules, states

// Every reply the client received, in order, with its index among them.
struct Received {
  std::size_t index;
  const Turn* turn;
};

std::vector<Received> ReceivedReplies(const Context& c) {
  std::vector<Received> out;
  for (const Turn& t : c.turns()) {
    if (t.reply) out.push_back({out.size(), &t});
  }
  return out;
}

bool Untagged(const Turn& t) {
  return t.parsed->type == sk::ReplyType::kCmd && t.parsed->content != sk::Trim(*t.reply);
}

bool ParseRuleApplies(const std::string& rule, const Turn& t) {
  const sk::ParsedReply& p = *t.parsed;
  if (rule == "SKILL-PARSE-1") return p.type == sk::ReplyType::kCmd && !Untagged(t);
  if (rule == "SKILL-PARSE-2") return p.type == sk::ReplyType::kAsk && p.required;
  if (rule == "SKILL-PARSE-3") return p.type == sk::ReplyType::kAsk && !p.required;
  if (rule == "SKILL-PARSE-4") return p.type == sk::ReplyType::kMessage;
  if (rule == "SKILL-PARSE-5") return p.type == sk::ReplyType::kDone;
  if (rule == "SKILL-PARSE-6") return Untagged(t) || p.type == sk::ReplyType::kUnknown;
  if (rule == "SKILL-PARSE-7") {
    if (p.type == sk::ReplyType::kUnknown || Untagged(t)) return false;
    for (const Finding& f : sk::CheckReply(*t.reply)) {
      if (f.rule == "SKILL-REPLY-1" || f.rule == "SKILL-REPLY-2") return true;
    }
    return false;
  }
  return p.type == sk::ReplyType::kCmd &&
         t.reply->find("```") != std::string::npos;  // SKILL-PARSE-8
}

CheckResult CheckParse(const std::string& rule, const Context& c) {
  std::size_t checked = 0;
  const Json* expected =
      c.scenario.expect.contains("parsed") ? &c.scenario.expect["parsed"] : nullptr;
  const Json* got = c.has_outputs() ? &c.obs.outputs["parsed"] : nullptr;
  for (const Received& r : ReceivedReplies(c)) {
    if (!ParseRuleApplies(rule, *r.turn)) continue;
    const Json reference = sk::ToJson(*r.turn->parsed);
    const Json want = expected && r.index < expected->size() ? (*expected)[r.index] : reference;
    if (want != reference) {
      return CheckResult::Error(
          rule, Format("expect.parsed[{}] disagrees with the reference parser: {} vs {}", r.index,
                       want.dump(), reference.dump()));
    }
    if (got) {
      const Json have = r.index < got->size() ? (*got)[r.index] : Json();
      if (have != want) {
        return CheckResult::Fail(rule,
                                 Format("the reply {} was parsed wrongly", Quote(*r.turn->reply)),
                                 {want.dump(), have.dump(), Format("outputs/parsed/{}", r.index)});
      }
    }
    ++checked;
  }
  if (checked == 0)
    return CheckResult::Skip(rule,
                             "no reply in this conversation is of the kind the rule is about");
  if (!got) {
    return CheckResult::Skip(
        rule, Format("{} replies of this kind, but no client outputs to compare (journal only)",
                     checked));
  }
  return CheckResult::Pass(rule, Format("{} replies parsed as specified", checked));
}

CheckResult CheckReplyRule(const std::string& rule, const Context& c) {
  std::set<std::int64_t> expected;
  for (const auto& f : c.scenario.expect.value("replyFindings", Json::array())) {
    if (f.value("rule", "") == rule) expected.insert(f.value("reply", std::int64_t{-1}));
  }
  std::size_t checked = 0;
  std::vector<std::string> seen;
  for (const Received& r : ReceivedReplies(c)) {
    ++checked;
    std::optional<Finding> finding;
    for (const Finding& f : sk::CheckReply(*r.turn->reply)) {
      if (f.rule == rule) finding = f;
    }
    const bool meant = expected.contains(*r.turn->exchange);
    if (finding && !meant) {
      return CheckResult::Fail(rule,
                               Format("the model's reply breaks the rule: {}", finding->message),
                               {"a reply that keeps the rule", Quote(*r.turn->reply),
                                Format("expect/replies/{}", *r.turn->exchange)});
    }
    if (!finding && meant) {
      return CheckResult::Error(
          rule, Format("expect.replyFindings names reply {} for {}, but it keeps the rule",
                       *r.turn->exchange, rule));
    }
    if (finding) seen.push_back(Format("reply {}: {}", *r.turn->exchange, finding->message));
  }
  if (checked == 0) return CheckResult::Skip(rule, "the client received no reply");
  if (!seen.empty()) {
    std::string list;
    for (const auto& s : seen) list += (list.empty() ? "" : "; ") + s;
    return CheckResult::Pass(
        rule, Format("breaches found exactly where the scenario plants them ({})", list));
  }
  return CheckResult::Pass(rule, Format("{} replies keep the rule", checked));
}

// The transcript's "reply" events, in order.
std::vector<const Json*> ReplyEvents(const Context& c) {
  std::vector<const Json*> out;
  if (!c.has_outputs()) return out;
  for (const auto& e : c.obs.outputs["transcript"]) {
    if (e.value("event", "") == "reply") out.push_back(&e);
  }
  return out;
}

CheckResult CheckState1(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const Turn& t = c.turns()[0];
  if (t.messages.size() != 2) {
    return CheckResult::Fail(rule, "the first request is not [system, first user message]",
                             {"2 messages", Format("{} messages", t.messages.size()),
                              t.Where("/request/body/messages")});
  }
  if (c.has_outputs()) {
    const Json& states = c.obs.outputs["states"];
    if (states.empty() || states[0] != "idle") {
      return CheckResult::Fail(rule, "the session did not start idle",
                               {"\"idle\"", states.dump(), "outputs/states/0"});
    }
    if (c.scenario.expect.contains("states") && states != c.scenario.expect["states"]) {
      return CheckResult::Fail(
          rule, "the session's states differ from the scenario's",
          {c.scenario.expect["states"].dump(), states.dump(), "outputs/states"});
    }
  }
  return CheckResult::Pass(rule, c.has_outputs()
                                     ? "started idle with one request; the states are as expected"
                                     : "the first request is [system, first user message]");
}

// After each reply of `type`, the next request follows with a user message of
// one of `kinds` and the session was in `state`.
CheckResult CheckWaiting(const std::string& rule, const Context& c, sk::ReplyType type,
                         std::set<sk::UserMessageKind> kinds, std::string_view state) {
  std::size_t checked = 0;
  const auto events = ReplyEvents(c);
  std::size_t reply_index = 0;
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!t.reply) continue;
    const std::size_t index = reply_index++;
    if (t.parsed->type != type) continue;
    if (!t.limit_reached) {
      const sk::Message* m = NextUserMessage(c, k);
      const auto kind = sk::SplitUserMessage(m ? m->content : "").kind;
      if (!m || !kinds.contains(kind)) {
        return CheckResult::Fail(
            rule,
            Format("after the reply {} the next request does not carry what the state waits for",
                   Quote(*t.reply)),
            {Format("a request with a {} message", sk::UserMessageKindName(*kinds.begin())),
             m ? Quote(m->content) : "no further request",
             HasLaterTurn(c, k) ? c.turns()[k + 1].Where() : "journal"});
      }
    }
    if (index < events.size() && events[index]->value("state", "") != state) {
      return CheckResult::Fail(
          rule, Format("after the reply {} the session was not {}", Quote(*t.reply), state),
          {Quote(state),
           events[index]->value("state", "").empty() ? "none"
                                                     : Quote(events[index]->value("state", "")),
           "outputs/transcript"});
    }
    ++checked;
  }
  if (checked == 0)
    return CheckResult::Skip(rule,
                             Format("no {} reply in this conversation", sk::ReplyTypeName(type)));
  return CheckResult::Pass(
      rule, Format("{} {} replies: the session was {} and went on as specified", checked,
                   sk::ReplyTypeName(type), state));
}

// After a reply that ends the session, no further request.
CheckResult CheckEnds(const std::string& rule, const Context& c,
                      const std::function<bool(const Turn&)>& ends, std::string_view reason,
                      std::string_view what) {
  for (std::size_t k = 0; k < c.turns().size(); ++k) {
    const Turn& t = c.turns()[k];
    if (!ends(t)) continue;
    if (HasLaterTurn(c, k)) {
      return CheckResult::Fail(
          rule, Format("a request followed {}", what),
          {"no further request", Format("a request at {}", c.turns()[k + 1].Where()),
           c.turns()[k + 1].Where()});
    }
    std::string message;
    if (reason == "completed") message = t.parsed->message;
    if (auto wrong = WrongEnd(rule, c, reason, message)) return *wrong;
    return CheckResult::Pass(rule,
                             Format("the session ended after {} and sent nothing more", what));
  }
  return CheckResult::Skip(rule, Format("no {} in this conversation", what));
}

CheckResult CheckStep1(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  for (const Turn& t : c.turns()) {
    const sk::Message* m = t.LastUser();
    const auto parts = sk::SplitUserMessage(m ? m->content : "");
    if (parts.step && *parts.step > c.max_steps()) {
      return CheckResult::Fail(
          rule, "a user message was sent past the step limit",
          {Format("step <= {}", c.max_steps()), Format("step {}", *parts.step), t.Where()});
    }
  }
  const Turn& last = c.turns().back();
  if (last.limit_reached && last.parsed && last.parsed->type != sk::ReplyType::kDone &&
      last.parsed->type != sk::ReplyType::kUnknown) {
    if (auto wrong = WrongEnd(rule, c, "max_steps", sk::kMaxStepsReached)) return *wrong;
    return CheckResult::Pass(
        rule, Format("the limit of {} steps was reached; the session ended with \"{}\"",
                     c.max_steps(), sk::kMaxStepsReached));
  }
  return CheckResult::Pass(rule, Format("no step above the limit of {}", c.max_steps()));
}

CheckResult CheckRule(const std::string& rule, const Context& c) {
  using K = sk::UserMessageKind;
  if (rule == "SKILL-REQ-1") return CheckReq1(rule, c);
  if (rule == "SKILL-REQ-2") return CheckBodyField(rule, c, "model", Json(c.script.model));
  if (rule == "SKILL-REQ-3") return CheckBodyField(rule, c, "temperature", Json(0.3));
  if (rule == "SKILL-REQ-4") return CheckBodyField(rule, c, "max_tokens", Json(512));
  if (rule == "SKILL-REQ-5") return CheckReq5(rule, c);
  if (rule == "SKILL-REQ-6") return CheckReq6(rule, c);
  if (rule == "SKILL-REQ-7") return CheckReq7(rule, c);
  if (rule == "SKILL-MSG-1") return CheckMsg1(rule, c);
  if (rule == "SKILL-MSG-2") return CheckMsg2(rule, c);
  if (rule == "SKILL-MSG-3") return CheckMsg3(rule, c);
  if (rule == "SKILL-MSG-4") return CheckMsg4(rule, c);
  if (rule.starts_with("SKILL-PROMPT-")) return CheckPrompt(rule, c);
  if (rule == "SKILL-USER-1") return CheckUser1(rule, c);
  if (rule == "SKILL-USER-2") return CheckFollowUp(rule, c, K::kCommandOutput);
  if (rule == "SKILL-USER-3") return CheckFollowUp(rule, c, K::kCommandSkipped);
  if (rule == "SKILL-USER-4") return CheckFollowUp(rule, c, K::kUserResponse);
  if (rule == "SKILL-USER-5") return CheckFollowUp(rule, c, K::kContinue);
  if (rule == "SKILL-USER-6") return CheckUser6(rule, c);
  if (rule.starts_with("SKILL-CLEAN-")) return CheckClean(rule, c, CleanRuleFor(rule));
  if (rule.starts_with("SKILL-PARSE-")) return CheckParse(rule, c);
  if (rule.starts_with("SKILL-REPLY-")) return CheckReplyRule(rule, c);
  if (rule == "SKILL-STATE-1") return CheckState1(rule, c);
  if (rule == "SKILL-STATE-2") {
    return CheckWaiting(rule, c, sk::ReplyType::kCmd, {K::kCommandOutput, K::kCommandSkipped},
                        "waiting_cmd");
  }
  if (rule == "SKILL-STATE-3")
    return CheckWaiting(rule, c, sk::ReplyType::kAsk, {K::kUserResponse}, "waiting_user");
  if (rule == "SKILL-STATE-4")
    return CheckWaiting(rule, c, sk::ReplyType::kMessage, {K::kContinue}, "idle");
  if (rule == "SKILL-STATE-5") {
    return CheckEnds(
        rule, c, [](const Turn& t) { return t.parsed && t.parsed->type == sk::ReplyType::kDone; },
        "completed", "a [DONE] reply");
  }
  if (rule == "SKILL-STATE-6") {
    for (const Turn& t : c.turns()) {
      if (!t.reply) {
        return CheckEnds(
            rule, c, [](const Turn& x) { return !x.reply.has_value(); }, "model_error",
            "a failed request");
      }
    }
    return CheckEnds(
        rule, c,
        [](const Turn& t) { return t.parsed && t.parsed->type == sk::ReplyType::kUnknown; },
        "invalid_reply", "an UNKNOWN reply");
  }
  if (rule == "SKILL-STEP-1") return CheckStep1(rule, c);
  return CheckResult::Error(rule, Format("no check is implemented for rule {}", rule));
}

// ---------------------------------------------------------------------------

class SkillSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "skill"; }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto script = ReadScript(scenario.input);
    if (!script)
      return std::unexpected(Error{Format("{}: {}", scenario.name, script.error().message)});
    if (ctx.llm_base_url.empty()) {
      return std::unexpected(
          Error{Format("{}: a skill scenario needs a trace to talk to", scenario.name)});
    }
    sk::SessionSetup setup = script->setup;
    if (script->has_knowledge) {
      auto context = ReadKnowledge(*script, ctx.work_dir);
      if (!context) return std::unexpected(context.error());
      setup.server_context = std::move(*context);
    }
    auto session = sk::SkillSession::Start(setup);
    if (!session)
      return std::unexpected(Error{Format("{}: {}", scenario.name, session.error().message)});

    std::deque<sk::CommandResult> results;
    std::deque<bool> approvals;
    for (const auto& c : script->commands) {
      approvals.push_back(!c.skip);
      if (!c.skip) results.push_back({c.output, c.exit_code, false});
    }
    std::deque<std::optional<std::string>> answers;
    for (const auto& a : script->answers)
      answers.push_back(a.skip ? std::nullopt : std::optional(a.text));

    auto transport = MakeHttpTransport(ctx.llm_base_url);
    sk::SkillChatClient client(*transport,
                               sk::ChatOptions{script->model, 0.3, 512, script->timeout});
    sk::ScriptedCommandRunner runner(std::move(results));
    sk::ScriptedUserConsole user(std::move(approvals), std::move(answers));
    if (auto ran = sk::RunSkillSession(*session, client, runner, user); !ran) {
      return std::unexpected(Error{Format("{}: the scripted terminal could not go on: {}",
                                          scenario.name, ran.error().message)});
    }

    Observation obs;
    Json states = Json::array(), steps = Json::array(), parsed = Json::array();
    for (const auto& e : session->transcript()) {
      states.push_back(sk::StateName(e.state));
      if (e.event == sk::TranscriptEntry::Event::kReply ||
          e.event == sk::TranscriptEntry::Event::kModelError) {
        steps.push_back(e.step);
      }
      if (e.reply) parsed.push_back(sk::ToJson(*e.reply));
    }
    obs.outputs = {{"transcript", sk::ToJson(session->transcript())},
                   {"states", std::move(states)},
                   {"steps", std::move(steps)},
                   {"parsed", std::move(parsed)},
                   {"end", session->end() ? sk::ToJson(*session->end()) : Json(nullptr)}};
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    auto script = ReadScript(scenario.input);
    std::expected<Conversation, Error> conv =
        script ? Analyse(*script, scenario, obs.journal) : std::unexpected(script.error());
    for (const auto& rule : scenario.rules) {
      if (!conv) {
        out.push_back(CheckResult::Error(rule, conv.error().message));
        continue;
      }
      out.push_back(CheckRule(rule, Context{scenario, *script, obs, *conv}));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeSkillSuite() { return std::make_unique<SkillSuite>(); }

}  // namespace llmconform::harness
