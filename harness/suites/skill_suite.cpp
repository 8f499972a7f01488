#include "harness/suites/skill_suite.h"

#include <deque>

#include "base/format.h"
#include "harness/http_transport.h"
#include "harness/suites/skill_checks.h"
#include "harness/suites/skill_conversation.h"
#include "harness/suites/skill_script.h"
#include "protocols/skill/chat_client.h"
#include "protocols/skill/command_runner.h"
#include "protocols/skill/response.h"
#include "protocols/skill/session.h"
#include "protocols/skill/user_console.h"

namespace llmconform::harness {
namespace {

namespace sk = skill;
using reports::CheckResult;
using skill_suite::Analyse;
using skill_suite::Context;
using skill_suite::Conversation;
using skill_suite::ReadKnowledge;
using skill_suite::ReadScript;

const JsonPointer kSkillInput("/input");

class SkillSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "skill"; }

  std::expected<void, Error> ReadInput(const Scenario& scenario) const override {
    auto script = ReadScript(scenario.input, kSkillInput);
    if (!script) return std::unexpected(script.error());
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& scenario,
                                          const DriveContext& ctx) override {
    auto script = ReadScript(scenario.input, kSkillInput);
    if (!script) return std::unexpected(script.error().Within(scenario.name));
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
    auto script = ReadScript(scenario.input, kSkillInput);
    const std::vector<SentRequest> requests = ReadRequestsSent(obs.journal);
    std::expected<Conversation, Error> conv =
        script ? Analyse(*script, scenario, requests) : std::unexpected(script.error());
    for (const auto& rule : scenario.rules) {
      if (!conv) {
        out.push_back(CheckResult::Error(rule, conv.error().message));
        continue;
      }
      out.push_back(
          RunRuleCheck(skill_suite::Rules(), rule, Context{scenario, *script, obs, *conv}));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeSkillSuite() { return std::make_unique<SkillSuite>(); }

}  // namespace llmconform::harness
