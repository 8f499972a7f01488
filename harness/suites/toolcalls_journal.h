// The toolcalls suite's reading of mockllm's journal: the chat completion
// requests that reached the wire, the tool calls they carry with the answers
// sent back for them, and the user messages of a given shell.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/format.h"
#include "harness/requests_sent.h"
#include "harness/suite.h"

namespace llmconform::harness::toolcalls_suite {

// The journal's requests whose body has a messages array, in order
// (harness/requests_sent.h).
std::vector<SentRequest> Requests(const Observation& obs);

// One tool call seen on the wire with its answer (the tool message that
// followed it in a later request).
struct AnsweredCall {
  std::string id;
  std::string name;  // as the model named it
  Json args;         // parsed arguments, null when they did not parse
  Json result;       // the parsed tool message content, null when none
  std::string where;
};

// Every tool call of an assistant message that a later tool message answers,
// once each, in the order they were first sent.
std::vector<AnsweredCall> AnsweredCalls(const std::vector<SentRequest>& requests);

// The canonical tool name of a call ("fs.read" for "fs_read"), or its name as given.
std::string ToolOf(const AnsweredCall& c);

// The user messages starting with `prefix`, as (where, text), in order.
std::vector<std::pair<std::string, std::string>> UserTexts(const std::vector<SentRequest>& requests,
                                                           std::string_view prefix);

}  // namespace llmconform::harness::toolcalls_suite
