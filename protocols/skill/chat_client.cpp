#include "protocols/skill/chat_client.h"

#include <nlohmann/json.hpp>

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"

namespace llmconform::skill {
namespace {

std::string BodyExcerpt(const std::string& body) {
  constexpr std::size_t kMax = 200;
  return body.size() <= kMax ? body : body.substr(0, kMax) + "…";
}

}  // namespace

std::string ChatRequestBody(const std::vector<Message>& messages, const ChatOptions& options) {
  nlohmann::ordered_json body;
  body["model"] = options.model;
  auto& list = body["messages"] = nlohmann::ordered_json::array();
  for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  body["temperature"] = options.temperature;
  body["max_tokens"] = options.max_tokens;
  return body.dump();
}

std::expected<std::string, Error> ReplyFromAnswer(const wire::HttpResponse& answer) {
  nlohmann::json doc;
  std::string parse_error;
  if (auto parsed = ReadJson("LLM answer", answer.body)) {
    doc = std::move(*parsed);
  } else {
    parse_error = AtLineColumn(parsed.error());
  }
  if (answer.status < 200 || answer.status >= 300) {
    auto error = parse_error.empty() ? wire::ErrorBodyFromJson(doc) : std::nullopt;
    return std::unexpected(Error{
        Format("LLM answered HTTP {}: {}", answer.status,
               error && !error->message.empty() ? error->message : BodyExcerpt(answer.body))});
  }
  if (!parse_error.empty()) {
    return std::unexpected(Error{Format("LLM answer is not JSON: {}", parse_error)});
  }
  if (doc.is_object()) {
    auto choices = doc.find("choices");
    if (choices != doc.end() && choices->is_array() && !choices->empty()) {
      const auto& first = (*choices)[0];
      if (first.is_object()) {
        auto message = first.find("message");
        if (message != first.end() && message->is_object()) {
          auto content = message->find("content");
          if (content != message->end()) {
            // A provider's inline reasoning is not the reply (docs/protocols.md,
            // "Inline reasoning"), nor are a content array's thinking blocks
            // (Mistral); reasoning alone is an empty reply.
            const std::string text = wire::ContentText(*content);
            const auto split = wire::SplitInlineThink(text);
            const std::string_view reply = split ? split->answer : std::string_view(text);
            if (!reply.empty()) return std::string(reply);
          }
        }
      }
    }
  }
  if (auto error = wire::ErrorBodyFromJson(doc)) {
    return std::unexpected(Error{Format("LLM answer holds an error: {}", error->message)});
  }
  return std::unexpected(Error{"LLM answer has no choices[0].message.content"});
}

SkillChatClient::SkillChatClient(wire::ChatTransport& transport, ChatOptions options)
    : transport_(transport), options_(std::move(options)) {}

std::expected<std::string, Error> SkillChatClient::Complete(const std::vector<Message>& messages) {
  auto answer = transport_.PostJson("/chat/completions", ChatRequestBody(messages, options_),
                                    options_.timeout);
  if (!answer) return std::unexpected(answer.error());
  return ReplyFromAnswer(*answer);
}

}  // namespace llmconform::skill
