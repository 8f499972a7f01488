#include "protocols/action/client.h"

#include <gtest/gtest.h>

#include "base/json.h"

namespace llmconform::action {
namespace {

// Answers every POST with a fixed response and remembers what it was sent.
class FakeTransport final : public wire::ChatTransport {
 public:
  explicit FakeTransport(wire::HttpResponse response) : response_(std::move(response)) {}
  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds,
      const std::function<bool(std::string_view)>&) override {
    path_ = std::string(path);
    body_ = json_body;
    return response_;
  }
  std::string path_;
  std::string body_;

 private:
  wire::HttpResponse response_;
};

wire::HttpResponse Completion(const std::string& content) {
  Json body = {{"id", "chatcmpl-1"},
               {"object", "chat.completion"},
               {"created", 1},
               {"model", "gpt-4o-mini"},
               {"choices",
                {{{"index", 0},
                  {"message", {{"role", "assistant"}, {"content", content}}},
                  {"finish_reason", "stop"}}}}};
  return {200, {{"content-type", "application/json"}}, body.dump()};
}

constexpr auto kTimeout = std::chrono::seconds(5);

TEST(SystemPrompt, StatesTheFormatsAndTheSessionId) {
  EXPECT_EQ(SystemPrompt("session_1", DefaultSupportedCommands()),
            "Ты — голосовой ассистент. Отвечай в одном из двух форматов.\n"
            "1. Обычный ответ без действия: {\"text\": \"<ответ>\"} или просто текст.\n"
            "2. Ответ с действием: {\"session_id\": \"<ID сессии>\", \"command\": \"<команда>\", "
            "\"args\": {\"app_name\": \"<название приложения>\"}, \"text\": \"<текст для "
            "озвучивания, может быть пустым>\"}\n"
            "Поддерживаемые команды: open_app. args.app_name обязателен и не должен быть пустым.\n"
            "text всегда строка (может быть пустой). JSON без Markdown и без текста вокруг.\n"
            "ID сессии: session_1");
  const std::string without = SystemPrompt(std::nullopt, {"open_app", "focus_app"});
  EXPECT_EQ(without.find("ID сессии:"), std::string::npos);
  EXPECT_NE(without.find("Поддерживаемые команды: open_app, focus_app."), std::string::npos);
  EXPECT_EQ(SystemPrompt("", DefaultSupportedCommands()),
            SystemPrompt(std::nullopt, DefaultSupportedCommands()));
}

TEST(AskAssistant, SendsSystemPromptAndUtterance) {
  FakeTransport transport(Completion("Привет!"));
  AssistantRequest request;
  request.utterance = "Открой Safari";
  request.session_id = "s1";
  auto out = AskAssistant(transport, request, kTimeout);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(transport.path_, "/chat/completions");
  EXPECT_EQ(
      Json::parse(transport.body_),
      (Json{{"model", "gpt-4o-mini"},
            {"messages",
             {{{"role", "system"}, {"content", SystemPrompt("s1", DefaultSupportedCommands())}},
              {{"role", "user"}, {"content", "Открой Safari"}}}}}));
  EXPECT_EQ(out->reply, "Привет!");
  EXPECT_EQ(out->response.text, "Привет!");
  EXPECT_EQ(out->mcp_payload, std::nullopt);
}

TEST(AskAssistant, YieldsTheTextAndThePayload) {
  FakeTransport transport(Completion(
      R"({"session_id":"x","command":"open_app","args":{"app_name":"Safari"},"text":"Открываю Safari."})"));
  AssistantRequest request;
  request.utterance = "Открой Safari";
  request.session_id = "s1";
  auto out = AskAssistant(transport, request, kTimeout);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->response.text, "Открываю Safari.");
  EXPECT_EQ(
      out->mcp_payload,
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"s1","command":"open_app","args":{"app_name":"Safari"}}})");
}

TEST(AskAssistant, ReportsWhatWentWrong) {
  AssistantRequest request;
  request.utterance = "u";
  FakeTransport http_error({400, {}, R"({"error":{"message":"mismatch"}})"});
  EXPECT_EQ(AskAssistant(http_error, request, kTimeout).error().message,
            R"(the LLM answered HTTP 400: {"error":{"message":"mismatch"}})");
  FakeTransport not_json({200, {}, "hello"});
  EXPECT_EQ(AskAssistant(not_json, request, kTimeout).error().message,
            "the LLM's answer is not JSON");
  FakeTransport no_choices({200, {}, R"({"id":"x","model":"m","choices":[]})"});
  EXPECT_EQ(AskAssistant(no_choices, request, kTimeout).error().message,
            "the LLM's answer has no choices");
  FakeTransport bad_choices({200, {}, R"({"id":"x","model":"m","choices":3})"});
  EXPECT_FALSE(AskAssistant(bad_choices, request, kTimeout));
}

}  // namespace
}  // namespace llmconform::action
