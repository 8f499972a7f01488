// The assistant reply of the action protocol (seed 004, docs/protocols.md "action"):
// plain text for speech, or a JSON object that may carry one command for the
// client (`open_app`), which reaches the client as an `__MCP__` payload.
//
// ParseAssistantResponse is the lenient reading a server applies to whatever
// the model wrote; its findings name the strict rules (ACT-1 … ACT-8 of
// specs/action/rules.json) the reply broke. A command that is not supported or
// not complete is dropped, never repaired: dropping it is the safe side, since
// a kept command opens an application on the user's computer.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace llmconform::action {

// Keeps the key order of the reply, so `args` reaches the client as written.

// The command a client is asked to run.
struct Command {
  std::string session_id;  // never empty
  std::string command;     // one of the supported commands
  OJson args;              // an object with a non-empty string `app_name`
  // The compact JSON text of `args` with every number spelled as in the
  // reply (json_spelling.h), which `args` cannot hold beyond a double. Empty
  // for a command made in code (or args nested too deep to rewrite): `args`
  // is then what is sent.
  std::string args_json;
  // The text of args that is sent: args_json, or args.dump() when it is empty.
  std::string ArgsText() const { return args_json.empty() ? args.dump() : args_json; }
  // Equal when they would send the same payload.
  friend bool operator==(const Command& a, const Command& b) {
    return a.session_id == b.session_id && a.command == b.command && a.args == b.args &&
           a.ArgsText() == b.ArgsText();
  }
};

struct AssistantResponse {
  std::string text;                // for speech; may be empty, never absent
  std::optional<Command> command;  // set only when supported and complete
  Findings findings;               // every rule the reply broke, in the order found
  friend bool operator==(const AssistantResponse&, const AssistantResponse&) = default;
};

// The commands the seed defines: {"open_app"}.
const std::vector<std::string>& DefaultSupportedCommands();

// JSON nested deeper than this (objects and arrays) is not read as JSON: the
// reply is then plain text, with an ACT-1 finding.
inline constexpr int kMaxJsonDepth = 256;

// Reads one model reply. Never throws; any bytes are accepted, invalid UTF-8
// included (such a reply is plain text).
//
// 1. The reply is trimmed of ASCII whitespace. One code fence surrounding the
//    whole of it (``` + info string + newline … ```) is set aside.
// 2. If the rest, from its first `{` to its last `}`, parses as a JSON object,
//    the reply is JSON; otherwise it is plain text: `text` is the whole trimmed
//    reply (fence included), with no command.
// 3. JSON: `text` is the string value of "text" exactly as written ("" when
//    missing or not a string). "command" absent or null means no command.
//    Otherwise the command is kept only when it is a supported string, a
//    session id is known, "args" is an object and args.app_name a non-empty
//    string; the session id is `request_session_id` when given and non-empty
//    (overriding the reply's), else the reply's non-empty string "session_id".
//    A request session id that is not valid UTF-8 cannot be sent to the client
//    and drops the command.
// String values are never rewritten; `args` keeps its key order and values,
// and `args_json` its exact text (numbers spelled as written, ACT-14).
AssistantResponse ParseAssistantResponse(
    std::string_view reply, std::optional<std::string_view> request_session_id,
    const std::vector<std::string>& supported_commands = DefaultSupportedCommands());

}  // namespace llmconform::action
