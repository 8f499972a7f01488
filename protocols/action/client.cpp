#include "protocols/action/client.h"

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/action/mcp_payload.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"

namespace llmconform::action {

std::string SystemPrompt(std::optional<std::string_view> session_id,
                         const std::vector<std::string>& supported_commands) {
  std::string commands;
  for (const auto& c : supported_commands) commands += (commands.empty() ? "" : ", ") + c;
  std::string prompt =
      "Ты — голосовой ассистент. Отвечай в одном из двух форматов.\n"
      "1. Обычный ответ без действия: {\"text\": \"<ответ>\"} или просто текст.\n"
      "2. Ответ с действием: {\"session_id\": \"<ID сессии>\", \"command\": \"<команда>\", "
      "\"args\": {\"app_name\": \"<название приложения>\"}, \"text\": \"<текст для озвучивания, "
      "может быть пустым>\"}\n";
  prompt +=
      Format("Поддерживаемые команды: {}. args.app_name обязателен и не должен быть пустым.\n",
             commands.empty() ? std::string("нет") : commands);
  prompt += "text всегда строка (может быть пустой). JSON без Markdown и без текста вокруг.";
  if (session_id && !session_id->empty()) prompt += Format("\nID сессии: {}", *session_id);
  return prompt;
}

nlohmann::json BuildChatRequest(const AssistantRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  messages.push_back({{"role", "system"},
                      {"content", SystemPrompt(request.session_id, request.supported_commands)}});
  messages.push_back({{"role", "user"}, {"content", request.utterance}});
  return {{"model", request.model}, {"messages", std::move(messages)}};
}

std::expected<ClientOutcome, Error> AskAssistant(wire::ChatTransport& transport,
                                                 const AssistantRequest& request,
                                                 std::chrono::milliseconds timeout) {
  std::string body;
  try {
    body = BuildChatRequest(request).dump();
  } catch (const nlohmann::json::exception& e) {
    return std::unexpected(Error{Format("the request cannot be sent: {}", e.what())});
  }
  auto response = transport.PostJson("/chat/completions", body, timeout);
  if (!response) return std::unexpected(response.error());
  if (response->status != 200) {
    return std::unexpected(
        Error{Format("the LLM answered HTTP {}: {}", response->status, response->body)});
  }
  const auto json = ReadJsonOrDiscarded(response->body);
  if (json.is_discarded()) {
    return std::unexpected(Error{"the LLM's answer is not JSON"});
  }
  auto completion = wire::ResponseFromJson(json);
  if (!completion) {
    return std::unexpected(
        Error{Format("the LLM's answer is not a chat completion: {}", completion.error().message)});
  }
  if (completion->choices.empty()) {
    return std::unexpected(Error{"the LLM's answer has no choices"});
  }
  ClientOutcome out;
  // A provider's inline reasoning is not the reply (docs/protocols.md,
  // "Inline reasoning").
  wire::ChatMessage& message = completion->choices.front().message;
  wire::MoveInlineThink(message);
  out.reply = message.Text();
  const std::optional<std::string_view> session_id =
      request.session_id ? std::optional<std::string_view>(*request.session_id) : std::nullopt;
  out.response = ParseAssistantResponse(out.reply, session_id, request.supported_commands);
  if (out.response.command) {
    auto payload = BuildMcpPayload(*out.response.command);
    if (!payload) return std::unexpected(payload.error());
    out.mcp_payload = std::move(*payload);
  }
  return out;
}

}  // namespace llmconform::action
