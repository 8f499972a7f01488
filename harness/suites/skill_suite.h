// The skill protocol suite (seed 000): drives the reference SkillSession
// against mockllm over HTTP, with scripted command outputs and user answers,
// and judges the conversation that reached the wire (mockllm's journal), so
// the checks hold for any client; where the reference's own outputs are
// there, parse results, states, steps and the end are compared with `expect`.
//
// Scenario input:
//   {"skillName","skillMarkdown","basePrompt"?,"serverContext"?,
//    "parameters"?:[[k,v]…],"customPrompt"?,"maxSteps"?,
//    "model"? (default "CHEAP"), "timeoutMs"? (default 30000),
//    "knowledge"?: {"project"?: text, "home"?: text}   files written under the
//        scenario's work folder and read by LocalKnowledgeSource (instead of
//        "serverContext"),
//    "commands": [{"command"?, "output", "exitCode"?} | {"command"?, "skip": true}],
//        one per [CMD] reply in order: its raw terminal output, or the user skips it
//    "answers": [{"text"} | {"skip": true}]   one per [ASK] reply in order}
// Scenario expect:
//   {"replies": [text | null]   the model's reply in each trace exchange (by
//        exchange index), null where a fault replaces it: checks read them
//        because the journal holds requests only,
//    "parsed"?: [§5 result]   the parse of each reply received, in order,
//    "states"?: [state]       the session state after each transcript event,
//    "steps"?: [N]            the step of each request,
//    "end"?: {"reason", "message"? | "messageContains"?},
//    "replyFindings"?: [{"reply": exchange, "rule": id}]  strict-rule findings
//        the scenario's replies are meant to have (others fail the rule)}
// Outputs: {"transcript":[…],"states":[…],"steps":[…],"parsed":[…],"end":{…}}.
#pragma once

#include <memory>

#include "harness/suite.h"

namespace llmconform::harness {
std::unique_ptr<ProtocolSuite> MakeSkillSuite();
}
