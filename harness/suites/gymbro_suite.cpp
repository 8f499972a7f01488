#include "harness/suites/gymbro_suite.h"

#include <algorithm>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/gymbro_service.h"
#include "harness/sse_check.h"
#include "harness/suites/gymbro_checks.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/thinkingml/oracle_ops.h"
#include "protocols/thinkingml/thinkingml.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

struct Input {
  std::string text;
  std::optional<std::string> system;
  std::optional<std::string> model;
  std::string request_id;
  std::chrono::milliseconds heartbeat{1000};
  std::chrono::milliseconds timeout{30000};
};

std::expected<Input, Error> ReadStreamInput(const Scenario& s) {
  const Json& in = s.input;
  const JsonPointer at("/input");
  Input input;
  auto text = RequireString(in, at, "text");
  if (!text) return std::unexpected(text.error());
  input.text = std::move(*text);
  auto system = OptionalString(in, at, "system");
  if (!system) return std::unexpected(system.error());
  input.system = std::move(*system);
  auto model = OptionalString(in, at, "model");
  if (!model) return std::unexpected(model.error());
  input.model = std::move(*model);
  auto request_id = OptionalString(in, at, "requestId");
  if (!request_id) return std::unexpected(request_id.error());
  input.request_id = request_id->value_or("req-" + s.name);
  for (auto [key, field] :
       {std::pair{"heartbeatMs", &input.heartbeat}, std::pair{"timeoutMs", &input.timeout}}) {
    auto ms = OptionalInt(in, at, key);
    if (!ms) return std::unexpected(ms.error());
    if (*ms) {
      if (**ms < 1)
        return std::unexpected(ErrorAt(at / key, Format("expected at least 1, got {}", **ms)));
      *field = std::chrono::milliseconds(**ms);
    }
  }
  return input;
}

class GymbroStreamSuite final : public ProtocolSuite {
 public:
  GymbroStreamSuite(std::string protocol, std::span<const gymbro_suite::StreamRule> rules)
      : rules_(rules), protocol_(std::move(protocol)) {}

  std::string_view protocol() const override { return protocol_; }

  std::expected<void, Error> ReadInput(const Scenario& scenario) const override {
    auto input = ReadStreamInput(scenario);
    if (!input) return std::unexpected(input.error());
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto input = ReadStreamInput(scenario);
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
    options.inline_reasoning = ctx.inline_reasoning;
    auto service = GymbroService::Start(options);
    if (!service)
      return std::unexpected(
          Error::Io(Format("the GymBro service could not start: {}", service.error().message)));

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

  // The stream judge's results for the rules it knows, then the suite's own
  // checks, in the scenario's order (gymbro_checks.h).
  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    auto fail_all = [&](const std::string& why) {
      for (const auto& rule : scenario.rules) out.push_back(CheckResult::Error(rule, why));
      return out;
    };
    auto expect = gymbro_suite::ReadExpect(scenario);
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

    const gymbro_suite::Context context{obs, *expect, events};
    for (const auto& rule : scenario.rules) {
      const gymbro_suite::StreamRule* entry = Find(rule);
      if (!entry) {
        out.push_back(
            CheckResult::Error(rule, Format("no check is implemented for rule {}", rule)));
      } else if (entry->check) {
        if (auto result = entry->check(rule, context)) out.push_back(std::move(*result));
      }
    }
    return out;
  }

 private:
  const gymbro_suite::StreamRule* Find(std::string_view rule) const {
    for (const auto& entry : rules_) {
      if (entry.rule == rule) return &entry;
    }
    return nullptr;
  }

  std::span<const gymbro_suite::StreamRule> rules_;
  std::string protocol_;
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeGymbroStreamSuite(
    std::string protocol, std::span<const gymbro_suite::StreamRule> rules) {
  return std::make_unique<GymbroStreamSuite>(std::move(protocol), rules);
}

std::unique_ptr<ProtocolSuite> MakeGymbroSuite() {
  return MakeGymbroStreamSuite("gymbro", gymbro_suite::GymbroRules());
}

}  // namespace llmconform::harness
