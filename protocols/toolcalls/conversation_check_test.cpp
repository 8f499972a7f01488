#include "protocols/toolcalls/conversation_check.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "base/json.h"

namespace llmconform::toolcalls {
namespace {

Json Call(const std::string& id, const std::string& name = "fs_read",
          const std::string& args = R"({"path":"@pkg/a"})") {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}};
}
Json Assistant(std::vector<Json> calls) {
  return {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}};
}
Json ToolMsg(const std::string& id, const std::string& content = R"({"ok":true})") {
  return {{"role", "tool"}, {"tool_call_id", id}, {"content", content}};
}
Json User(const std::string& text) { return {{"role", "user"}, {"content", text}}; }

std::vector<std::string> Rules(const Findings& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.rule);
  return out;
}

TEST(CheckConversation, AWellFormedExchangeHasNoFindings) {
  const Json msgs = {{{"role", "system"}, {"content", "s"}},
                     User("go"),
                     Assistant({Call("a"), Call("b")}),
                     ToolMsg("a"),
                     ToolMsg("b"),
                     {{"role", "assistant"}, {"content", "done"}}};
  EXPECT_TRUE(CheckConversation(msgs).empty());
}

TEST(CheckConversation, AnUnansweredCallIsFound) {
  const Json msgs = {User("go"), Assistant({Call("a"), Call("b")}), ToolMsg("a"), User("next")};
  const Findings f = CheckConversation(msgs);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "TC-3.2-3");
  EXPECT_EQ(f[0].message,
            "messages[1].tool_calls[1] (id \"b\") has no tool message before messages[3] (user)");
  EXPECT_EQ(CheckConversation(Json::array({Assistant({Call("a")})}))[0].message,
            "messages[0].tool_calls[0] (id \"a\") has no tool message before the end");
}

TEST(CheckConversation, OutOfOrderOrphanAndDuplicateAnswers) {
  EXPECT_EQ(
      CheckConversation(Json{Assistant({Call("a"), Call("b")}), ToolMsg("b"), ToolMsg("a")})[0]
          .message,
      "tool messages after messages[0] answer in the order [b, a], the calls were [a, b]");
  EXPECT_EQ(Rules(CheckConversation(Json{User("x"), ToolMsg("z")})),
            std::vector<std::string>{"TC-3.2-4"});
  EXPECT_EQ(Rules(CheckConversation(Json{Assistant({Call("a")}), ToolMsg("a"), ToolMsg("a")})),
            std::vector<std::string>{"TC-3.2-4"});
  EXPECT_EQ(Rules(CheckConversation(Json{Assistant({Call("a")}), ToolMsg("x")})),
            (std::vector<std::string>{"TC-3.2-4", "TC-3.2-3"}));
}

TEST(CheckConversation, ContentNamesArgumentsAndRoles) {
  EXPECT_EQ(Rules(CheckConversation(
                Json{Assistant({Call("a")}),
                     {{"role", "tool"}, {"tool_call_id", "a"}, {"content", {{"ok", true}}}}})),
            std::vector<std::string>{"TC-4.1-1"});
  EXPECT_EQ(Rules(CheckConversation(Json{Assistant({Call("a")}), ToolMsg("a", "plain text")})),
            std::vector<std::string>{"TC-4.1-2"});
  const Findings names = CheckConversation(Json{Assistant({Call("a", "fs.read")}), ToolMsg("a")});
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(
      names[0].message,
      "messages[0].tool_calls[0].function.name \"fs.read\" does not match ^[a-zA-Z0-9_-]{1,64}$");
  EXPECT_EQ(Rules(CheckConversation(Json{Assistant({Call("a", "fs_read", "[1]")}), ToolMsg("a")})),
            std::vector<std::string>{"TC-4.1-4"});
  EXPECT_EQ(Rules(CheckConversation(Json{{{"role", "developer"}, {"content", "x"}}})),
            std::vector<std::string>{"TC-3.1-1"});
  EXPECT_EQ(Rules(CheckConversation(Json{{{"role", "system"}, {"templateRef", "SYSTEM_BASE"}}})),
            std::vector<std::string>{"TC-4.1-5"});
}

// Any conversation built by answering every call in order passes; dropping
// one answer is always found.
RC_GTEST_PROP(CheckConversationProperties, CompleteAnswersPassAndAMissingOneIsFound, ()) {
  const auto turns = *rc::gen::inRange(1, 5);
  Json msgs = Json::array({User("start")});
  std::vector<std::size_t> tool_positions;
  for (int t = 0; t < turns; ++t) {
    const auto n = *rc::gen::inRange(1, 4);
    std::vector<Json> calls;
    for (int k = 0; k < n; ++k)
      calls.push_back(Call("c" + std::to_string(t) + "_" + std::to_string(k)));
    msgs.push_back(Assistant(calls));
    for (const auto& c : calls) {
      tool_positions.push_back(msgs.size());
      msgs.push_back(ToolMsg(c["id"]));
    }
  }
  RC_ASSERT(CheckConversation(msgs).empty());
  const std::size_t drop = tool_positions[*rc::gen::inRange<std::size_t>(0, tool_positions.size())];
  msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(drop));
  const Findings f = CheckConversation(msgs);
  RC_ASSERT(!f.empty());
  RC_ASSERT(f[0].rule == "TC-3.2-3");
}

}  // namespace
}  // namespace llmconform::toolcalls
