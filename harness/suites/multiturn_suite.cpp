#include "harness/suites/multiturn_suite.h"

#include <algorithm>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/http_transport.h"
#include "protocols/multiturn/multiturn.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness {
namespace {

using multiturn::Message;
using reports::CheckResult;
using reports::Evidence;

constexpr auto kTimeout = std::chrono::seconds(30);

std::expected<multiturn::BuildArgs, Error> ReadArgs(const Json& in) {
  multiturn::BuildArgs args;
  auto system = RequireString(in, "systemPrompt");
  if (!system) return std::unexpected(system.error());
  auto current = RequireString(in, "currentUserMessage");
  if (!current) return std::unexpected(current.error());
  auto budget = RequireInt(in, "maxTokenBudget");
  if (!budget) return std::unexpected(budget.error());
  auto history = RequireArray(in, "history");
  if (!history) return std::unexpected(history.error());
  args.system_prompt = *system;
  args.current_user_message = *current;
  args.max_token_budget = *budget;
  for (std::size_t i = 0; i < history->size(); ++i) {
    auto role = RequireString((*history)[i], "role");
    auto content = RequireString((*history)[i], "content");
    if (!role || !content) {
      return std::unexpected(Error{
          Format("input.history[{}]: {}", i, (!role ? role.error() : content.error()).message)});
    }
    args.history.push_back({*role, *content});
  }
  return args;
}

Json ToJson(const std::vector<Message>& messages) {
  Json out = Json::array();
  for (const auto& m : messages) out.push_back({{"role", m.role}, {"content", m.content}});
  return out;
}

// The messages the client sent: from the journal when the scenario talked to
// mockllm (what reached the wire), else from the driver's outputs.
struct Sent {
  std::vector<Message> messages;
  std::string where;
  bool ok = true;
  std::string problem;
};

Sent MessagesSent(const Observation& obs) {
  Sent sent;
  const Json* list = nullptr;
  if (!obs.journal.empty()) {
    const Json& entry = obs.journal.front();
    sent.where = "journal[0]/request/body/messages";
    if (entry.contains("request") && entry["request"].contains("body") &&
        entry["request"]["body"].is_object() && entry["request"]["body"].contains("messages")) {
      list = &entry["request"]["body"]["messages"];
    }
  } else {
    sent.where = "outputs/messages";
    if (obs.outputs.contains("messages")) list = &obs.outputs["messages"];
  }
  if (!list || !list->is_array()) {
    sent.ok = false;
    sent.problem = Format("no messages array at {}", sent.where);
    return sent;
  }
  for (const auto& m : *list) {
    const std::string content =
        m.contains("content") && m["content"].is_string() ? m["content"].get<std::string>() : "";
    sent.messages.push_back({m.value("role", ""), content});
  }
  return sent;
}

std::string Show(const std::vector<Message>& ms) { return ToJson(ms).dump(); }

class MultiturnSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "multiturn"; }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto args = ReadArgs(scenario.input);
    if (!args)
      return std::unexpected(Error{Format("{}: input: {}", scenario.name, args.error().message)});
    auto built = multiturn::BuildLLMMessages(*args);
    Observation obs;
    if (!built) {
      obs.outputs["error"] = built.error().message;
      return obs;
    }
    const std::vector<Message> messages = multiturn::ToMessages(*built);
    obs.outputs["messages"] = ToJson(messages);
    if (ctx.llm_base_url.empty()) return obs;

    const bool stream = scenario.input.value("stream", false);
    Json request{{"model", scenario.input.value("model", "gpt-4o-mini")},
                 {"messages", ToJson(messages)}};
    if (stream) request["stream"] = true;
    auto transport = MakeHttpTransport(ctx.llm_base_url);
    auto response = transport->PostJson("/chat/completions", request.dump(), kTimeout);
    if (!response) return std::unexpected(response.error());
    obs.outputs["status"] = response->status;
    if (response->status != 200) {
      obs.outputs["error"] = response->body;
      return obs;
    }
    if (stream) {
      auto acc = wire::AccumulateStream(response->body);
      obs.outputs["reply"] = acc.message.Text();
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
      obs.outputs["reply"] = parsed->choices[0].message.Text();
    }
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& scenario, const Observation& obs) const override {
    std::vector<CheckResult> out;
    auto args = ReadArgs(scenario.input);
    for (const auto& rule : scenario.rules) {
      if (!args) {
        out.push_back(CheckResult::Error(rule, args.error().message));
        continue;
      }
      out.push_back(CheckOne(rule, *args, scenario, obs));
    }
    return out;
  }

 private:
  static CheckResult CheckOne(const std::string& rule, const multiturn::BuildArgs& args,
                              const Scenario& scenario, const Observation& obs) {
    if (rule == "REQ-AIS-MULTITURN-6") return CheckTokens(rule, scenario);
    const Sent sent = MessagesSent(obs);
    if (!sent.ok)
      return CheckResult::Fail(rule, sent.problem, {"a messages array", "nothing", sent.where});
    const auto& ms = sent.messages;
    const auto& history = args.history;
    const std::int64_t fixed = multiturn::EstimateMessageTokens(args.system_prompt) +
                               multiturn::EstimateMessageTokens(args.current_user_message);

    if (rule == "REQ-AIS-MULTITURN-1") {
      // [system, ...history, currentUser]: system first, user last, history roles in between.
      bool ok = ms.size() >= 2 && ms.front().role == "system" && ms.back().role == "user";
      for (std::size_t i = 1; ok && i + 1 < ms.size(); ++i)
        ok = ms[i].role == "user" || ms[i].role == "assistant";
      if (ok)
        return CheckResult::Pass(
            rule, Format("{} messages in the order [system, ...history, user]", ms.size()));
      return CheckResult::Fail(
          rule, "the messages are not in the order [system, ...history, currentUser]",
          {"[system, ...history, user]", Show(ms), sent.where});
    }
    if (rule == "REQ-AIS-MULTITURN-2") {
      if (!ms.empty() && ms.front().role == "system" && ms.front().content == args.system_prompt) {
        return CheckResult::Pass(rule, "the system prompt is the first message, unchanged");
      }
      return CheckResult::Fail(rule, "the system prompt is not the first message as given",
                               {Show({{"system", args.system_prompt}}),
                                ms.empty() ? "[]" : Show({ms.front()}), sent.where + "/0"});
    }
    if (rule == "REQ-AIS-MULTITURN-3") {
      if (!ms.empty() && ms.back().role == "user" &&
          ms.back().content == args.current_user_message) {
        return CheckResult::Pass(rule, "the current user message is the last message, unchanged");
      }
      return CheckResult::Fail(
          rule, "the current user message is not the last message as given",
          {Show({{"user", args.current_user_message}}), ms.empty() ? "[]" : Show({ms.back()}),
           Format("{}/{}", sent.where, ms.empty() ? 0 : ms.size() - 1)});
    }
    if (rule == "REQ-AIS-MULTITURN-4" || rule == "REQ-AIS-MULTITURN-5") {
      // The kept history must be the newest run of the given history, as long as fits.
      const std::size_t kept = ms.size() >= 2 ? ms.size() - 2 : 0;
      bool suffix = kept <= history.size();
      for (std::size_t i = 0; suffix && i < kept; ++i)
        suffix = ms[1 + i] == history[history.size() - kept + i];
      if (!suffix) {
        return CheckResult::Fail(
            rule, "the kept history is not the newest contiguous run of the given history",
            {"a suffix of input.history", Show(std::vector<Message>(ms.begin() + 1, ms.end() - 1)),
             sent.where});
      }
      std::int64_t total = fixed;
      for (std::size_t i = 0; i < kept; ++i)
        total += multiturn::EstimateMessageTokens(ms[1 + i].content);
      if (rule == "REQ-AIS-MULTITURN-5") {
        if (fixed <= args.max_token_budget) {
          return CheckResult::Skip(
              rule, Format("system + current take {} of {} tokens: the forced case does not arise",
                           fixed, args.max_token_budget));
        }
        if (kept == 0) {
          return CheckResult::Pass(
              rule, Format("system + current take {} > {} tokens: both kept, all history dropped",
                           fixed, args.max_token_budget));
        }
        return CheckResult::Fail(rule, "system + current exceed the budget, yet history was kept",
                                 {"no history", Format("{} history messages", kept), sent.where});
      }
      if (kept > 0 && total > args.max_token_budget) {
        return CheckResult::Fail(rule,
                                 Format("the kept messages total {} tokens, over the budget of {}",
                                        total, args.max_token_budget),
                                 {Format("<= {} tokens", args.max_token_budget),
                                  Format("{} tokens", total), sent.where});
      }
      if (kept < history.size() &&
          total + multiturn::EstimateMessageTokens(history[history.size() - kept - 1].content) <=
              args.max_token_budget) {
        return CheckResult::Fail(rule, "a history message that fits the budget was trimmed",
                                 {Format("{} history messages", kept + 1),
                                  Format("{} history messages", kept), sent.where});
      }
      return CheckResult::Pass(
          rule, Format("kept the newest {} of {} history messages ({} of {} tokens)", kept,
                       history.size(), total, args.max_token_budget));
    }
    if (rule == "REQ-AIS-MULTITURN-7") {
      bool ok = std::all_of(ms.begin(), ms.end(), [](const Message& m) {
        return m.role == "system" || m.role == "user" || m.role == "assistant";
      });
      if (ok) return CheckResult::Pass(rule, "every role is system, user or assistant");
      return CheckResult::Fail(rule, "a message has a role other than system, user or assistant",
                               {"system | user | assistant", Show(ms), sent.where});
    }
    if (rule == "REQ-AIS-MULTITURN-8") {
      auto want = multiturn::BuildLLMMessages(args);
      if (!want) return CheckResult::Error(rule, want.error().message);
      const std::vector<Message> want_messages = multiturn::ToMessages(*want);
      if (want_messages == ms)
        return CheckResult::Pass(rule, "the request carries exactly buildLLMMessages' result");
      return CheckResult::Fail(rule,
                               "the request does not carry buildLLMMessages' result for this input",
                               {Show(want_messages), Show(ms), sent.where});
    }
    if (rule == "REQ-AIS-MULTITURN") {
      if (!scenario.expect.contains("messages")) {
        return CheckResult::Skip(rule, "the scenario states no exact expected messages");
      }
      const Json want = scenario.expect["messages"];
      const Json got = ToJson(ms);
      if (want == got)
        return CheckResult::Pass(
            rule, Format("the {} messages sent are exactly as specified", ms.size()));
      return CheckResult::Fail(rule,
                               "the messages sent differ from the scenario's expected messages",
                               {want.dump(), got.dump(), sent.where});
    }
    return CheckResult::Error(rule, Format("no check is implemented for rule {}", rule));
  }

  static CheckResult CheckTokens(const std::string& rule, const Scenario& scenario) {
    if (!scenario.expect.contains("tokens") || !scenario.expect["tokens"].is_object()) {
      return CheckResult::Skip(rule, "the scenario states no token estimates");
    }
    for (const auto& [text, want] : scenario.expect["tokens"].items()) {
      const std::int64_t got = multiturn::EstimateMessageTokens(text);
      if (!want.is_number_integer() || got != want.get<std::int64_t>()) {
        return CheckResult::Fail(
            rule, Format("estimateMessageTokens(\"{}\") is {}", text, got),
            {want.dump(), std::to_string(got), Format("expect/tokens/{}", text)});
      }
    }
    return CheckResult::Pass(
        rule, Format("{} token estimates match the formula", scenario.expect["tokens"].size()));
  }
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeMultiturnSuite() { return std::make_unique<MultiturnSuite>(); }

}  // namespace llmconform::harness
