#include "harness/suites/gymbro_suite.h"

#include <algorithm>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/gymbro_service.h"
#include "harness/sse_check.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/thinkingml/oracle_ops.h"
#include "protocols/thinkingml/thinkingml.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::Evidence;

struct Input {
  std::string text;
  std::optional<std::string> system;
  std::optional<std::string> model;
  std::string request_id;
  std::chrono::milliseconds heartbeat{1000};
  std::chrono::milliseconds timeout{30000};
};

std::expected<Input, Error> ReadInput(const Scenario& s) {
  const Json& in = s.input;
  auto at = [](std::string_view field, const Error& e) {
    return std::unexpected(Error{Format("input.{}: {}", field, e.message)});
  };
  Input input;
  auto text = RequireString(in, "text");
  if (!text) return at("text", text.error());
  input.text = std::move(*text);
  auto system = OptionalString(in, "system");
  if (!system) return at("system", system.error());
  input.system = std::move(*system);
  auto model = OptionalString(in, "model");
  if (!model) return at("model", model.error());
  input.model = std::move(*model);
  auto request_id = OptionalString(in, "requestId");
  if (!request_id) return at("requestId", request_id.error());
  input.request_id = request_id->value_or("req-" + s.name);
  for (auto [key, field] :
       {std::pair{"heartbeatMs", &input.heartbeat}, std::pair{"timeoutMs", &input.timeout}}) {
    auto ms = OptionalInt(in, key);
    if (!ms) return at(key, ms.error());
    if (*ms) {
      if (**ms < 1) return at(key, Error{Format("expected at least 1, got {}", **ms)});
      *field = std::chrono::milliseconds(**ms);
    }
  }
  return input;
}

struct Expect {
  std::optional<gymbro::Termination> outcome;
  std::optional<std::string> error_code;
  std::optional<std::string> reply;
  std::vector<std::string> violations;
  std::optional<std::int64_t> min_heartbeats;
  std::optional<std::int64_t> min_deltas;
};

std::expected<Expect, Error> ReadExpect(const Scenario& s) {
  const Json& ex = s.expect;
  auto at = [](std::string_view field, const Error& e) {
    return std::unexpected(Error{Format("expect.{}: {}", field, e.message)});
  };
  Expect e;
  auto outcome = OptionalString(ex, "outcome");
  if (!outcome) return at("outcome", outcome.error());
  if (*outcome) {
    if (**outcome == "completed") {
      e.outcome = gymbro::Termination::kCompleted;
    } else if (**outcome == "error") {
      e.outcome = gymbro::Termination::kError;
    } else {
      return at("outcome",
                Error{Format("expected \"completed\" or \"error\", got \"{}\"", **outcome)});
    }
  }
  auto code = OptionalString(ex, "errorCode");
  if (!code) return at("errorCode", code.error());
  e.error_code = std::move(*code);
  auto reply = OptionalString(ex, "reply");
  if (!reply) return at("reply", reply.error());
  e.reply = std::move(*reply);
  auto heartbeats = OptionalInt(ex, "minHeartbeats");
  if (!heartbeats) return at("minHeartbeats", heartbeats.error());
  e.min_heartbeats = *heartbeats;
  auto deltas = OptionalInt(ex, "minDeltas");
  if (!deltas) return at("minDeltas", deltas.error());
  e.min_deltas = *deltas;
  if (auto v = ex.find("violations"); v != ex.end() && !v->is_null()) {
    if (!v->is_array())
      return at("violations", Error{Format("expected array, got {}", JsonTypeName(*v))});
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        return at(Format("violations[{}]", i),
                  Error{Format("expected string, got {}", JsonTypeName((*v)[i]))});
      }
      e.violations.push_back((*v)[i].get<std::string>());
    }
  }
  return e;
}

class GymbroStreamSuite final : public ProtocolSuite {
 public:
  explicit GymbroStreamSuite(std::string protocol) : protocol_(std::move(protocol)) {}

  std::string_view protocol() const override { return protocol_; }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto input = ReadInput(scenario);
    if (!input) return std::unexpected(input.error());
    if (ctx.llm_base_url.empty()) {
      return std::unexpected(
          Error{"the scenario has no trace: the service needs an upstream to stream from"});
    }
    GymbroServiceOptions options;
    options.upstream_base_url = ctx.llm_base_url;
    if (input->model) options.model = *input->model;
    options.heartbeat_interval = input->heartbeat;
    options.upstream_timeout = input->timeout;
    auto service = GymbroService::Start(options);
    if (!service)
      return std::unexpected(
          Error{Format("the GymBro service could not start: {}", service.error().message)});

    Json body{{"text", input->text}};
    if (input->system) body["system"] = *input->system;
    auto posted =
        PostGymbroMessage((*service)->base_url(), body.dump(), input->request_id, input->timeout);
    if (!posted) return std::unexpected(posted.error());
    Observation obs;
    const Json post_body = ReadJsonOrDiscarded(posted->body);
    obs.outputs["post"] = {{"status", posted->status},
                           {"body", post_body.is_discarded() ? Json(posted->body) : post_body}};
    obs.outputs["requestId"] = input->request_id;
    if (posted->status != 200 || !post_body.is_object() || !post_body.contains("message_id") ||
        !post_body["message_id"].is_string()) {
      return std::unexpected(
          Error{Format("POST /api/v1/messages answered {}: {}", posted->status, posted->body)});
    }
    const std::string events_url = Format("{}/api/v1/messages/{}/events", (*service)->base_url(),
                                          post_body["message_id"].get<std::string>());
    auto stream = CaptureEventStream(events_url, input->request_id, input->timeout);
    (*service)->Stop();
    if (!stream) return std::unexpected(stream.error());
    obs.outputs["stream"] = ToJson(*stream);

    // The reference client: join by seq, check the contract, validate the reply.
    const gymbro::EventCheck check = gymbro::CheckEvents(stream->events, {input->request_id});
    Json client{{"reply", check.reply},
                {"outcome", gymbro::TerminationName(check.termination)},
                {"succeeded", check.Succeeded()},
                {"validation", nullptr}};
    if (check.Succeeded())
      client["validation"] =
          thinkingml::ValidationJson(thinkingml::Validate(check.reply), /*with_parts=*/false);
    obs.outputs["client"] = std::move(client);
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    auto fail_all = [&](const std::string& why) {
      for (const auto& rule : scenario.rules) out.push_back(CheckResult::Error(rule, why));
      return out;
    };
    auto expect = ReadExpect(scenario);
    if (!expect) return fail_all(expect.error().message);
    auto stream_json = obs.outputs.find("stream");
    if (stream_json == obs.outputs.end()) return fail_all("the observation has no \"stream\"");
    auto stream = CapturedStreamFromJson(*stream_json);
    if (!stream) return fail_all(stream.error().message);
    const std::string request_id = obs.outputs.value("requestId", std::string());
    const gymbro::EventCheck events = gymbro::CheckEvents(
        stream->events, {request_id.empty() ? std::nullopt : std::optional(request_id)});

    StreamJudgeOptions judge;
    if (!request_id.empty()) judge.request_id = request_id;
    judge.expected_termination = expect->outcome;
    judge.violations = expect->violations;
    out = JudgeStream(*stream, judge, scenario.rules);

    for (const auto& rule : scenario.rules) {
      if (rule == "GYMBRO-6.13") {
        out.push_back(CheckHeartbeats(*expect, events));
      } else if (rule == "GYMBRO-6.14") {
        out.push_back(CheckUpstreamFailure(*expect, events));
      } else if (rule == "GYMBRO-6.15" && expect->min_deltas) {
        out.push_back(CheckSplit(*expect, events));
      } else if (rule == "GYMBRO-6.16") {
        out.push_back(CheckPost(obs));
      } else if (rule == "GYMBRO-7.2") {
        out.push_back(CheckJoin(*expect, events, obs));
      } else if (rule == "GYMBRO-7.4") {
        out.push_back(CheckClientVerdict(events, obs));
      }
    }
    return out;
  }

 private:
  static CheckResult CheckHeartbeats(const Expect& expect, const gymbro::EventCheck& events) {
    const std::string rule = "GYMBRO-6.13";
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

  static CheckResult CheckUpstreamFailure(const Expect& expect, const gymbro::EventCheck& events) {
    const std::string rule = "GYMBRO-6.14";
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
    return CheckResult::Pass(rule,
                             Format("the unfinished upstream ended the stream with error {}: {}",
                                    events.error_code, events.error_message));
  }

  static CheckResult CheckSplit(const Expect& expect, const gymbro::EventCheck& events) {
    const std::string rule = "GYMBRO-6.15";
    if (static_cast<std::int64_t>(events.deltas) >= *expect.min_deltas) {
      return CheckResult::Pass(
          rule, Format("the upstream text went out in {} content deltas (at least {})",
                       events.deltas, *expect.min_deltas));
    }
    return CheckResult::Fail(
        rule,
        Format("{} content deltas, expected the service to split into at least {}", events.deltas,
               *expect.min_deltas),
        Evidence{Format(">= {} deltas", *expect.min_deltas), Format("{}", events.deltas),
                 "/stream/events"});
  }

  static CheckResult CheckPost(const Observation& obs) {
    const std::string rule = "GYMBRO-6.16";
    const Json post = obs.outputs.value("post", Json::object());
    const Json body = post.value("body", Json());
    const int status = post.value("status", 0);
    if (status == 200 && body.is_object() && body.contains("message_id") &&
        body["message_id"].is_string() && !body["message_id"].get<std::string>().empty()) {
      return CheckResult::Pass(rule, "POST /api/v1/messages answered 200 {message_id}");
    }
    return CheckResult::Fail(
        rule, Format("POST /api/v1/messages answered {} {}", status, body.dump()),
        Evidence{"200 {\"message_id\":…}", Format("{} {}", status, body.dump()), "/post"});
  }

  static CheckResult CheckJoin(const Expect& expect, const gymbro::EventCheck& events,
                               const Observation& obs) {
    const std::string rule = "GYMBRO-7.2";
    const std::string client_reply =
        obs.outputs.value("client", Json::object()).value("reply", std::string());
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

  static CheckResult CheckClientVerdict(const gymbro::EventCheck& events, const Observation& obs) {
    const std::string rule = "GYMBRO-7.4";
    const Json client = obs.outputs.value("client", Json::object());
    const bool succeeded = client.value("succeeded", false);
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

  std::string protocol_;
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeGymbroStreamSuite(std::string protocol) {
  return std::make_unique<GymbroStreamSuite>(std::move(protocol));
}

std::unique_ptr<ProtocolSuite> MakeGymbroSuite() { return MakeGymbroStreamSuite("gymbro"); }

}  // namespace llmconform::harness
