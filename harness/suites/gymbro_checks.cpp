#include "harness/suites/gymbro_checks.h"

#include <array>

#include "base/format.h"
#include "base/json_fields.h"
#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::harness::gymbro_suite {
namespace {

using reports::CheckResult;
using reports::Evidence;

// GYMBRO-6.13: a silent upstream makes the service send heartbeats.
std::optional<CheckResult> CheckHeartbeats(const std::string& rule, const Context& c) {
  const Expect& expect = c.expect;
  const gymbro::EventCheck& events = c.events;
  if (!expect.min_heartbeats)
    return CheckResult::Skip(rule, "the scenario does not make the upstream silent");
  if (static_cast<std::int64_t>(events.heartbeats) >= *expect.min_heartbeats) {
    return CheckResult::Pass(
        rule, Format("{} heartbeat events while the upstream was silent (at least {})",
                     events.heartbeats, *expect.min_heartbeats));
  }
  return CheckResult::Fail(rule,
                           Format("{} heartbeat events, expected at least {}", events.heartbeats,
                                  *expect.min_heartbeats),
                           Evidence{Format(">= {} heartbeats", *expect.min_heartbeats),
                                    Format("{}", events.heartbeats), "/stream/events"});
}

// GYMBRO-6.14: an upstream that does not finish ends the stream with an error event.
std::optional<CheckResult> CheckUpstreamFailure(const std::string& rule, const Context& c) {
  const Expect& expect = c.expect;
  const gymbro::EventCheck& events = c.events;
  if (expect.outcome != gymbro::Termination::kError) {
    return CheckResult::Skip(rule, "the scenario's upstream finishes");
  }
  if (events.termination != gymbro::Termination::kError) {
    return CheckResult::Fail(
        rule,
        Format("the upstream did not finish, yet the stream ended with {}",
               gymbro::TerminationName(events.termination)),
        Evidence{"an error event", std::string(gymbro::TerminationName(events.termination)),
                 "/stream/events"});
  }
  if (expect.error_code && events.error_code != *expect.error_code) {
    return CheckResult::Fail(rule,
                             Format("the error event has code \"{}\", expected \"{}\"",
                                    events.error_code, *expect.error_code),
                             Evidence{*expect.error_code, events.error_code, "/stream/events"});
  }
  return CheckResult::Pass(
      rule, Format("the unfinished upstream ended the stream with error {}: {}", events.error_code,
                   events.error_message));
}

// GYMBRO-6.15 (beside the stream judge's check of the deltas): the service
// splits a long upstream text into at least expect.minDeltas deltas.
std::optional<CheckResult> CheckSplit(const std::string& rule, const Context& c) {
  const Expect& expect = c.expect;
  const gymbro::EventCheck& events = c.events;
  if (!expect.min_deltas) return std::nullopt;
  if (static_cast<std::int64_t>(events.deltas) >= *expect.min_deltas) {
    return CheckResult::Pass(
        rule, Format("the upstream text went out in {} content deltas (at least {})", events.deltas,
                     *expect.min_deltas));
  }
  return CheckResult::Fail(
      rule,
      Format("{} content deltas, expected the service to split into at least {}", events.deltas,
             *expect.min_deltas),
      Evidence{Format(">= {} deltas", *expect.min_deltas), Format("{}", events.deltas),
               "/stream/events"});
}

// GYMBRO-6.16 (beside the stream judge's check of the stream's status and
// type): POST /api/v1/messages answers 200 {message_id}.
std::optional<CheckResult> CheckPost(const std::string& rule, const Context& c) {
  const Observation& obs = c.obs;
  const Json post = obs.outputs.value("post", Json::object());
  const Json body = post.value("body", Json());
  const int status =
      (MemberOf(post, "status").is_number_integer() ? MemberOf(post, "status").get<int>() : 0);
  if (status == 200 && body.is_object() && body.contains("message_id") &&
      body["message_id"].is_string() && !body["message_id"].get<std::string>().empty()) {
    return CheckResult::Pass(rule, "POST /api/v1/messages answered 200 {message_id}");
  }
  return CheckResult::Fail(
      rule, Format("POST /api/v1/messages answered {} {}", status, body.dump()),
      Evidence{"200 {\"message_id\":…}", Format("{} {}", status, body.dump()), "/post"});
}

// GYMBRO-7.2: the client joins the deltas by seq into the upstream's reply.
std::optional<CheckResult> CheckJoin(const std::string& rule, const Context& c) {
  const Expect& expect = c.expect;
  const gymbro::EventCheck& events = c.events;
  const Observation& obs = c.obs;
  const std::string client_reply = StringOf(MemberOf(obs.outputs, "client"), "reply");
  if (client_reply != events.reply) {
    return CheckResult::Fail(rule, "the client's reply is not the deltas joined by seq",
                             Evidence{events.reply, client_reply, "/client/reply"});
  }
  if (expect.reply && *expect.reply != events.reply) {
    return CheckResult::Fail(rule, "the deltas join to another reply than the upstream sent",
                             Evidence{*expect.reply, events.reply, "/client/reply"});
  }
  return CheckResult::Pass(
      rule, Format("{} deltas joined by seq give the upstream's reply ({} bytes)", events.deltas,
                   events.reply.size()));
}

// GYMBRO-7.4 (beside the stream judge's check of the terminal event): the
// client's verdict follows the stream's end.
std::optional<CheckResult> CheckClientVerdict(const std::string& rule, const Context& c) {
  const gymbro::EventCheck& events = c.events;
  const Observation& obs = c.obs;
  const Json client = obs.outputs.value("client", Json::object());
  const bool succeeded = (MemberOf(client, "succeeded") == true);
  if (succeeded == events.Succeeded()) {
    return CheckResult::Pass(rule, succeeded ? "the client took the completed reply"
                                             : "the client treated the stream as failed");
  }
  return CheckResult::Fail(
      rule,
      Format("the stream ended with {}, yet the client's verdict is {}",
             gymbro::TerminationName(events.termination), succeeded ? "success" : "failure"),
      Evidence{events.Succeeded() ? "success" : "failure", succeeded ? "success" : "failure",
               "/client/succeeded"});
}

constexpr std::array<StreamRule, 19> kGymbroRules = {{
    {"GYMBRO-6.1", nullptr},
    {"GYMBRO-6.2", nullptr},
    {"GYMBRO-6.3", nullptr},
    {"GYMBRO-6.4", nullptr},
    {"GYMBRO-6.5", nullptr},
    {"GYMBRO-6.6", nullptr},
    {"GYMBRO-6.7", nullptr},
    {"GYMBRO-6.8", nullptr},
    {"GYMBRO-6.9", nullptr},
    {"GYMBRO-6.10", nullptr},
    {"GYMBRO-6.11", nullptr},
    {"GYMBRO-6.12", nullptr},
    {"GYMBRO-6.13", &CheckHeartbeats},
    {"GYMBRO-6.14", &CheckUpstreamFailure},
    {"GYMBRO-6.15", &CheckSplit},
    {"GYMBRO-6.16", &CheckPost},
    {"GYMBRO-7.2", &CheckJoin},
    {"GYMBRO-7.3", nullptr},
    {"GYMBRO-7.4", &CheckClientVerdict},
}};

}  // namespace

std::expected<Expect, Error> ReadExpect(const Scenario& s) {
  const Json& ex = s.expect;
  const JsonPointer at("/expect");
  Expect e;
  auto outcome = OptionalString(ex, at, "outcome");
  if (!outcome) return std::unexpected(outcome.error());
  if (*outcome) {
    if (**outcome == "completed") {
      e.outcome = gymbro::Termination::kCompleted;
    } else if (**outcome == "error") {
      e.outcome = gymbro::Termination::kError;
    } else {
      return std::unexpected(ErrorAt(
          at / "outcome", Format("expected \"completed\" or \"error\", got \"{}\"", **outcome)));
    }
  }
  auto code = OptionalString(ex, at, "errorCode");
  if (!code) return std::unexpected(code.error());
  e.error_code = std::move(*code);
  auto reply = OptionalString(ex, at, "reply");
  if (!reply) return std::unexpected(reply.error());
  e.reply = std::move(*reply);
  auto heartbeats = OptionalInt(ex, at, "minHeartbeats");
  if (!heartbeats) return std::unexpected(heartbeats.error());
  e.min_heartbeats = *heartbeats;
  auto deltas = OptionalInt(ex, at, "minDeltas");
  if (!deltas) return std::unexpected(deltas.error());
  e.min_deltas = *deltas;
  auto violations = OptionalStrings(ex, at, "violations");
  if (!violations) return std::unexpected(violations.error());
  if (*violations) e.violations = std::move(**violations);
  return e;
}

std::span<const StreamRule> GymbroRules() { return kGymbroRules; }

// Every TML rule is judged by the stream judge, on the joined reply.
std::span<const StreamRule> ThinkingmlRules() {
  static const std::vector<StreamRule> rules = [] {
    std::vector<StreamRule> out;
    for (std::string_view id : thinkingml::kReplyRuleIds) out.push_back({id, nullptr});
    return out;
  }();
  return rules;
}

}  // namespace llmconform::harness::gymbro_suite
