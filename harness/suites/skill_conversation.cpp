#include "harness/suites/skill_conversation.h"

#include <set>

#include "base/json_fields.h"
#include "protocols/skill/clean_output.h"

namespace llmconform::harness::skill_suite {
namespace {

std::vector<sk::Message> ReadMessages(const Json& body, std::string& problem) {
  std::vector<sk::Message> out;
  auto it = body.find("messages");
  if (it == body.end() || !it->is_array()) {
    problem = "body has no messages array";
    return out;
  }
  static const std::set<std::string> kRoles = {"system", "user", "assistant"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& m = (*it)[i];
    auto role = RequireString(m, "role");
    auto content = RequireString(m, "content");
    if (!role || !content) {
      if (problem.empty())
        problem = (!role ? role.error() : content.error()).Under(Format("/messages/{}", i)).message;
      out.push_back({role ? *role : "", content ? *content : ""});
      continue;
    }
    if (!kRoles.contains(*role) && problem.empty()) {
      problem =
          Format("/messages/{}/role: expected system, user or assistant, got \"{}\"", i, *role);
    }
    out.push_back({std::move(*role), std::move(*content)});
  }
  return out;
}

}  // namespace

std::expected<Conversation, Error> Analyse(const Script& script, const Scenario& scenario,
                                           const std::vector<SentRequest>& requests) {
  Conversation conv;
  const Json replies = scenario.expect.value("replies", Json::array());
  if (!replies.is_array()) return std::unexpected(Error{"/expect/replies: expected array"});
  std::size_t next_command = 0, next_answer = 0;
  for (const SentRequest& r : requests) {
    const mockllm::JournalEntry& e = r.entry();
    Turn t;
    t.sent = &r;
    t.method = e.method;
    t.path = e.path;
    if (r.body().is_object()) {
      t.body = &r.body();
      t.messages = ReadMessages(*t.body, t.messages_problem);
    } else {
      t.messages_problem = "the request body is not a JSON object";
    }
    t.status = e.status;
    t.exchange = r.exchange();
    if (e.fault) t.fault = *e.fault;
    if (t.status >= 200 && t.status < 300 && t.exchange && *t.exchange < replies.size() &&
        replies[*t.exchange].is_string()) {
      t.reply = replies[*t.exchange].get<std::string>();
      t.parsed = sk::ParseSkillResponse(*t.reply);
    }
    // What the protocol sends next, counting steps as a conformant client does.
    const std::int64_t step = static_cast<std::int64_t>(conv.turns.size()) + 1;
    t.limit_reached = step + 1 > script.setup.max_steps;
    if (t.parsed) {
      ExpectedUser next;
      switch (t.parsed->type) {
        case sk::ReplyType::kCmd: {
          if (next_command >= script.commands.size()) {
            return std::unexpected(Error{
                Format("/input/commands: no entry for the [CMD] reply of exchange {} (\"{}\")",
                       *t.exchange, t.parsed->command)});
          }
          const ScriptedCommand& c = script.commands[next_command++];
          next.command = t.parsed->command;
          if (c.skip) {
            next.kind = sk::UserMessageKind::kCommandSkipped;
          } else {
            next.kind = sk::UserMessageKind::kCommandOutput;
            next.raw = c.output;
            next.payload = sk::CleanOutputForAI(c.output, t.parsed->command);
          }
          t.next = std::move(next);
          break;
        }
        case sk::ReplyType::kAsk: {
          if (next_answer >= script.answers.size()) {
            return std::unexpected(Error{
                Format("/input/answers: no entry for the question of exchange {}", *t.exchange)});
          }
          const ScriptedAnswer& a = script.answers[next_answer++];
          next.kind = sk::UserMessageKind::kUserResponse;
          next.payload = a.skip ? "" : a.text;
          t.next = std::move(next);
          break;
        }
        case sk::ReplyType::kMessage:
          next.kind = sk::UserMessageKind::kContinue;
          t.next = std::move(next);
          break;
        case sk::ReplyType::kDone:
        case sk::ReplyType::kUnknown:
          break;
      }
      if (t.limit_reached) t.next.reset();
    }
    conv.turns.push_back(std::move(t));
  }
  return conv;
}

}  // namespace llmconform::harness::skill_suite
