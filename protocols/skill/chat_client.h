// callSkillAI (seed 000 §1): one Chat Completions request per step.
#pragma once

#include <chrono>
#include <expected>
#include <string>
#include <vector>

#include "base/error.h"
#include "protocols/wire/transport.h"

namespace llmconform::skill {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
  friend bool operator==(const Message&, const Message&) = default;
};

// The model behind a skill session: the whole history in, the reply's text out.
class SkillModel {
 public:
  virtual ~SkillModel() = default;
  // Errors: the request failed, or the answer held no reply (see SkillChatClient).
  virtual std::expected<std::string, Error> Complete(const std::vector<Message>& messages) = 0;
};

struct ChatOptions {
  std::string model = "CHEAP";
  double temperature = 0.3;
  int max_tokens = 512;
  std::chrono::milliseconds timeout{30000};
};

// The request body, keys in the seed's order:
// {"model","messages":[{"role","content"}…],"temperature","max_tokens"}.
std::string ChatRequestBody(const std::vector<Message>& messages, const ChatOptions& options);

// Reads the reply out of a Chat Completions answer: `choices[0].message.content`
// when it is a non-empty string. Errors (the texts are exact):
//   "LLM answered HTTP <status>: <error.message>" — a status other than 2xx
//     (the error body's message, or the start of the body when it has none);
//   "LLM answer is not JSON: <parser message>";
//   "LLM answer holds an error: <error.message>" — an error body under 2xx;
//   "LLM answer has no choices[0].message.content".
std::expected<std::string, Error> ReplyFromAnswer(const wire::HttpResponse& answer);

// A SkillModel over a ChatTransport: POST /chat/completions with
// ChatRequestBody, bounded by options.timeout. Transport errors (unreachable,
// timed out) pass through with their message. Not thread-safe; the transport
// must outlive the client.
class SkillChatClient : public SkillModel {
 public:
  SkillChatClient(wire::ChatTransport& transport, ChatOptions options);
  std::expected<std::string, Error> Complete(const std::vector<Message>& messages) override;

 private:
  wire::ChatTransport& transport_;
  ChatOptions options_;
};

}  // namespace llmconform::skill
