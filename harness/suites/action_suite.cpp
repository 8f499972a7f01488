#include "harness/suites/action_suite.h"

#include <chrono>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/http_transport.h"
#include "harness/suites/action_checks.h"
#include "protocols/action/client.h"
#include "protocols/action/json_input.h"
#include "protocols/action/response_json.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

constexpr auto kActionTimeout = std::chrono::seconds(30);

const JsonPointer kActionInput("/input");

class ActionSuite final : public ProtocolSuite {
 public:
  explicit ActionSuite(TransportFactory factory) : factory_(std::move(factory)) {}

  std::string_view protocol() const override { return "action"; }

  std::expected<void, Error> ReadInput(const Scenario& scenario) const override {
    auto request = action::AssistantRequestFromJson(scenario.input, kActionInput);
    if (!request) return std::unexpected(request.error());
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto request = action::AssistantRequestFromJson(scenario.input, kActionInput);
    if (!request) return std::unexpected(request.error().Within(scenario.name));
    if (ctx.llm_base_url.empty()) {
      return std::unexpected(Error{
          Format("{}: the scenario has no trace; the action suite asks the LLM", scenario.name)});
    }
    auto transport = factory_(ctx.llm_base_url);
    auto outcome = action::AskAssistant(*transport, *request, kActionTimeout);
    if (!outcome) return std::unexpected(outcome.error());
    auto reading = action::ToJson(outcome->response);
    if (!reading) return std::unexpected(reading.error());
    Observation obs;
    obs.outputs = std::move(*reading);
    obs.outputs["request"] = action::BuildChatRequest(*request);
    obs.outputs["reply"] = outcome->reply;
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    for (const auto& rule : scenario.rules)
      out.push_back(
          RunRuleCheck(action_suite::Rules(), rule, action_suite::Context{scenario, obs}));
    return out;
  }

 private:
  TransportFactory factory_;
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeActionSuite() {
  return MakeActionSuite([](const std::string& base_url) { return MakeHttpTransport(base_url); });
}

std::unique_ptr<ProtocolSuite> MakeActionSuite(TransportFactory factory) {
  return std::make_unique<ActionSuite>(std::move(factory));
}

}  // namespace llmconform::harness
