#include "protocols/skill/session.h"

#include "base/format.h"
#include "protocols/skill/clean_output.h"

namespace llmconform::skill {

std::string_view StateName(SessionState state) {
  switch (state) {
    case SessionState::kIdle:
      return "idle";
    case SessionState::kWaitingCmd:
      return "waiting_cmd";
    case SessionState::kWaitingUser:
      return "waiting_user";
    case SessionState::kDone:
      break;
  }
  return "done";
}

std::string_view EndReasonName(EndReason reason) {
  switch (reason) {
    case EndReason::kCompleted:
      return "completed";
    case EndReason::kMaxSteps:
      return "max_steps";
    case EndReason::kInvalidReply:
      return "invalid_reply";
    case EndReason::kModelError:
      break;
  }
  return "model_error";
}

std::string_view EventName(TranscriptEntry::Event event) {
  using E = TranscriptEntry::Event;
  switch (event) {
    case E::kStart:
      return "start";
    case E::kReply:
      return "reply";
    case E::kModelError:
      return "model_error";
    case E::kCommandOutput:
      return "command_output";
    case E::kCommandSkipped:
      return "command_skipped";
    case E::kAnswer:
      return "answer";
    case E::kContinue:
      return "continue";
    case E::kEnd:
      break;
  }
  return "end";
}

std::expected<SkillSession, Error> SkillSession::Start(const SessionSetup& setup) {
  if (setup.max_steps < 1) {
    return std::unexpected(
        Error{Format("max_steps: expected at least 1, got {}", setup.max_steps)});
  }
  SkillSession s;
  s.max_steps_ = setup.max_steps;
  s.messages_.push_back({"system", BuildSkillSystemPrompt(setup.base_prompt, setup.server_context,
                                                          setup.skill_name, setup.skill_markdown)});
  s.messages_.push_back({"user", BuildInitialUserPrompt(setup.skill_name, setup.parameters,
                                                        setup.custom_prompt, 1, s.max_steps_)});
  TranscriptEntry start;
  start.event = TranscriptEntry::Event::kStart;
  start.step = 1;
  start.state = SessionState::kIdle;
  start.text = s.messages_.back().content;
  s.transcript_.push_back(std::move(start));
  return s;
}

std::expected<void, Error> SkillSession::Expect(SessionState wanted, std::string_view event) const {
  if (state_ == wanted) return {};
  return std::unexpected(Error{
      Format("{}: the session is {}, expected {}", event, StateName(state_), StateName(wanted))});
}

void SkillSession::Finish(EndReason reason, std::string message) {
  state_ = SessionState::kDone;
  end_ = SessionEnd{reason, std::move(message)};
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kEnd;
  e.step = step_;
  e.state = state_;
  e.end = end_;
  transcript_.push_back(std::move(e));
}

template <typename MakeMessage>
void SkillSession::NextUserMessage(TranscriptEntry entry, MakeMessage make) {
  if (step_ + 1 > max_steps_) {
    entry.step = step_;
    entry.state = SessionState::kDone;
    transcript_.push_back(std::move(entry));
    Finish(EndReason::kMaxSteps, std::string(kMaxStepsReached));
    return;
  }
  ++step_;
  messages_.push_back({"user", make(step_)});
  state_ = SessionState::kIdle;
  entry.step = step_;
  entry.state = state_;
  transcript_.push_back(std::move(entry));
}

std::expected<void, Error> SkillSession::OnReply(std::string_view reply) {
  if (auto ok = Expect(SessionState::kIdle, "reply"); !ok) return ok;
  ParsedReply parsed = ParseSkillResponse(reply);
  messages_.push_back({"assistant", parsed.content});
  last_reply_ = parsed;
  switch (parsed.type) {
    case ReplyType::kCmd:
      state_ = SessionState::kWaitingCmd;
      break;
    case ReplyType::kAsk:
      state_ = SessionState::kWaitingUser;
      break;
    case ReplyType::kMessage:
      state_ = SessionState::kIdle;
      break;
    case ReplyType::kDone:
    case ReplyType::kUnknown:
      state_ = SessionState::kDone;
      break;
  }
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kReply;
  e.step = step_;
  e.state = state_;
  e.text = std::string(reply);
  e.reply = parsed;
  transcript_.push_back(std::move(e));
  switch (parsed.type) {
    case ReplyType::kMessage: {
      TranscriptEntry cont;
      cont.event = TranscriptEntry::Event::kContinue;
      NextUserMessage(std::move(cont),
                      [this](std::int64_t step) { return ContinueMessage(step, max_steps_); });
      break;
    }
    case ReplyType::kDone:
      Finish(EndReason::kCompleted, parsed.message);
      break;
    case ReplyType::kUnknown:
      Finish(EndReason::kInvalidReply, parsed.error);
      break;
    default:
      break;
  }
  return {};
}

std::expected<void, Error> SkillSession::OnModelError(std::string_view message) {
  if (auto ok = Expect(SessionState::kIdle, "model error"); !ok) return ok;
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kModelError;
  e.step = step_;
  e.state = SessionState::kDone;
  e.text = std::string(message);
  transcript_.push_back(std::move(e));
  Finish(EndReason::kModelError, std::string(message));
  return {};
}

std::expected<void, Error> SkillSession::OnCommandOutput(std::string_view raw) {
  if (auto ok = Expect(SessionState::kWaitingCmd, "command output"); !ok) return ok;
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kCommandOutput;
  e.command = last_reply_->command;
  e.text = std::string(raw);
  e.cleaned = CleanOutputForAI(raw, e.command);
  const std::string cleaned = e.cleaned;
  NextUserMessage(std::move(e), [&](std::int64_t step) {
    return CommandOutputMessage(cleaned, step, max_steps_);
  });
  return {};
}

std::expected<void, Error> SkillSession::OnCommandSkipped() {
  if (auto ok = Expect(SessionState::kWaitingCmd, "command skipped"); !ok) return ok;
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kCommandSkipped;
  e.command = last_reply_->command;
  e.skipped = true;
  NextUserMessage(std::move(e),
                  [&](std::int64_t step) { return CommandSkippedMessage(step, max_steps_); });
  return {};
}

std::expected<void, Error> SkillSession::OnAnswer(std::optional<std::string_view> answer) {
  if (auto ok = Expect(SessionState::kWaitingUser, "answer"); !ok) return ok;
  if (!answer && last_reply_->required) {
    return std::unexpected(Error{"answer: a required question cannot be skipped"});
  }
  TranscriptEntry e;
  e.event = TranscriptEntry::Event::kAnswer;
  e.text = std::string(answer.value_or(""));
  e.skipped = !answer.has_value();
  const std::string text = e.text;
  NextUserMessage(std::move(e),
                  [&](std::int64_t step) { return UserResponseMessage(text, step, max_steps_); });
  return {};
}

std::expected<void, Error> RunSkillSession(SkillSession& session, SkillModel& model,
                                           CommandRunner& runner, UserConsole& user) {
  while (session.state() != SessionState::kDone) {
    std::expected<void, Error> moved;
    switch (session.state()) {
      case SessionState::kIdle: {
        auto reply = model.Complete(session.messages());
        moved = reply ? session.OnReply(*reply) : session.OnModelError(reply.error().message);
        break;
      }
      case SessionState::kWaitingCmd: {
        const std::string command = session.last_reply()->command;
        auto approved = user.ApproveCommand(command);
        if (!approved) return std::unexpected(approved.error());
        if (!*approved) {
          moved = session.OnCommandSkipped();
          break;
        }
        auto result = runner.Run(command);
        if (!result) return std::unexpected(result.error());
        moved = session.OnCommandOutput(result->output);
        break;
      }
      case SessionState::kWaitingUser: {
        const ParsedReply& ask = *session.last_reply();
        auto answer = user.Answer(ask.question, ask.required);
        if (!answer) return std::unexpected(answer.error());
        moved =
            *answer ? session.OnAnswer(std::string_view(**answer)) : session.OnAnswer(std::nullopt);
        break;
      }
      case SessionState::kDone:
        break;
    }
    if (!moved) return moved;
  }
  return {};
}

nlohmann::json ToJson(const SessionEnd& end) {
  return {{"reason", EndReasonName(end.reason)}, {"message", end.message}};
}

nlohmann::json ToJson(const std::vector<TranscriptEntry>& transcript) {
  using E = TranscriptEntry::Event;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : transcript) {
    nlohmann::json j{
        {"event", EventName(t.event)}, {"step", t.step}, {"state", StateName(t.state)}};
    switch (t.event) {
      case E::kStart:
      case E::kModelError:
        j["text"] = t.text;
        break;
      case E::kReply:
        j["text"] = t.text;
        j["reply"] = ToJson(*t.reply);
        break;
      case E::kCommandOutput:
        j["command"] = t.command;
        j["text"] = t.text;
        j["cleaned"] = t.cleaned;
        break;
      case E::kCommandSkipped:
        j["command"] = t.command;
        break;
      case E::kAnswer:
        j["text"] = t.text;
        j["skipped"] = t.skipped;
        break;
      case E::kContinue:
        break;
      case E::kEnd:
        j["end"] = ToJson(*t.end);
        break;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace llmconform::skill
