// The skill rules on cleaning command output, parsing replies, the strict
// reply rules and session states (SKILL-CLEAN-*, -PARSE-*, -REPLY-*,
// -STATE-*), and their half of the suite's table (skill_checks.h).
#include <array>
#include <functional>
#include <set>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/suites/skill_checks.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/reply_rules.h"
#include "protocols/skill/text.h"

namespace llmconform::harness::skill_suite {
namespace {

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
  bool (*applies)(const ExpectedUser&);
  // A problem with the sent payload, or "".
  std::string (*problem)(const ExpectedUser&, const std::string&);
  std::string_view what;  // the outputs the rule is about, for messages ("" for all)
};

CheckResult CheckClean(const std::string& rule, const Context& c, const CleanRule& r) {
  std::size_t checked = 0;
  for (const SentOutput& s : SentOutputs(c)) {
    const ExpectedUser& want = *s.turn->next;
    if (!r.applies(want)) continue;
    if (std::string p = r.problem(want, s.payload); !p.empty()) {
      return CheckResult::Fail(rule,
                               Format("the output of {} was sent {}", QuoteJson(want.command), p),
                               {QuoteJson(want.payload), QuoteJson(s.payload), s.where});
    }
    ++checked;
  }
  // (Format, not " " + std::string: GCC 12 -O2 warns -Wrestrict on the latter.)
  const std::string what = r.what.empty() ? std::string() : Format(" {}", r.what);
  if (checked == 0)
    return CheckResult::Skip(rule, Format("no command output in this conversation{}", what));
  return CheckResult::Pass(rule,
                           Format("{} command output(s){}: cleaned as specified", checked, what));
}

bool AnyOutput(const ExpectedUser&) { return true; }

// SKILL-CLEAN-1
constexpr CleanRule kClean1{&AnyOutput,
                            [](const ExpectedUser& w, const std::string& got) -> std::string {
                              return got == w.payload ? "" : "differently from cleanOutputForAI";
                            },
                            ""};

// SKILL-CLEAN-2
constexpr CleanRule kClean2{
    [](const ExpectedUser& w) { return w.raw.find('\x1b') != std::string::npos; },
    [](const ExpectedUser&, const std::string& got) -> std::string {
      return got.find('\x1b') == std::string::npos ? "" : "with escape sequences left in";
    },
    "with escape sequences"};

// SKILL-CLEAN-3
constexpr CleanRule kClean3{[](const ExpectedUser& w) {
                              for (const auto& l : RawLines(w.raw)) {
                                if (sk::TerminalPromptLength(l) > 0) return true;
                              }
                              return false;
                            },
                            [](const ExpectedUser& w, const std::string& got) -> std::string {
                              for (const auto& l : Lines(got)) {
                                if (sk::TerminalPromptLength(l) > 0)
                                  return Format("with a prompt left at a line start ({})",
                                                QuoteJson(l));
                              }
                              // The rest of a prompt's line stays: every line of the reference is
                              // there.
                              for (const auto& l : Lines(w.payload)) {
                                if (got.find(l) == std::string::npos)
                                  return Format("without {}", QuoteJson(l));
                              }
                              return "";
                            },
                            "with terminal prompts"};

// SKILL-CLEAN-4
constexpr CleanRule kClean4{[](const ExpectedUser& w) {
                              return w.raw.find("Microsoft Windows [Version") !=
                                         std::string::npos ||
                                     w.raw.find("(c) Microsoft Corporation") != std::string::npos;
                            },
                            [](const ExpectedUser&, const std::string& got) -> std::string {
                              for (const auto& l : Lines(got)) {
                                if (sk::IsWindowsBannerLine(l))
                                  return Format("with the banner line {}", QuoteJson(l));
                              }
                              return "";
                            },
                            "with a Windows banner"};

// SKILL-CLEAN-5
constexpr CleanRule kClean5{&AnyOutput,
                            [](const ExpectedUser&, const std::string& got) -> std::string {
                              if (got.find('\r') != std::string::npos)
                                return "with carriage returns";
                              for (const auto& l : Lines(got)) {
                                if (l.empty()) return "with an empty line";
                                if (sk::Trim(l) != l)
                                  return Format("with an untrimmed line {}", QuoteJson(l));
                              }
                              return "";
                            },
                            ""};

// SKILL-CLEAN-6
constexpr CleanRule kClean6{[](const ExpectedUser& w) {
                              const auto first = Lines(sk::CleanOutputForAI(w.raw)).front();
                              return first.starts_with(std::string(sk::Trim(w.command)));
                            },
                            [](const ExpectedUser& w, const std::string& got) -> std::string {
                              const std::string want = Lines(w.payload).front();
                              const std::string have = Lines(got).front();
                              return want == have ? ""
                                                  : Format("with the first line {} instead of {}",
                                                           QuoteJson(have), QuoteJson(want));
                            },
                            "opening with the echoed command"};

// SKILL-CLEAN-7
constexpr CleanRule kClean7{
    [](const ExpectedUser& w) {
      std::set<std::string> seen;
      for (const auto& l : RawLines(w.raw)) {
        if (!l.empty() && !seen.insert(l).second) return true;
      }
      return false;
    },
    [](const ExpectedUser& w, const std::string& got) -> std::string {
      std::set<std::string> seen;
      for (const auto& l : Lines(got)) {
        if (!seen.insert(l).second) return Format("with the line {} repeated", QuoteJson(l));
      }
      return Lines(got) == Lines(w.payload) ? "" : "without the first occurrences in order";
    },
    "with repeated lines"};

// SKILL-CLEAN-8
constexpr CleanRule kClean8{
    [](const ExpectedUser& w) { return w.payload == sk::kNoOutput; },
    [](const ExpectedUser&, const std::string& got) -> std::string {
      return got == sk::kNoOutput ? "" : "as something other than \"(no output)\"";
    },
    "that clean to nothing"};

template <const CleanRule& kRule>
CheckResult CheckCleanBy(const std::string& rule, const Context& c) {
  return CheckClean(rule, c, kRule);
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

bool IsTaggedCommand(const Turn& t) {
  return t.parsed->type == sk::ReplyType::kCmd && !Untagged(t);
}
bool IsRequiredQuestion(const Turn& t) {
  return t.parsed->type == sk::ReplyType::kAsk && t.parsed->required;
}
bool IsOptionalQuestion(const Turn& t) {
  return t.parsed->type == sk::ReplyType::kAsk && !t.parsed->required;
}
bool IsMessage(const Turn& t) { return t.parsed->type == sk::ReplyType::kMessage; }
bool IsDone(const Turn& t) { return t.parsed->type == sk::ReplyType::kDone; }
bool IsUntaggedOrUnknown(const Turn& t) {
  return Untagged(t) || t.parsed->type == sk::ReplyType::kUnknown;
}
// A tagged reply that breaks SKILL-REPLY-1 or -2 (text around the tag).
bool IsTaggedWithExtraText(const Turn& t) {
  if (t.parsed->type == sk::ReplyType::kUnknown || Untagged(t)) return false;
  for (const Finding& f : sk::CheckReply(*t.reply)) {
    if (f.rule == "SKILL-REPLY-1" || f.rule == "SKILL-REPLY-2") return true;
  }
  return false;
}
bool IsFencedCommand(const Turn& t) {
  return t.parsed->type == sk::ReplyType::kCmd && t.reply->find("```") != std::string::npos;
}

// The replies `applies` picks were parsed as the reference parses them.
CheckResult CheckParse(const std::string& rule, const Context& c, bool (*applies)(const Turn&)) {
  std::size_t checked = 0;
  const Json* expected =
      c.scenario.expect.contains("parsed") ? &c.scenario.expect["parsed"] : nullptr;
  const Json* got = c.has_outputs() ? &c.obs.outputs["parsed"] : nullptr;
  for (const Received& r : ReceivedReplies(c)) {
    if (!applies(*r.turn)) continue;
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
        return CheckResult::Fail(
            rule, Format("the reply {} was parsed wrongly", QuoteJson(*r.turn->reply)),
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
    if (StringOf(f, "rule") == rule)
      expected.insert((MemberOf(f, "reply").is_number_integer()
                           ? MemberOf(f, "reply").get<std::int64_t>()
                           : std::int64_t{-1}));
  }
  std::size_t checked = 0;
  std::vector<std::string> seen;
  for (const Received& r : ReceivedReplies(c)) {
    ++checked;
    std::optional<Finding> finding;
    for (const Finding& f : sk::CheckReply(*r.turn->reply)) {
      if (f.rule == rule) finding = f;
    }
    const bool meant = expected.contains(static_cast<std::int64_t>(*r.turn->exchange));
    if (finding && !meant) {
      return CheckResult::Fail(rule,
                               Format("the model's reply breaks the rule: {}", finding->message),
                               {"a reply that keeps the rule", QuoteJson(*r.turn->reply),
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
    if (StringOf(e, "event") == "reply") out.push_back(&e);
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
                   QuoteJson(*t.reply)),
            {Format("a request with a {} message", sk::UserMessageKindName(*kinds.begin())),
             m ? QuoteJson(m->content) : "no further request",
             HasLaterTurn(c, k) ? c.turns()[k + 1].Where() : "journal"});
      }
    }
    if (index < events.size() && events[index]->value("state", "") != state) {
      return CheckResult::Fail(
          rule, Format("after the reply {} the session was not {}", QuoteJson(*t.reply), state),
          {QuoteJson(state),
           events[index]->value("state", "").empty() ? "none"
                                                     : QuoteJson(events[index]->value("state", "")),
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

// SKILL-STATE-6: a failed request ends the session with model_error, an
// UNKNOWN reply with invalid_reply; nothing is sent after either.
CheckResult CheckState6(const std::string& rule, const Context& c) {
  for (const Turn& t : c.turns()) {
    if (!t.reply) {
      return CheckEnds(
          rule, c, [](const Turn& x) { return !x.reply.has_value(); }, "model_error",
          "a failed request");
    }
  }
  return CheckEnds(
      rule, c, [](const Turn& t) { return t.parsed && t.parsed->type == sk::ReplyType::kUnknown; },
      "invalid_reply", "an UNKNOWN reply");
}

template <bool (*kApplies)(const Turn&)>
CheckResult CheckParseOf(const std::string& rule, const Context& c) {
  return CheckParse(rule, c, kApplies);
}

using K = sk::UserMessageKind;

constexpr std::array<RuleCheck<Context>, 27> kReplyRules = {{
    {"SKILL-CLEAN-1", &CheckCleanBy<kClean1>},
    {"SKILL-CLEAN-2", &CheckCleanBy<kClean2>},
    {"SKILL-CLEAN-3", &CheckCleanBy<kClean3>},
    {"SKILL-CLEAN-4", &CheckCleanBy<kClean4>},
    {"SKILL-CLEAN-5", &CheckCleanBy<kClean5>},
    {"SKILL-CLEAN-6", &CheckCleanBy<kClean6>},
    {"SKILL-CLEAN-7", &CheckCleanBy<kClean7>},
    {"SKILL-CLEAN-8", &CheckCleanBy<kClean8>},
    {"SKILL-PARSE-1", &CheckParseOf<&IsTaggedCommand>},
    {"SKILL-PARSE-2", &CheckParseOf<&IsRequiredQuestion>},
    {"SKILL-PARSE-3", &CheckParseOf<&IsOptionalQuestion>},
    {"SKILL-PARSE-4", &CheckParseOf<&IsMessage>},
    {"SKILL-PARSE-5", &CheckParseOf<&IsDone>},
    {"SKILL-PARSE-6", &CheckParseOf<&IsUntaggedOrUnknown>},
    {"SKILL-PARSE-7", &CheckParseOf<&IsTaggedWithExtraText>},
    {"SKILL-PARSE-8", &CheckParseOf<&IsFencedCommand>},
    {"SKILL-REPLY-1", &CheckReplyRule},
    {"SKILL-REPLY-2", &CheckReplyRule},
    {"SKILL-REPLY-3", &CheckReplyRule},
    {"SKILL-REPLY-4", &CheckReplyRule},
    {"SKILL-REPLY-5", &CheckReplyRule},
    {"SKILL-STATE-1", &CheckState1},
    {"SKILL-STATE-2",
     [](const std::string& r, const Context& c) {
       return CheckWaiting(r, c, sk::ReplyType::kCmd, {K::kCommandOutput, K::kCommandSkipped},
                           "waiting_cmd");
     }},
    {"SKILL-STATE-3",
     [](const std::string& r, const Context& c) {
       return CheckWaiting(r, c, sk::ReplyType::kAsk, {K::kUserResponse}, "waiting_user");
     }},
    {"SKILL-STATE-4",
     [](const std::string& r, const Context& c) {
       return CheckWaiting(r, c, sk::ReplyType::kMessage, {K::kContinue}, "idle");
     }},
    {"SKILL-STATE-5",
     [](const std::string& r, const Context& c) {
       return CheckEnds(
           r, c, [](const Turn& t) { return t.parsed && t.parsed->type == sk::ReplyType::kDone; },
           "completed", "a [DONE] reply");
     }},
    {"SKILL-STATE-6", &CheckState6},
}};

}  // namespace

std::span<const RuleCheck<Context>> ReplyRules() { return kReplyRules; }

}  // namespace llmconform::harness::skill_suite
