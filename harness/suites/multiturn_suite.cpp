#include "harness/suites/multiturn_suite.h"

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/http_transport.h"
#include "harness/suites/multiturn_checks.h"
#include "protocols/multiturn/json_input.h"
#include "protocols/multiturn/multiturn.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness {
namespace {

using multiturn::Message;
using reports::CheckResult;

constexpr auto kMultiturnTimeout = std::chrono::seconds(30);

const JsonPointer kMultiturnInput("/input");

class MultiturnSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "multiturn"; }

  std::expected<void, Error> ReadInput(const Scenario& scenario) const override {
    auto args = multiturn::BuildArgsFromJson(scenario.input, kMultiturnInput);
    if (!args) return std::unexpected(args.error());
    // The oracle computes a negative budget as the document says (only the
    // forced messages are kept); a scenario with one is a mistake.
    if (args->max_token_budget < 0)
      return std::unexpected(ErrorAt(
          kMultiturnInput / "maxTokenBudget",
          Format("expected a non-negative integer (tokens), got {}", args->max_token_budget)));
    if (auto model = OptionalString(scenario.input, kMultiturnInput, "model"); !model)
      return std::unexpected(model.error());
    for (const char* flag : {"stream", "includeUsage"})
      if (auto b = OptionalBool(scenario.input, kMultiturnInput, flag); !b)
        return std::unexpected(b.error());
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto args = multiturn::BuildArgsFromJson(scenario.input, kMultiturnInput);
    if (!args) return std::unexpected(args.error().Within(scenario.name));
    auto built = multiturn::BuildLLMMessages(*args);
    Observation obs;
    if (!built) {
      obs.outputs["error"] = built.error().message;
      return obs;
    }
    const std::vector<Message> messages = multiturn::ToMessages(*built);
    obs.outputs["messages"] = multiturn_suite::ToJson(messages);
    if (ctx.llm_base_url.empty()) return obs;

    const bool stream = MemberOf(scenario.input, "stream") == true;
    Json request{{"model", scenario.input.value("model", "gpt-4o-mini")},
                 {"messages", multiturn_suite::ToJson(messages)}};
    if (stream) request["stream"] = true;
    if (stream && scenario.input.value("includeUsage", false))
      request["stream_options"] = {{"include_usage", true}};
    auto transport = MakeHttpTransport(ctx.llm_base_url);
    auto response = transport->PostJson("/chat/completions", request.dump(), kMultiturnTimeout);
    if (!response) return std::unexpected(response.error());
    obs.outputs["status"] = response->status;
    if (response->status != 200) {
      obs.outputs["error"] = response->body;
      return obs;
    }
    if (stream) {
      auto acc = wire::AccumulateStream(response->body);
      wire::MoveInlineThink(acc.message);  // docs/protocols.md, "Inline reasoning"
      obs.outputs["reply"] = acc.message.Text();
      obs.outputs["usage"] = acc.usage;
      Json findings = Json::array();
      for (const auto& f : acc.findings)
        findings.push_back({{"rule", f.rule}, {"message", f.message}});
      obs.outputs["wireFindings"] = std::move(findings);
    } else {
      Json body = ReadJsonOrDiscarded(response->body);
      auto parsed = wire::ResponseFromJson(body);
      if (!parsed || parsed->choices.empty()) {
        return std::unexpected(
            Error{Format("the LLM answered a body that is not a chat completion: {}",
                         response->body.substr(0, 200))});
      }
      wire::MoveInlineThink(parsed->choices[0].message);
      obs.outputs["reply"] = parsed->choices[0].message.Text();
      obs.outputs["usage"] = parsed->usage.value_or(nullptr);
    }
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    auto args = multiturn::BuildArgsFromJson(scenario.input, kMultiturnInput);
    const multiturn_suite::Sent sent = multiturn_suite::MessagesSent(obs);
    for (const auto& rule : scenario.rules) {
      if (!args) {
        out.push_back(CheckResult::Error(rule, args.error().message));
        continue;
      }
      out.push_back(RunRuleCheck(multiturn_suite::Rules(), rule,
                                 multiturn_suite::Context{scenario, obs, *args, sent}));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeMultiturnSuite() { return std::make_unique<MultiturnSuite>(); }

}  // namespace llmconform::harness
