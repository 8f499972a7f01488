// OpenAI Chat Completions types and their JSON mapping.
//
// Every type keeps the fields it does not model in `extra` and writes them
// back unchanged, so a message from any provider survives a round trip
// (DeepSeek's `reasoning_content` is modelled; Gemini's `extra_content` on a
// tool call, Azure's `content_filter_results` on a choice are kept in extra).
//
// FromJson functions are lenient about what they do not need and exact about
// what they do: a wrong type for a modelled field is an Error naming its JSON
// pointer ("/messages/2/tool_calls/0/function/name: expected string, got
// number"). ToJson writes only the fields that were present.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace llmconform::wire {

struct FunctionCall {
  std::string name;
  std::string arguments;  // JSON text, as the model wrote it
  Json extra = Json::object();
  friend bool operator==(const FunctionCall&, const FunctionCall&) = default;
};

struct ToolCall {
  std::optional<int> index;  // present in stream deltas
  std::string id;
  std::string type = "function";
  FunctionCall function;
  Json extra = Json::object();
  friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

// The text a `content` value carries: a string itself, the joined `text` of
// an array's parts (text parts and Mistral's text blocks; thinking blocks
// and other parts are not text), "" for anything else.
std::string ContentText(const Json& content);

struct ChatMessage {
  std::string role;  // system | developer | user | assistant | tool
  // Absent, null, a string, or an array of content parts.
  std::optional<Json> content;
  std::optional<std::string> reasoning_content;  // DeepSeek (Ollama's `reasoning` stays in extra)
  std::vector<ToolCall> tool_calls;
  bool has_tool_calls = false;  // `tool_calls` was present (possibly empty)
  std::optional<std::string> tool_call_id;
  std::optional<std::string> name;
  Json extra = Json::object();
  friend bool operator==(const ChatMessage&, const ChatMessage&) = default;

  // The content as text: the string itself, the joined `text` parts of an
  // array, or "" for absent and null.
  std::string Text() const;
  // The reasoning carried inside an array content (Mistral's reasoning
  // models): the text of every `{"type":"thinking","thinking":…}` block,
  // joined, whether `thinking` is a string or an array of text parts. ""
  // when the content is no array or holds no thinking block.
  std::string ContentThinking() const;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<bool> stream;
  std::optional<double> temperature;
  std::optional<long long> max_tokens;
  std::optional<Json> tools;
  Json extra = Json::object();
  friend bool operator==(const ChatRequest&, const ChatRequest&) = default;
};

struct Choice {
  int index = 0;
  ChatMessage message;
  std::optional<std::string> finish_reason;
  Json extra = Json::object();
  friend bool operator==(const Choice&, const Choice&) = default;
};

struct ChatResponse {
  std::string id;
  std::string object = "chat.completion";
  long long created = 0;
  std::string model;
  std::vector<Choice> choices;
  std::optional<Json> usage;
  Json extra = Json::object();
  friend bool operator==(const ChatResponse&, const ChatResponse&) = default;
};

// OpenAI's error body {"error":{"message","type","param","code"}}.
struct ErrorBody {
  std::string message;
  std::string type;
  Json param = nullptr;
  Json code = nullptr;
  friend bool operator==(const ErrorBody&, const ErrorBody&) = default;
};

std::expected<ChatMessage, Error> MessageFromJson(const Json& j, std::string_view where = "");
Json ToJson(const ChatMessage& m);
std::expected<ToolCall, Error> ToolCallFromJson(const Json& j, std::string_view where = "");
Json ToJson(const ToolCall& t);
std::expected<ChatRequest, Error> RequestFromJson(const Json& j);
Json ToJson(const ChatRequest& r);
std::expected<ChatResponse, Error> ResponseFromJson(const Json& j);
Json ToJson(const ChatResponse& r);

Json ToJson(const ErrorBody& e);
// Recognises an error body in OpenAI's form and in the dialects of
// docs/protocols.md "Provider dialects": vLLM's flat
// `{"object":"error","message",…}`, Mistral's flat `{"message",…}`, Gemini's
// array `[{"error":{…}}]`. nullopt if `j` is none.
std::optional<ErrorBody> ErrorBodyFromJson(const Json& j);
// The OpenAI-style body for an error this toolkit itself answers with.
Json MakeErrorJson(std::string_view message, std::string_view type, Json param = nullptr,
                   Json code = nullptr);

}  // namespace llmconform::wire
