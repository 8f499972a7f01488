// The skill rules on requests, messages, the system prompt, user messages and
// steps (SKILL-REQ-*, -MSG-*, -PROMPT-*, -USER-*, -STEP-1), and their half of
// the suite's table (skill_checks.h).
#include <algorithm>
#include <array>
#include <functional>

#include "base/format.h"
#include "harness/suites/skill_checks.h"
#include "protocols/skill/skill_document.h"

namespace llmconform::harness::skill_suite {
namespace {

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
                        t.messages.empty() ? "no messages" : QuoteJson(t.messages[0].role),
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
        return Evidence{QuoteJson(first), QuoteJson(got),
                        t.Where("/request/body/messages/0/content")};
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
            {want, QuoteJson(ms[i].role),
             c.turns()[k].Where(Format("/request/body/messages/{}/role", i))});
      }
    }
    if (ms.empty() || ms.back().role != "user") {
      return CheckResult::Fail(
          rule, "a request does not end with a user message",
          {"user", ms.empty() ? "no messages" : QuoteJson(ms.back().role), c.turns()[k].Where()});
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
          {QuoteJson(prev.parsed->content), QuoteJson(a.content),
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

// The first request's system message against base + context + active skill.
struct PromptSeen {
  std::string got, where, whole;
  SystemParts want;
  bool base_ok = false, skill_ok = false;
};

PromptSeen SeePrompt(const Context& c) {
  PromptSeen p;
  const Turn& t = c.turns()[0];
  p.got = t.messages.empty() ? "" : t.messages[0].content;
  p.where = t.Where("/request/body/messages/0/content");
  p.want = ExpectedSystem(c.script);
  p.whole = p.want.base + p.want.context_section + p.want.skill_section;
  p.base_ok = p.got.starts_with(p.want.base);
  p.skill_ok = p.got.ends_with(p.want.skill_section);
  return p;
}

// SKILL-PROMPT-1: the system prompt begins with the base prompt.
CheckResult CheckPrompt1(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const PromptSeen p = SeePrompt(c);
  if (p.base_ok)
    return CheckResult::Pass(
        rule, Format("the system prompt begins with the {}-byte base prompt", p.want.base.size()));
  return CheckResult::Fail(rule, "the system prompt does not begin with the base prompt",
                           {p.whole, p.got, p.where});
}

// SKILL-PROMPT-3: the system prompt ends with the active skill section.
CheckResult CheckPrompt3(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const PromptSeen p = SeePrompt(c);
  if (p.skill_ok)
    return CheckResult::Pass(rule,
                             Format("the system prompt ends with the active skill section of {}",
                                    c.script.setup.skill_name));
  return CheckResult::Fail(rule, "the system prompt does not end with the active skill section",
                           {p.whole, p.got, p.where});
}

// What lies between base and skill section is the context section; nullopt
// when it is, else the failure.
std::optional<CheckResult> WrongContext(const std::string& rule, const Context& c,
                                        const PromptSeen& p, bool from_files) {
  if (!p.base_ok || !p.skill_ok ||
      p.got.size() < p.want.base.size() + p.want.skill_section.size()) {
    return CheckResult::Fail(rule, "the system prompt is not base + context + active skill",
                             {p.whole, p.got, p.where});
  }
  const std::string middle = p.got.substr(
      p.want.base.size(), p.got.size() - p.want.base.size() - p.want.skill_section.size());
  if (from_files && !c.script.has_knowledge) {
    return CheckResult::Skip(rule,
                             "the scenario gives the context directly, not as knowledge files");
  }
  if (middle != p.want.context_section) {
    return CheckResult::Fail(rule, "the server context section is not as specified",
                             {QuoteJson(p.want.context_section), QuoteJson(middle), p.where});
  }
  return std::nullopt;
}

// SKILL-PROMPT-2: the server context follows the base prompt.
CheckResult CheckPrompt2(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const PromptSeen p = SeePrompt(c);
  if (auto wrong = WrongContext(rule, c, p, /*from_files=*/false)) return *wrong;
  return CheckResult::Pass(
      rule, p.want.context_section.empty()
                ? "the blank context adds nothing"
                : "the context follows the base prompt under \"--- System Context ---\"");
}

// SKILL-PROMPT-4: the context is read from the knowledge files.
CheckResult CheckPrompt4(const std::string& rule, const Context& c) {
  if (c.turns().empty()) return NoRequests(rule);
  const PromptSeen p = SeePrompt(c);
  if (auto wrong = WrongContext(rule, c, p, /*from_files=*/true)) return *wrong;
  return CheckResult::Pass(
      rule, Format("the context is the {} file's text",
                   c.script.project_knowledge ? "project (./.kosmos-panel)" : "home (~/.config)"));
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
                             {QuoteJson(want), Show(t.messages), t.Where()});
  }
  const sk::UserMessageParts parts = sk::SplitUserMessage(t.messages[1].content);
  const std::string head = parts.step ? parts.payload : t.messages[1].content;
  if (head != want_head) {
    return CheckResult::Fail(
        rule, "the first user message is not as §4.1 builds it",
        {QuoteJson(want_head), QuoteJson(head), t.Where("/request/body/messages/1/content")});
  }
  return CheckResult::Pass(rule, Format("the first user message is {}", QuoteJson(want_head)));
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
      return CheckResult::Fail(
          rule,
          Format("after the reply {} the user message is not the {} template",
                 QuoteJson(t.reply.value_or("")), sk::UserMessageKindName(kind)),
          {QuoteJson(want), m ? QuoteJson(m->content) : "no user message", where});
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
          {QuoteJson(sk::StepMarker(step, c.max_steps())),
           m ? QuoteJson(m->content.substr(m->content.size() -
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

using K = sk::UserMessageKind;

constexpr std::array<RuleCheck<Context>, 22> kRules = {{
    {"SKILL-REQ-1", &CheckReq1},
    {"SKILL-REQ-2",
     [](const std::string& r, const Context& c) {
       return CheckBodyField(r, c, "model", Json(c.script.model));
     }},
    {"SKILL-REQ-3",
     [](const std::string& r, const Context& c) {
       return CheckBodyField(r, c, "temperature", Json(0.3));
     }},
    {"SKILL-REQ-4", [](const std::string& r,
                       const Context& c) { return CheckBodyField(r, c, "max_tokens", Json(512)); }},
    {"SKILL-REQ-5", &CheckReq5},
    {"SKILL-REQ-6", &CheckReq6},
    {"SKILL-REQ-7", &CheckReq7},
    {"SKILL-MSG-1", &CheckMsg1},
    {"SKILL-MSG-2", &CheckMsg2},
    {"SKILL-MSG-3", &CheckMsg3},
    {"SKILL-MSG-4", &CheckMsg4},
    {"SKILL-PROMPT-1", &CheckPrompt1},
    {"SKILL-PROMPT-2", &CheckPrompt2},
    {"SKILL-PROMPT-3", &CheckPrompt3},
    {"SKILL-PROMPT-4", &CheckPrompt4},
    {"SKILL-USER-1", &CheckUser1},
    {"SKILL-USER-2",
     [](const std::string& r, const Context& c) { return CheckFollowUp(r, c, K::kCommandOutput); }},
    {"SKILL-USER-3", [](const std::string& r,
                        const Context& c) { return CheckFollowUp(r, c, K::kCommandSkipped); }},
    {"SKILL-USER-4",
     [](const std::string& r, const Context& c) { return CheckFollowUp(r, c, K::kUserResponse); }},
    {"SKILL-USER-5",
     [](const std::string& r, const Context& c) { return CheckFollowUp(r, c, K::kContinue); }},
    {"SKILL-USER-6", &CheckUser6},
    {"SKILL-STEP-1", &CheckStep1},
}};

}  // namespace

std::span<const RuleCheck<Context>> RequestRules() { return kRules; }

}  // namespace llmconform::harness::skill_suite
