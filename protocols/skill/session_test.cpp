#include "protocols/skill/session.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <deque>

namespace llmconform::skill {
namespace {

// Replies from a script; records the history of every request.
class ScriptedModel : public SkillModel {
 public:
  explicit ScriptedModel(std::deque<std::expected<std::string, Error>> replies)
      : replies_(std::move(replies)) {}
  std::expected<std::string, Error> Complete(const std::vector<Message>& messages) override {
    requests.push_back(messages);
    if (replies_.empty()) return std::unexpected(Error{"script used up"});
    auto r = std::move(replies_.front());
    replies_.pop_front();
    return r;
  }
  std::vector<std::vector<Message>> requests;

 private:
  std::deque<std::expected<std::string, Error>> replies_;
};

constexpr std::string_view kSkill =
    "---\nname: git-quick-commit\ndescription: Быстрый коммит\n---\n\n## What I do\n\n"
    "Я выполняю следующие шаги:\n1. Запускаю `git status --porcelain`\n"
    "2. Если есть изменения, спрашиваю сообщение для коммита\n";

SessionSetup GitQuickCommit() {
  SessionSetup s;
  s.skill_name = "git-quick-commit";
  s.skill_markdown = std::string(kSkill);
  return s;
}

std::vector<std::string> States(const SkillSession& s) {
  std::vector<std::string> out;
  for (const auto& t : s.transcript()) out.emplace_back(StateName(t.state));
  return out;
}

// Seed 000 §6, step by step.
TEST(SkillSession, SeedGitQuickCommitConversation) {
  auto session = SkillSession::Start(GitQuickCommit());
  ASSERT_TRUE(session);
  ScriptedModel model({"[CMD] git status --porcelain", "[ASK] Введи сообщение коммита:",
                       "[CMD] git add . && git commit -m \"fix: update skills API\"",
                       "[DONE] Коммит успешно создан: abc1234. Изменён 1 файл."});
  ScriptedCommandRunner runner(
      {{" M server/skills.js\n?? new-file.txt\n", 0, false},
       {"[main abc1234] fix: update skills API\n 1 file changed, 5 insertions(+)\n", 0, false}});
  ScriptedUserConsole user({true, true}, {std::string("fix: update skills API")});
  ASSERT_TRUE(RunSkillSession(*session, model, runner, user));

  const std::string system = std::string(kSkillSystemPromptWithAsk) +
                             "\n\n--- Active Skill: git-quick-commit ---\n## What I do\n\n"
                             "Я выполняю следующие шаги:\n1. Запускаю `git status --porcelain`\n"
                             "2. Если есть изменения, спрашиваю сообщение для коммита";
  const std::vector<Message> step4 = {
      {"system", system},
      {"user", "Execute skill: git-quick-commit\n\n[Step 1 of 100]"},
      {"assistant", "[CMD] git status --porcelain"},
      {"user", "Command output:\nM server/skills.js\n?? new-file.txt\n\n[Step 2 of 100]"},
      {"assistant", "[ASK] Введи сообщение коммита:"},
      {"user", "User response: fix: update skills API\n\n[Step 3 of 100]"},
      {"assistant", "[CMD] git add . && git commit -m \"fix: update skills API\""},
      {"user",
       "Command output:\n[main abc1234] fix: update skills API\n1 file changed, 5 "
       "insertions(+)\n\n[Step 4 of 100]"},
  };
  ASSERT_EQ(model.requests.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(model.requests[i], std::vector<Message>(step4.begin(), step4.begin() + 2 + 2 * i))
        << i;
  }
  EXPECT_EQ(session->state(), SessionState::kDone);
  EXPECT_EQ(session->step(), 4);
  EXPECT_EQ(session->end(),
            (SessionEnd{EndReason::kCompleted, "Коммит успешно создан: abc1234. Изменён 1 файл."}));
  EXPECT_EQ(States(*session),
            (std::vector<std::string>{"idle", "waiting_cmd", "idle", "waiting_user", "idle",
                                      "waiting_cmd", "idle", "done", "done"}));
  EXPECT_EQ(session->messages().back(),
            (Message{"assistant", "[DONE] Коммит успешно создан: abc1234. Изменён 1 файл."}));
}

TEST(SkillSession, ServerContextParametersAndCustomPrompt) {
  SessionSetup setup = GitQuickCommit();
  setup.server_context = "\nServer: prod-1\n";
  setup.parameters = {{"branch", "dev"}};
  setup.custom_prompt = "Закоммить всё";
  setup.max_steps = 7;
  auto s = SkillSession::Start(setup);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->messages()[0].content.ends_with(
      "- [DONE]: summarize what was accomplished\n\n--- System Context ---\nServer: prod-1\n\n"
      "--- Active Skill: git-quick-commit ---\n## What I do\n\nЯ выполняю следующие шаги:\n"
      "1. Запускаю `git status --porcelain`\n2. Если есть изменения, спрашиваю сообщение для "
      "коммита"));
  EXPECT_EQ(s->messages()[1].content,
            "Закоммить всё\n\nParameters:\n- branch: dev\n\n[Step 1 of 7]");
}

TEST(SkillSession, SkippedOptionalQuestionSendsAnEmptyAnswer) {
  auto s = SkillSession::Start(GitQuickCommit());
  ScriptedModel model(
      {"[ASK:optional] Хочешь добавить тег? (оставь пустым для пропуска):", "[DONE]"});
  ScriptedCommandRunner runner({});
  ScriptedUserConsole user({}, {std::nullopt});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  EXPECT_EQ(model.requests.back().back(), (Message{"user", "User response: \n\n[Step 2 of 100]"}));
  EXPECT_EQ(s->end(), (SessionEnd{EndReason::kCompleted, "Skill completed"}));
}

TEST(SkillSession, RequiredQuestionCannotBeSkipped) {
  auto s = SkillSession::Start(GitQuickCommit());
  ASSERT_TRUE(s->OnReply("[ASK] Message?"));
  EXPECT_EQ(s->OnAnswer(std::nullopt).error().message,
            "answer: a required question cannot be skipped");
  EXPECT_EQ(s->state(), SessionState::kWaitingUser);
  ScriptedModel model({});
  ScriptedCommandRunner runner({});
  ScriptedUserConsole user({}, {std::nullopt});
  EXPECT_EQ(RunSkillSession(*s, model, runner, user).error().message,
            "scripted user: question #1 is required and cannot be skipped");
}

TEST(SkillSession, MessageContinuesOnItsOwn) {
  auto s = SkillSession::Start(GitQuickCommit());
  ScriptedModel model({"[MESSAGE] Проверяю ветку dev...", "[DONE] ok"});
  ScriptedCommandRunner runner({});
  ScriptedUserConsole user({}, {});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  ASSERT_EQ(model.requests.size(), 2u);
  const auto& second = model.requests[1];
  EXPECT_EQ(second[2], (Message{"assistant", "[MESSAGE] Проверяю ветку dev..."}));
  EXPECT_EQ(second[3],
            (Message{"user", "[Continue after informational message]\n\n[Step 2 of 100]"}));
  EXPECT_EQ(States(*s), (std::vector<std::string>{"idle", "idle", "idle", "done", "done"}));
}

TEST(SkillSession, UntaggedReplyRunsAsACommandAndIsSentBackTagged) {
  auto s = SkillSession::Start(GitQuickCommit());
  ScriptedModel model({"ls -la\nThis lists the folder.", "[DONE]"});
  ScriptedCommandRunner runner({{"total 0\n", 0, false}});
  ScriptedUserConsole user({true}, {});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  EXPECT_EQ(model.requests[1][2], (Message{"assistant", "[CMD] ls -la"}));
  EXPECT_EQ(model.requests[1][3], (Message{"user", "Command output:\ntotal 0\n\n[Step 2 of 100]"}));
}

TEST(SkillSession, SkippedCommand) {
  auto s = SkillSession::Start(GitQuickCommit());
  ScriptedModel model({"[CMD] git push --force", "[DONE] Not pushed"});
  ScriptedCommandRunner runner({});
  ScriptedUserConsole user({false}, {});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  EXPECT_EQ(model.requests[1][3],
            (Message{"user", "User skipped the command.\n\n[Step 2 of 100]"}));
  EXPECT_EQ(s->transcript()[2].event, TranscriptEntry::Event::kCommandSkipped);
  EXPECT_EQ(s->transcript()[2].command, "git push --force");
}

TEST(SkillSession, StepLimit) {
  SessionSetup setup = GitQuickCommit();
  setup.max_steps = 3;
  auto s = SkillSession::Start(setup);
  ScriptedModel model({"[CMD] a", "[CMD] b", "[CMD] c", "[CMD] never asked"});
  ScriptedCommandRunner runner({{"1", 0, false}, {"2", 0, false}, {"3", 0, false}});
  ScriptedUserConsole user({true, true, true}, {});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  EXPECT_EQ(model.requests.size(), 3u);
  EXPECT_EQ(model.requests[2].back().content, "Command output:\n2\n\n[Step 3 of 3]");
  EXPECT_EQ(s->end(), (SessionEnd{EndReason::kMaxSteps, "Maximum steps reached"}));
  EXPECT_EQ(s->step(), 3);
  EXPECT_EQ(runner.remaining(), 0u);  // the third command still ran
  EXPECT_EQ(s->messages().back(), (Message{"assistant", "[CMD] c"}));
}

TEST(SkillSession, ModelErrorEndsTheSession) {
  auto s = SkillSession::Start(GitQuickCommit());
  ScriptedModel model({std::unexpected(Error{"LLM answered HTTP 500: boom"})});
  ScriptedCommandRunner runner({});
  ScriptedUserConsole user({}, {});
  ASSERT_TRUE(RunSkillSession(*s, model, runner, user));
  EXPECT_EQ(s->end(), (SessionEnd{EndReason::kModelError, "LLM answered HTTP 500: boom"}));
  EXPECT_EQ(s->messages().size(), 2u);
}

TEST(SkillSession, UnknownReplyEndsTheSession) {
  auto s = SkillSession::Start(GitQuickCommit());
  ASSERT_TRUE(s->OnReply("   "));
  EXPECT_EQ(s->end(), (SessionEnd{EndReason::kInvalidReply, "Empty or invalid AI response"}));
  EXPECT_EQ(s->messages().back(), (Message{"assistant", ""}));
}

TEST(SkillSession, EventsOutOfTurnAreRejected) {
  auto s = SkillSession::Start(GitQuickCommit());
  EXPECT_EQ(s->OnCommandOutput("x").error().message,
            "command output: the session is idle, expected waiting_cmd");
  EXPECT_EQ(s->OnAnswer("x").error().message, "answer: the session is idle, expected waiting_user");
  ASSERT_TRUE(s->OnReply("[CMD] ls"));
  EXPECT_EQ(s->OnReply("[DONE]").error().message,
            "reply: the session is waiting_cmd, expected idle");
  EXPECT_EQ(s->OnModelError("x").error().message,
            "model error: the session is waiting_cmd, expected idle");
  EXPECT_EQ(s->transcript().size(), 2u);
  EXPECT_EQ(SkillSession::Start(SessionSetup{.max_steps = 0}).error().message,
            "max_steps: expected at least 1, got 0");
}

TEST(SkillSession, TranscriptJson) {
  auto s = SkillSession::Start(GitQuickCommit());
  ASSERT_TRUE(s->OnReply("[CMD] ls"));
  ASSERT_TRUE(s->OnCommandOutput("\x1b[32ma\x1b[0m\n"));
  ASSERT_TRUE(s->OnReply("[DONE] fine"));
  const auto j = ToJson(s->transcript());
  EXPECT_EQ(
      j[1].dump(),
      R"({"event":"reply","reply":{"command":"ls","content":"[CMD] ls","type":"CMD"},"state":"waiting_cmd","step":1,"text":"[CMD] ls"})");
  EXPECT_EQ(
      j[2].dump(),
      R"({"cleaned":"a","command":"ls","event":"command_output","state":"idle","step":2,"text":"\u001b[32ma\u001b[0m\n"})");
  EXPECT_EQ(
      j[4].dump(),
      R"({"end":{"message":"fine","reason":"completed"},"event":"end","state":"done","step":2})");
}

// rc::state: any sequence of events against a model of §7.
struct Model {
  SessionState state = SessionState::kIdle;
  std::int64_t step = 1;
  std::int64_t max_steps = 1;
  bool required = false;
  std::size_t messages = 2;
};

using Sut = SkillSession;

// Counts the step up as the session must when it sends a user message.
void NextUser(Model& m) {
  if (m.step + 1 > m.max_steps) {
    m.state = SessionState::kDone;
    return;
  }
  ++m.step;
  ++m.messages;
  m.state = SessionState::kIdle;
}

void CheckAgainst(const Model& m, const Sut& s) {
  RC_ASSERT(s.state() == m.state);
  RC_ASSERT(s.step() == m.step);
  RC_ASSERT(s.messages().size() == m.messages);
  RC_ASSERT(s.step() <= s.max_steps());
  const auto& msgs = s.messages();
  RC_ASSERT(msgs[0].role == "system");
  for (std::size_t i = 1; i < msgs.size(); ++i)
    RC_ASSERT(msgs[i].role == (i % 2 ? "user" : "assistant"));
  if (s.state() == SessionState::kIdle) RC_ASSERT(msgs.back().role == "user");
  if (s.state() != SessionState::kDone)
    RC_ASSERT(!s.end().has_value());
  else
    RC_ASSERT(s.end().has_value());
}

struct Reply : rc::state::Command<Model, Sut> {
  int kind = *rc::gen::inRange(0, 7);  // CMD, ASK, ASK:optional, MESSAGE, DONE, untagged, empty
  std::string text = *rc::gen::element<std::string>("ls", "why?", "status", "a b c");
  std::string Text() const {
    static const char* kTags[] = {"[CMD] ", "[ASK] ", "[ASK:optional] ", "[MESSAGE] ", "[DONE] ",
                                  "",       ""};
    return kind == 6 ? std::string(" ") : kTags[kind] + text;
  }
  void apply(Model& m) const override {
    if (m.state != SessionState::kIdle) return;
    m.messages += 1;
    switch (kind) {
      case 0:
      case 5:
        m.state = SessionState::kWaitingCmd;
        break;
      case 1:
      case 2:
        m.state = SessionState::kWaitingUser;
        m.required = kind == 1;
        break;
      case 3:
        NextUser(m);
        break;
      default:
        m.state = SessionState::kDone;
        break;
    }
  }
  void run(const Model& m, Sut& s) const override {
    const bool legal = m.state == SessionState::kIdle;
    RC_ASSERT(s.OnReply(Text()).has_value() == legal);
    Model next = m;
    apply(next);
    CheckAgainst(next, s);
  }
  void show(std::ostream& os) const override { os << "Reply(" << Text() << ")"; }
};

struct ModelFails : rc::state::Command<Model, Sut> {
  void apply(Model& m) const override {
    if (m.state == SessionState::kIdle) m.state = SessionState::kDone;
  }
  void run(const Model& m, Sut& s) const override {
    RC_ASSERT(s.OnModelError("boom").has_value() == (m.state == SessionState::kIdle));
    Model next = m;
    apply(next);
    CheckAgainst(next, s);
  }
  void show(std::ostream& os) const override { os << "ModelFails"; }
};

struct CommandDone : rc::state::Command<Model, Sut> {
  bool skipped = *rc::gen::arbitrary<bool>();
  void apply(Model& m) const override {
    if (m.state == SessionState::kWaitingCmd) NextUser(m);
  }
  void run(const Model& m, Sut& s) const override {
    auto r = skipped ? s.OnCommandSkipped() : s.OnCommandOutput("out\n");
    RC_ASSERT(r.has_value() == (m.state == SessionState::kWaitingCmd));
    Model next = m;
    apply(next);
    CheckAgainst(next, s);
  }
  void show(std::ostream& os) const override {
    os << (skipped ? "CommandSkipped" : "CommandOutput");
  }
};

struct Answers : rc::state::Command<Model, Sut> {
  bool skipped = *rc::gen::arbitrary<bool>();
  bool Legal(const Model& m) const {
    return m.state == SessionState::kWaitingUser && !(skipped && m.required);
  }
  void apply(Model& m) const override {
    if (Legal(m)) NextUser(m);
  }
  void run(const Model& m, Sut& s) const override {
    auto r = skipped ? s.OnAnswer(std::nullopt) : s.OnAnswer("yes");
    RC_ASSERT(r.has_value() == Legal(m));
    Model next = m;
    apply(next);
    CheckAgainst(next, s);
  }
  void show(std::ostream& os) const override { os << (skipped ? "AnswerSkipped" : "Answer"); }
};

RC_GTEST_PROP(SkillSessionProperties, FollowsTheStateModel, ()) {
  Model model;
  model.max_steps = *rc::gen::inRange<std::int64_t>(1, 6);
  SessionSetup setup = GitQuickCommit();
  setup.max_steps = model.max_steps;
  auto sut = SkillSession::Start(setup);
  RC_ASSERT(sut.has_value());
  rc::state::check(model, *sut,
                   rc::state::gen::execOneOfWithArgs<Reply, ModelFails, CommandDone, Answers>());
}

}  // namespace
}  // namespace llmconform::skill
