// The skill suite's reading of mockllm's journal: the conversation as it
// reached the wire, turn by turn, with the reply each request received (from
// the scenario's expect.replies, since the journal holds requests only) and
// what the protocol says the next request must carry.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/format.h"
#include "harness/requests_sent.h"
#include "harness/suite.h"
#include "harness/suites/skill_script.h"
#include "protocols/skill/response.h"
#include "protocols/skill/user_messages.h"

namespace llmconform::harness::skill_suite {

namespace sk = skill;

struct ExpectedUser {
  sk::UserMessageKind kind = sk::UserMessageKind::kOther;
  std::string payload;  // cleaned output or answer
  std::string raw;      // the raw output of a command
  std::string command;
};

struct Turn {
  const SentRequest* sent = nullptr;  // the request, never null (borrowed: see Analyse)
  std::string method;
  std::string path;
  const Json* body = nullptr;  // the request body when it is an object
  std::vector<sk::Message> messages;
  std::string messages_problem;  // "" when `messages` is a well-formed list
  int status = 0;
  std::optional<std::size_t> exchange;  // the reply's index in the trace and expect.replies
  Json fault;                           // null when none applied
  std::optional<std::string> reply;     // the model's reply the client received
  std::optional<sk::ParsedReply> parsed;
  std::optional<ExpectedUser> next;  // what the next request's last message must be
  bool limit_reached = false;        // the next user message would pass max_steps

  std::string Where(std::string_view rest = "") const { return sent->Where(rest); }
  const sk::Message* LastUser() const {
    return !messages.empty() && messages.back().role == "user" ? &messages.back() : nullptr;
  }
};

struct Conversation {
  std::vector<Turn> turns;
};

// The conversation of the requests sent, one turn each, with each turn's
// reply from scenario.expect.replies and the next user message `script`
// makes due. The turns borrow from `requests`, which must outlive them.
// Errors: expect.replies is not an array; the script has no command output or
// answer for a reply that asks for one.
std::expected<Conversation, Error> Analyse(const Script& script, const Scenario& scenario,
                                           const std::vector<SentRequest>& requests);

}  // namespace llmconform::harness::skill_suite
