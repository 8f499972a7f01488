#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/op_record.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

rc::Gen<std::string> NodeId() {
  return gen::oneOf(gen::element<std::string>("n1", "n2", "draft", "review", "end", "",
                                              "node with space", "节点"),
                    ShortText());
}

rc::Gen<Json> ComposeUserInput() {
  return gen::apply(
      [](std::string text, std::optional<Json> node) {
        Json in{{"text", std::move(text)}};
        if (node) in["forNodeId"] = *node;
        return in;
      },
      TextOf(gen::element<std::string>("USER_INPUT", "- forNodeId: n1", "\n- ", "RUN_DIRECTIVE"),
             2),
      Opt(gen::oneOf(gen::map(NodeId(), [](std::string s) { return Json(s); }),
                     gen::just(Json(nullptr)))));
}

rc::Gen<Json> ComposeRunDirective() {
  auto opt_text =
      Opt(gen::oneOf(gen::map(ShortText(), [](std::string s) { return Json(s); }),
                     gen::element<Json>(nullptr, "", "@state/workflow.md",
                                        "@pkg/workflow.graph.json", "@project/artifacts/")));
  return gen::apply(
      [](std::string intent, std::string workflow, std::string node, std::string agent,
         std::optional<Json> run_type, std::optional<Json> state, std::optional<Json> graph,
         std::optional<Json> artifacts, std::optional<Json> autopilot) {
        Json in{{"intent", std::move(intent)},
                {"workflow", std::move(workflow)},
                {"currentNodeId", std::move(node)},
                {"effectiveAgentId", std::move(agent)}};
        if (run_type) in["runType"] = *run_type;
        if (state) in["state"] = *state;
        if (graph) in["graph"] = *graph;
        if (artifacts) in["artifactsRoot"] = *artifacts;
        if (autopilot) in["autopilot"] = *autopilot;
        return in;
      },
      gen::element<std::string>("start", "continue", "resume"),
      gen::oneOf(gen::element<std::string>("story", "novel-writing", ""), ShortText()), NodeId(),
      gen::element<std::string>("a", "writer", "agent-7", ""), opt_text, opt_text, opt_text,
      opt_text, Opt(gen::element<Json>(true, false, nullptr)));
}

rc::Gen<Json> ComposeNodeBrief() {
  auto output = gen::oneOf(gen::element<Json>("a.md", "@project/artifacts/out.md", ""),
                           gen::apply(
                               [](std::string from, std::string to) {
                                 return Json{{"from", from}, {"to", to}};
                               },
                               gen::element<std::string>("draft", "b", ""),
                               gen::element<std::string>("@project/b.md", "@state/x", "")));
  auto next =
      gen::oneOf(gen::map(NodeId(), [](std::string s) { return Json(s); }),
                 gen::apply(
                     [](std::string id, std::optional<Json> label) {
                       Json o{{"nodeId", id}};
                       if (label) o["label"] = *label;
                       return o;
                     },
                     NodeId(), Opt(gen::element<Json>("done", "retry", "", nullptr, "带标签"))));
  return gen::apply(
      [](std::string node, std::string step, std::optional<std::vector<Json>> outputs,
         std::optional<std::vector<Json>> nexts) {
        Json in{{"currentNodeId", std::move(node)}, {"stepFile", std::move(step)}};
        if (outputs) in["outputsMap"] = *outputs;
        if (nexts) in["allowedNext"] = *nexts;
        return in;
      },
      NodeId(), gen::element<std::string>("@pkg/steps/n1.md", "@pkg/steps/草稿.md", ""),
      Opt(gen::resize(4, gen::container<std::vector<Json>>(output))),
      Opt(gen::resize(4, gen::container<std::vector<Json>>(next))));
}

rc::Gen<Json> FunctionTools() {
  return gen::map(
      // Mostly the five tools under either name; rarely one the reference
      // refuses (unknown, wrong case, empty), so most inputs reach TC-4.1-3.
      Opt(gen::resize(6, gen::container<std::vector<std::string>>(
                             gen::weightedElement<std::string>({{10, "fs.read"},
                                                                {10, "fs.list"},
                                                                {10, "fs.search"},
                                                                {10, "fs.write"},
                                                                {10, "fs.apply_patch"},
                                                                {10, "fs_read"},
                                                                {10, "fs_write"},
                                                                {1, "fs.delete"},
                                                                {1, "FS.READ"},
                                                                {1, ""}})))),
      [](std::optional<std::vector<std::string>> tools) {
        Json in = Json::object();
        if (tools) in["tools"] = *tools;
        return in;
      });
}

// Either mode or none, a persona of mixed text or none, the tool lists of
// FunctionTools, and limits now and then.
rc::Gen<Json> ComposeSystemMessages() {
  return gen::apply(
      [](std::optional<std::string> mode, std::optional<std::string> persona, Json tools,
         std::optional<int> max_read) {
        Json in = std::move(tools);
        if (mode) in["mode"] = *mode;
        if (persona) in["persona"] = *persona;
        if (max_read) in["limits"] = {{"maxReadBytes", *max_read}};
        return in;
      },
      Opt(gen::element<std::string>("run", "chat")),
      Opt(TextOf(gen::element<std::string>("You are Bob.\n", "RUN_DIRECTIVE", ""), 2)),
      FunctionTools(), Opt(gen::inRange(0, 100'000)));
}

// The ways seed 001 §3.2 and §4.1 forbid that a turn of tool calls is broken.
enum class TurnFlaw {
  kNone,
  kDeveloperMessage,  // a "developer" message before the turn
  kTemplateRef,       // a user message holding a templateRef
  kRepeatedCallId,
  kDottedName,       // "fs.read"
  kInvalidName,      // "fs read!"
  kCutOffArguments,  // arguments that are cut-off JSON
  kArgumentsNotObject,
  kResultObject,  // tool content an object, not text
  kResultPlainText,
  kResultWithoutOk,  // JSON without "ok"
  kResultForNoCall,  // a tool message answering no call
  kResultsSwapped,   // or, with one call, missing
  kUserBetween,      // a user message between the calls and their results
  kNoToolCallId,
};

// A conversation with tool calls and their back-filled results, each turn
// right or broken in one of the ways seed 001 §3.2 and §4.1 forbid.
rc::Gen<Json> CheckConversation() {
  // Per turn: how many calls, and a flaw.
  auto turn =
      gen::pair(gen::element(0, 1, 1, 2, 3),
                gen::weightedOneOf<TurnFlaw>(
                    {{6, gen::just(TurnFlaw::kNone)},
                     {1, gen::element(TurnFlaw::kDeveloperMessage, TurnFlaw::kTemplateRef,
                                      TurnFlaw::kRepeatedCallId, TurnFlaw::kDottedName,
                                      TurnFlaw::kInvalidName, TurnFlaw::kCutOffArguments,
                                      TurnFlaw::kArgumentsNotObject, TurnFlaw::kResultObject,
                                      TurnFlaw::kResultPlainText, TurnFlaw::kResultWithoutOk,
                                      TurnFlaw::kResultForNoCall, TurnFlaw::kResultsSwapped,
                                      TurnFlaw::kUserBetween, TurnFlaw::kNoToolCallId)}}));
  return gen::apply(
      [](std::vector<std::pair<int, TurnFlaw>> turns, std::string text, bool system) {
        Json msgs = Json::array();
        if (system) msgs.push_back({{"role", "system"}, {"content", "You are an agent."}});
        msgs.push_back({{"role", "user"}, {"content", text}});
        int id = 0;
        for (const auto& [calls, flaw] : turns) {
          if (flaw == TurnFlaw::kDeveloperMessage)
            msgs.push_back({{"role", "developer"}, {"content", "x"}});
          if (flaw == TurnFlaw::kTemplateRef)
            msgs.push_back({{"role", "user"}, {"templateRef", "RUN_DIRECTIVE"}});
          Json tcs = Json::array();
          std::vector<std::string> ids;
          for (int k = 0; k < calls; ++k) {
            std::string cid = "call_" + std::to_string(id++);
            if (flaw == TurnFlaw::kRepeatedCallId && k == 1) cid = ids[0];
            ids.push_back(cid);
            std::string name = flaw == TurnFlaw::kDottedName    ? "fs.read"
                               : flaw == TurnFlaw::kInvalidName ? "fs read!"
                                                                : "fs_read";
            std::string args = flaw == TurnFlaw::kCutOffArguments ? "{\"path\": "
                               : flaw == TurnFlaw::kArgumentsNotObject
                                   ? "[1]"
                                   : R"({"path":"@project/a.md"})";
            tcs.push_back({{"id", cid},
                           {"type", "function"},
                           {"function", {{"name", name}, {"arguments", args}}}});
          }
          Json assistant{{"role", "assistant"}, {"content", calls ? Json(nullptr) : Json(text)}};
          if (calls) assistant["tool_calls"] = tcs;
          msgs.push_back(assistant);
          std::vector<Json> results;
          for (const auto& cid : ids) {
            Json content = std::string(R"({"ok":true,"path":"@project/a.md"})");
            if (flaw == TurnFlaw::kResultObject) content = Json{{"ok", true}};
            if (flaw == TurnFlaw::kResultPlainText) content = "plain text";
            if (flaw == TurnFlaw::kResultWithoutOk) content = R"({"path":"x"})";
            Json result{{"role", "tool"},
                        {"tool_call_id", flaw == TurnFlaw::kResultForNoCall ? "call_x" : cid},
                        {"content", content}};
            if (flaw == TurnFlaw::kNoToolCallId) result.erase("tool_call_id");
            results.push_back(std::move(result));
          }
          if (flaw == TurnFlaw::kResultsSwapped && results.size() > 1)
            std::swap(results[0], results[1]);
          if (flaw == TurnFlaw::kResultsSwapped && results.size() == 1) results.clear();
          if (flaw == TurnFlaw::kUserBetween && !results.empty())
            msgs.push_back({{"role", "user"}, {"content", "wait"}});
          for (auto& r : results) msgs.push_back(std::move(r));
        }
        if (turns.empty())
          msgs.push_back({{"role", "tool"}, {"tool_call_id", "x"}, {"content", "{}"}});
        return Json{{"messages", std::move(msgs)}};
      },
      gen::resize(5, gen::container<std::vector<std::pair<int, TurnFlaw>>>(turn)), ShortText(),
      gen::element(true, true, false));
}

}  // namespace

std::vector<OpRecord> ToolcallsOps() {
  // A prompt shell's answer is its text: its one rule is evidenced when there is one.
  auto text_rule = [](std::string rule) {
    return [rule](const Json&, const Json& output, std::set<std::string>& rules) {
      if (output.contains("text")) rules.insert(rule);
    };
  };
  return {
      {"toolcalls.composeUserInput", ComposeUserInput(), {"TC-5.3-1"}, text_rule("TC-5.3-1")},
      {"toolcalls.composeRunDirective", ComposeRunDirective(), {"TC-5.1-1"}, text_rule("TC-5.1-1")},
      {"toolcalls.composeNodeBrief", ComposeNodeBrief(), {"TC-5.2-1"}, text_rule("TC-5.2-1")},
      {"toolcalls.functionTools",
       FunctionTools(),
       {"TC-4.1-3"},
       [](const Json&, const Json& output, std::set<std::string>& rules) {
         if (output.contains("tools")) rules.insert("TC-4.1-3");
       }},
      {"toolcalls.composeSystemMessages",
       ComposeSystemMessages(),
       {"TC-3.1-2"},
       [](const Json& input, const Json& output, std::set<std::string>& rules) {
         if (output.contains("messages") && input.value("mode", Json("run")) == "chat")
           rules.insert("TC-3.1-2");
       }},
      {"toolcalls.checkConversation",
       CheckConversation(),
       {"TC-3.1-1", "TC-3.2-1", "TC-3.2-2", "TC-3.2-3", "TC-3.2-4", "TC-4.1-1", "TC-4.1-2",
        "TC-4.1-3", "TC-4.1-4", "TC-4.1-5"},
       {}},
  };
}

}  // namespace llmconform::harness::difftest
