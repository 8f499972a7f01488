#include "harness/suites/client_checks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/suites/client_reading.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness::client_suite {
namespace {

using reports::CheckResult;

const Json& Output(const Context& c) { return c.obs.outputs; }

std::string Short(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > 300 ? s.substr(0, 300) + "…" : s;
}

// The client does not take the scenario: its output says so ("unsupported":
// a surface its SDK does not speak), or it sent no request at all and
// reported the error its SDK raised before sending (a request the SDK
// refuses to build, like the AI SDK's empty message list).
std::optional<CheckResult> Unsupported(const std::string& rule, const Context& c) {
  if (const Json& why = MemberOf(Output(c), "unsupported"); why.is_string())
    return CheckResult::Skip(rule, "unsupported: " + why.get<std::string>());
  const Json& error = MemberOf(Output(c), "error");
  if (c.reference.is_null() && c.obs.journal.empty() && error.is_object())
    return CheckResult::Skip(
        rule, Format("unsupported: the client's SDK refused the call before sending it ({}: {})",
                     StringOf(error, "kind"), StringOf(error, "message")));
  return std::nullopt;
}

// Why the rule cannot judge: the client does not take the scenario, no
// reply, or the client's output leaves `field` out.
std::optional<CheckResult> NotJudgeable(const std::string& rule, const Context& c,
                                        std::string_view field) {
  if (auto no = Unsupported(rule, c)) return no;
  if (c.reference.is_null())
    return CheckResult::Fail(rule, "no request of the client was answered from the trace",
                             {"a request mockllm answered", "none", "journal"});
  if (!Output(c).is_object() || !Output(c).contains(field))
    return CheckResult::Skip(
        rule, Format("unsupported: the client's output has no \"{}\" (its SDK does not expose it)",
                     field));
  return std::nullopt;
}

// For the rules about a successful reply: skipped on an error reply, failed
// when the client reported an error on a success.
std::optional<CheckResult> NotASuccess(const std::string& rule, const Context& c,
                                       std::string_view field) {
  if (auto no = NotJudgeable(rule, c, field)) return no;
  if (!c.reference["error"].is_null())
    return CheckResult::Skip(rule, Format("the reply is an error ({}): no {} to read",
                                          Short(c.reference["error"]), field));
  const Json& error = MemberOf(Output(c), "error");
  if (!error.is_null())
    return CheckResult::Fail(
        rule,
        Format("the client reported an error where the reply was a success: {}", Short(error)),
        {"error: null", Short(error), "LLMCONFORM_OUTPUT/error"});
  return std::nullopt;
}

CheckResult Compare(const std::string& rule, const Context& c, std::string_view field,
                    std::string_view what) {
  const Json& got = MemberOf(Output(c), field);
  const Json& want = c.reference[std::string(field)];
  if (got == want) return CheckResult::Pass(rule, Format("the client read the {}", what));
  return CheckResult::Fail(rule, Format("the client read another {} than the reply carries", what),
                           {Short(want), Short(got), Format("LLMCONFORM_OUTPUT/{}", field)});
}

CheckResult CheckText(const std::string& rule, const Context& c) {
  if (auto no = NotASuccess(rule, c, "text")) return *no;
  return Compare(rule, c, "text", "text (all of it, reasoning taken off)");
}

CheckResult CheckReasoning(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "reasoning")) return *no;
  if (c.reference["reasoning"] == "")
    return CheckResult::Skip(rule, "the reply carries no reasoning in this dialect");
  if (auto no = NotASuccess(rule, c, "reasoning")) return *no;
  return Compare(rule, c, "reasoning", "reasoning");
}

// Arguments that differ as text but hold the same JSON value (a surface that
// sends them as an object, serialised by the client in its own key order).
bool SameJson(const Json& a, const Json& b) {
  if (!a.is_string() || !b.is_string()) return false;
  const Json x = ReadJsonOrDiscarded(a.get<std::string>());
  return !x.is_discarded() && x == ReadJsonOrDiscarded(b.get<std::string>());
}

CheckResult CheckToolCalls(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "tool_calls")) return *no;
  if (c.reference["tool_calls"].empty())
    return CheckResult::Skip(rule, "the reply carries no tool call");
  if (auto no = NotASuccess(rule, c, "tool_calls")) return *no;
  const Json& got = Output(c)["tool_calls"];
  const Json& want = c.reference["tool_calls"];
  const std::string where = "LLMCONFORM_OUTPUT/tool_calls";
  if (!got.is_array() || got.size() != want.size())
    return CheckResult::Fail(
        rule,
        Format("the reply carries {} tool call(s); the client read {}", want.size(),
               got.is_array() ? Format("{}", got.size()) : Short(got)),
        {Short(want), Short(got), where});
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Json& g = got[i];
    const std::string at = Format("{}/{}", where, i);
    for (const char* key : {"name", "arguments"}) {
      if (MemberOf(g, key) != want[i][key] &&
          !(key == std::string_view("arguments") && SameJson(MemberOf(g, key), want[i][key])))
        return CheckResult::Fail(rule, Format("tool call {}: another {} than the reply's", i, key),
                                 {Short(want[i][key]), Short(MemberOf(g, key)), at + "/" + key});
    }
    if (want[i]["id"] != "" && MemberOf(g, "id") != want[i]["id"])
      return CheckResult::Fail(rule, Format("tool call {}: another id than the reply's", i),
                               {Short(want[i]["id"]), Short(MemberOf(g, "id")), at + "/id"});
    if (ReadJsonOrDiscarded(StringOf(g, "arguments")).is_discarded())
      return CheckResult::Fail(rule, Format("tool call {}: its arguments do not parse as JSON", i),
                               {"JSON text", Short(MemberOf(g, "arguments")), at + "/arguments"});
  }
  return CheckResult::Pass(
      rule, Format("the client read {} tool call(s), in order, whole, arguments that parse",
                   want.size()));
}

CheckResult CheckUsage(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "usage")) return *no;
  if (c.reference["usage"].is_null()) return CheckResult::Skip(rule, "the reply carries no usage");
  if (auto no = NotASuccess(rule, c, "usage")) return *no;
  const Json& got = Output(c)["usage"];
  for (const char* key : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    const Json& want = MemberOf(c.reference["usage"], key);
    if (!want.is_null() && MemberOf(got, key) != want)
      return CheckResult::Fail(
          rule, Format("the client read another usage ({})", key),
          {Short(c.reference["usage"]), Short(got), "LLMCONFORM_OUTPUT/usage"});
  }
  return CheckResult::Pass(rule, "the client read the reply's token usage");
}

CheckResult CheckErrorSurfaced(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "error")) return *no;
  const Json& want = c.reference["error"];
  if (want.is_null() || want["kind"] == "cut")
    return CheckResult::Skip(rule, "the reply is not an error");
  const Json& got = Output(c)["error"];
  if (!got.is_object())
    return CheckResult::Fail(
        rule,
        Format("the reply is an error ({}: {}) and the client raised none: it read text {}",
               StringOf(want, "kind"), StringOf(want, "message"),
               Short(MemberOf(Output(c), "text"))),
        {Short(want), Short(got), "LLMCONFORM_OUTPUT/error"});
  const Json& status = MemberOf(got, "status");
  if (want["status"].is_number() && status.is_number() && status != want["status"])
    return CheckResult::Fail(
        rule, "the client's error names another HTTP status",
        {Short(want["status"]), Short(status), "LLMCONFORM_OUTPUT/error/status"});
  return CheckResult::Pass(rule, Format("the client raised the {} error", StringOf(want, "kind")));
}

CheckResult CheckCutRaised(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "error")) return *no;
  if (MemberOf(c.reference["error"], "kind") != "cut")
    return CheckResult::Skip(rule, "the reply was not cut");
  if (!Output(c)["error"].is_object())
    return CheckResult::Fail(
        rule,
        Format("the stream broke off and the client raised no error: it kept the truncated text {}",
               Short(MemberOf(Output(c), "text"))),
        {"an error", "error: null", "LLMCONFORM_OUTPUT/error"});
  return CheckResult::Pass(rule, "the client raised an error for the cut stream");
}

// A streamed success whose body has `what` (no [DONE], comments): judged by
// CLIENT-TEXT's comparison.
CheckResult StreamCompleted(const std::string& rule, const Context& c, bool applies,
                            std::string_view why_not, std::string_view what) {
  if (auto no = NotJudgeable(rule, c, "text")) return *no;
  if (!applies) return CheckResult::Skip(rule, std::string(why_not));
  if (auto no = NotASuccess(rule, c, "text")) return *no;
  CheckResult r = Compare(rule, c, "text", "text");
  if (r.outcome == reports::Outcome::kPass)
    return CheckResult::Pass(rule, Format("the client read the whole stream {}", what));
  return r;
}

CheckResult CheckNoDone(const std::string& rule, const Context& c) {
  const Json& replied = MemberOf(c.entry, "replied");
  // Only Chat Completions ends a stream with [DONE].
  const bool applies = MemberOf(replied, "stream") == true &&
                       StringOf(replied, "surface") == "chat" &&
                       StringOf(replied, "body").find("[DONE]") == std::string::npos;
  return StreamCompleted(rule, c, applies, "the stream ends with data: [DONE]", "without [DONE]");
}

CheckResult CheckKeepAlive(const std::string& rule, const Context& c) {
  const Json& replied = MemberOf(c.entry, "replied");
  const bool applies =
      MemberOf(replied, "stream") == true && CommentLines(StringOf(replied, "body")) > 0;
  return StreamCompleted(rule, c, applies, "the stream has no comment lines or ping events",
                         "past its keep-alive comments or ping events");
}

bool RateLimited(const Json& replied) {
  const Json& status = MemberOf(replied, "status");
  if (status == 429) return true;
  if (status != 200) return false;
  auto e = wire::ErrorBodyFromJson(ReadJsonOrDiscarded(StringOf(replied, "body")));
  return e && (e->code == 429 || e->code == "429" || e->code == "rate_limit_exceeded");
}

// A failure when an attempt came sooner after a rate limit than the wait it
// named: attempt k + 1's at_ms (the next refused reply's, or `last_at_ms`)
// minus attempt k's is at least the time the client let pass between them.
std::optional<CheckResult> RetriedEarly(const std::string& rule, const Json& refused,
                                        const Json& last_at_ms) {
  for (std::size_t k = 0; k < refused.size(); ++k) {
    const Json& wait = MemberOf(refused[k], "retry_after_ms");
    const Json& at = MemberOf(refused[k], "at_ms");
    const Json& next = k + 1 < refused.size() ? MemberOf(refused[k + 1], "at_ms") : last_at_ms;
    if (!RateLimited(refused[k]) || !wait.is_number_integer() || !at.is_number_integer() ||
        !next.is_number_integer())
      continue;
    const long long waited = next.get<long long>() - at.get<long long>();
    if (waited < wait.get<long long>())
      return CheckResult::Fail(
          rule,
          Format("attempt {} came {} ms after the rate limit that asked for a wait of {} ms", k + 2,
                 waited, wait.get<long long>()),
          {Format("a retry after at least {} ms", wait.get<long long>()), Format("{} ms", waited),
           Format("journal at_ms of attempts {} and {}", k + 1, k + 2)});
  }
  return std::nullopt;
}

CheckResult CheckRetry(const std::string& rule, const Context& c) {
  if (auto no = Unsupported(rule, c)) return *no;
  if (c.reference.is_null())
    return CheckResult::Fail(rule, "no request of the client was answered from the trace",
                             {"a request mockllm answered", "none", "journal"});
  const Json& options = MemberOf(c.scenario.input, "options");
  const Json& limit_json = MemberOf(options, "max_retries");
  const long long limit = limit_json.is_number_integer() ? limit_json.get<long long>() : 2;
  const Json& refused = ArrayOf(c.entry, "refused");
  const long long attempts = static_cast<long long>(refused.size()) + 1;
  bool any = RateLimited(MemberOf(c.entry, "replied"));
  for (const Json& r : refused) any = any || RateLimited(r);
  if (!any) return CheckResult::Skip(rule, "no rate limit was answered");
  if (RateLimited(MemberOf(c.entry, "replied")) && attempts - 1 < limit)
    return CheckResult::Fail(
        rule,
        Format("the client gave up after {} attempt(s): the rate limit named its wait and the "
               "call allows {} retries",
               attempts, limit),
        {Format("a retry after the wait ({} ms)",
                Short(MemberOf(MemberOf(c.entry, "replied"), "retry_after_ms"))),
         Format("{} attempt(s)", attempts), "journal"});
  if (attempts - 1 > limit)
    return CheckResult::Fail(
        rule, Format("the client retried {} times; the call allows {}", attempts - 1, limit),
        {Format("at most {} retries", limit), Format("{} retries", attempts - 1), "journal"});
  if (auto early = RetriedEarly(rule, refused, MemberOf(c.entry, "at_ms"))) return *early;
  const Json& counted = MemberOf(Output(c), "attempts");
  if (counted.is_number() && counted != attempts)
    return CheckResult::Fail(
        rule,
        Format("the client counts {} attempt(s); mockllm answered {}", Short(counted), attempts),
        {Format("{}", attempts), Short(counted), "LLMCONFORM_OUTPUT/attempts"});
  return CheckResult::Pass(rule,
                           Format("the client retried the rate limit ({} attempts)", attempts));
}

// Whether a reported error names a timeout, in its kind or its message
// ("APIConnectionTimeoutError", "TimeoutError", "ReadTimeout", "timed out").
bool NamesATimeout(const Json& error) {
  std::string text = StringOf(error, "kind") + " " + StringOf(error, "message");
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (std::string_view word : {"timeout", "timed out", "time out", "timedout"})
    if (text.find(word) != std::string::npos) return true;
  return false;
}

CheckResult CheckTimeout(const std::string& rule, const Context& c) {
  if (auto no = NotJudgeable(rule, c, "error")) return *no;
  const Json& timeout = MemberOf(MemberOf(c.scenario.input, "options"), "timeout_ms");
  const Json& stall = MemberOf(MemberOf(c.entry, "replied"), "stall_ms");
  if (!timeout.is_number_integer())
    return CheckResult::Skip(rule, "the call has no timeout (options.timeout_ms)");
  if (!stall.is_number_integer() || stall.get<long long>() <= timeout.get<long long>())
    return CheckResult::Skip(
        rule, Format("the reply does not stall past the call's timeout ({} ms)", Short(timeout)));
  const Json& got = Output(c)["error"];
  if (!got.is_object())
    return CheckResult::Fail(
        rule,
        Format("the stream stalled for {} ms, past the call's timeout of {} ms, and the client "
               "raised no error: it waited, and read text {}",
               Short(stall), Short(timeout), Short(MemberOf(Output(c), "text"))),
        {"a timeout error", "error: null", "LLMCONFORM_OUTPUT/error"});
  if (!NamesATimeout(got))
    return CheckResult::Fail(
        rule,
        Format("the stream stalled past the call's timeout ({} ms) and the client raised another "
               "error than a timeout: {}",
               Short(timeout), Short(got)),
        {"a timeout error", Short(got), "LLMCONFORM_OUTPUT/error"});
  return CheckResult::Pass(rule, Format("the client reported the stall past its {} ms timeout as "
                                        "a timeout ({})",
                                        Short(timeout), StringOf(got, "kind")));
}

constexpr std::array kRules = {
    RuleCheck<Context>{"CLIENT-TEXT", &CheckText},
    RuleCheck<Context>{"CLIENT-REASONING", &CheckReasoning},
    RuleCheck<Context>{"CLIENT-TOOL-CALLS", &CheckToolCalls},
    RuleCheck<Context>{"CLIENT-USAGE", &CheckUsage},
    RuleCheck<Context>{"CLIENT-ERROR-SURFACED", &CheckErrorSurfaced},
    RuleCheck<Context>{"CLIENT-CUT-RAISED", &CheckCutRaised},
    RuleCheck<Context>{"CLIENT-NO-DONE", &CheckNoDone},
    RuleCheck<Context>{"CLIENT-KEEPALIVE", &CheckKeepAlive},
    RuleCheck<Context>{"CLIENT-RETRY-429", &CheckRetry},
    RuleCheck<Context>{"CLIENT-TIMEOUT", &CheckTimeout},
};

}  // namespace

std::span<const RuleCheck<Context>> Rules() { return kRules; }

}  // namespace llmconform::harness::client_suite
