// SkillSession: the state machine of a skill run (seed 000 §7, §2, §4;
// docs/protocols.md "skill"), and RunSkillSession, which drives it through the
// model, the command runner and the user.
//
//   idle ──reply [CMD]──► waiting_cmd ──output / skipped──► idle
//   idle ──reply [ASK]──► waiting_user ──answer──────────► idle
//   idle ──reply [MESSAGE]──► idle (the continue message is queued at once)
//   idle ──reply [DONE], UNKNOWN reply, model error──► done
//   any user message past max_steps ──► done ("Maximum steps reached")
//
// In `idle` the history ends with a user message and a request is due. Every
// user message after the first counts the step up by one; the assistant
// message kept in the history is the parsed reply's `content`.
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "protocols/skill/chat_client.h"
#include "protocols/skill/command_runner.h"
#include "protocols/skill/response.h"
#include "protocols/skill/system_prompt.h"
#include "protocols/skill/user_console.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::skill {

enum class SessionState { kIdle, kWaitingCmd, kWaitingUser, kDone };
std::string_view StateName(SessionState state);  // "idle" | "waiting_cmd" | "waiting_user" | "done"

enum class EndReason {
  kCompleted,     // the model replied [DONE]
  kMaxSteps,      // a user message would have passed max_steps
  kInvalidReply,  // the reply parsed as UNKNOWN
  kModelError,    // the request failed or the answer held no reply
};
std::string_view EndReasonName(
    EndReason reason);  // "completed" | "max_steps" | "invalid_reply" | "model_error"

inline constexpr std::string_view kMaxStepsReached = "Maximum steps reached";

struct SessionEnd {
  EndReason reason = EndReason::kCompleted;
  std::string message;  // the [DONE] text, "Maximum steps reached", the parse or model error
  friend bool operator==(const SessionEnd&, const SessionEnd&) = default;
};

struct SessionSetup {
  std::string base_prompt = std::string(kSkillSystemPromptWithAsk);
  std::string server_context;  // KnowledgeSource::Read(), "" for none
  std::string skill_name;
  std::string skill_markdown;  // SKILL.md, front matter and all
  Parameters parameters;
  std::string custom_prompt;
  std::int64_t max_steps = kDefaultMaxSteps;
};

// What happened, event by event; the observable record of a run.
struct TranscriptEntry {
  enum class Event {
    kStart,           // text: the first user message
    kReply,           // reply: the parsed reply; text: the raw reply
    kModelError,      // text: the error
    kCommandOutput,   // command; text: the raw output; cleaned
    kCommandSkipped,  // command
    kAnswer,          // text: the answer ("" when skipped); skipped
    kContinue,        // after a [MESSAGE]
    kEnd,             // end
  };
  Event event = Event::kStart;
  std::int64_t step = 0;                     // the step counter after the event
  SessionState state = SessionState::kIdle;  // the state after the event
  std::string text;
  std::optional<ParsedReply> reply;
  std::string command;
  std::string cleaned;
  bool skipped = false;
  std::optional<SessionEnd> end;
};
std::string_view EventName(TranscriptEntry::Event event);  // "start", "reply", "model_error", …

class SkillSession {
 public:
  // Builds the system prompt and the first user message ([Step 1 of M]);
  // the session starts idle at step 1. Error: max_steps below 1.
  static std::expected<SkillSession, Error> Start(const SessionSetup& setup);

  SessionState state() const { return state_; }
  std::int64_t step() const { return step_; }
  std::int64_t max_steps() const { return max_steps_; }
  // The history; in `idle`, exactly what the next request sends.
  const std::vector<Message>& messages() const { return messages_; }
  // The latest parsed reply (the command or question pending in waiting_*).
  const std::optional<ParsedReply>& last_reply() const { return last_reply_; }
  const std::optional<SessionEnd>& end() const { return end_; }
  const std::vector<TranscriptEntry>& transcript() const { return transcript_; }

  // Each event is legal in one state; elsewhere it is an Error that leaves
  // the session unchanged ("reply: the session is waiting_cmd, expected idle").
  std::expected<void, Error> OnReply(std::string_view reply);         // idle
  std::expected<void, Error> OnModelError(std::string_view message);  // idle
  std::expected<void, Error> OnCommandOutput(std::string_view raw);   // waiting_cmd
  std::expected<void, Error> OnCommandSkipped();                      // waiting_cmd
  // nullopt: the user skipped the question; sent as an empty answer. An
  // Error for a required question.
  std::expected<void, Error> OnAnswer(std::optional<std::string_view> answer);  // waiting_user

 private:
  SkillSession() = default;
  std::expected<void, Error> Expect(SessionState wanted, std::string_view event) const;
  // Counts the step up and queues `make(step)` as the next user message, or
  // ends the session when the step would pass max_steps.
  template <typename MakeMessage>
  void NextUserMessage(TranscriptEntry entry, MakeMessage make);
  void Finish(EndReason reason, std::string message);

  SessionState state_ = SessionState::kIdle;
  std::int64_t step_ = 1;
  std::int64_t max_steps_ = kDefaultMaxSteps;
  std::vector<Message> messages_;
  std::optional<ParsedReply> last_reply_;
  std::optional<SessionEnd> end_;
  std::vector<TranscriptEntry> transcript_;
};

// Runs the session until done: in idle it asks the model (a model error ends
// the session, it is no Error here); in waiting_cmd it asks the user whether
// to run the command and runs it; in waiting_user it asks the user.
// Errors: the runner or the user console failed (for scripted ones: the
// script ran out); the session keeps the state it had.
std::expected<void, Error> RunSkillSession(SkillSession& session, SkillModel& model,
                                           CommandRunner& runner, UserConsole& user);

// The transcript as JSON: [{"event","step","state", and per event "text",
// "reply" (ToJson of ParsedReply), "command", "cleaned", "skipped", "end":{"reason","message"}}].
nlohmann::json ToJson(const std::vector<TranscriptEntry>& transcript);
nlohmann::json ToJson(const SessionEnd& end);

}  // namespace llmconform::skill
