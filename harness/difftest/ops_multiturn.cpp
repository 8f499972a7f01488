#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/op_record.h"
#include "protocols/multiturn/multiturn.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

rc::Gen<Json> EstimateTokens() {
  return gen::map(Text(), [](std::string t) { return Json{{"text", std::move(t)}}; });
}

rc::Gen<Json> BuildMessages() {
  auto message = gen::apply(
      [](std::string role, std::string content) {
        return Json{{"role", std::move(role)}, {"content", std::move(content)}};
      },
      // History is user and assistant turns (the reference refuses other roles);
      // a rare other role checks that refusal without starving the reference.
      gen::weightedElement<std::string>(
          {{50, "user"}, {50, "assistant"}, {1, "system"}, {1, "tool"}}),
      ShortText());
  // The budget sits at the edges that decide trimming: the total of system +
  // current, then each cut between history messages (newest first), ± a
  // little. It is computed from the other parts in a map (not a mapcat), so
  // each part shrinks on its own and the edge stays the same edge.
  return gen::apply(
      [](std::string system, std::vector<Json> history, std::string current, std::size_t edge,
         int offset) {
        std::int64_t budget =
            multiturn::EstimateMessageTokens(system) + multiturn::EstimateMessageTokens(current);
        for (std::size_t i = 0; i < std::min(edge, history.size()); ++i)
          budget += multiturn::EstimateMessageTokens(
              history[history.size() - 1 - i]["content"].get<std::string>());
        return Json{{"systemPrompt", std::move(system)},
                    {"history", std::move(history)},
                    {"currentUserMessage", std::move(current)},
                    {"maxTokenBudget", std::max<std::int64_t>(0, budget + offset)}};
      },
      ShortText(), gen::resize(10, gen::container<std::vector<Json>>(message)), ShortText(),
      gen::inRange<std::size_t>(0, 11), gen::element(0, 0, -1, 1, -2, 2, 5));
}

}  // namespace

std::vector<OpRecord> MultiturnOps() {
  return {
      {"multiturn.estimateMessageTokens",
       EstimateTokens(),
       {"REQ-AIS-MULTITURN-6"},
       [](const Json&, const Json&, std::set<std::string>& rules) {
         rules.insert("REQ-AIS-MULTITURN-6");
       }},
      {"multiturn.buildLLMMessages",
       BuildMessages(),
       // -6 (the estimate) is estimateMessageTokens', -8 judges traffic.
       {"REQ-AIS-MULTITURN-1", "REQ-AIS-MULTITURN-2", "REQ-AIS-MULTITURN-3", "REQ-AIS-MULTITURN-4",
        "REQ-AIS-MULTITURN-5", "REQ-AIS-MULTITURN-7"},
       [](const Json& input, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("messages") || !input.contains("history")) return;
         const std::size_t kept =
             output["messages"].size() >= 2 ? output["messages"].size() - 2 : 0;
         const std::size_t all = input["history"].size();
         rules.insert({"REQ-AIS-MULTITURN-1", "REQ-AIS-MULTITURN-2", "REQ-AIS-MULTITURN-3",
                       "REQ-AIS-MULTITURN-7"});
         if (kept < all) rules.insert(kept == 0 ? "REQ-AIS-MULTITURN-5" : "REQ-AIS-MULTITURN-4");
       }},
  };
}

}  // namespace llmconform::harness::difftest
