#include "mockllm/surface_errors.h"

#include <algorithm>

#include "base/format.h"
#include "protocols/wire/sse.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using llmconform::wire::Surface;

// OpenAI's error type for a status (the Chat and Responses surfaces).
std::string_view OpenAiErrorType(int status) {
  if (status == 429) return "requests";
  if (status >= 500) return "server_error";
  if (status == 401) return "invalid_authentication";
  return "invalid_request_error";
}

bool IsOwnError(const Json& error) {
  const auto starts = [&](const char* key) {
    const auto it = error.find(key);
    return it != error.end() && it->is_string() &&
           it->get_ref<const std::string&>().starts_with("mockllm_");
  };
  return starts("type") || starts("code");
}

// The `response` object of the last event before the error that carried one
// (response.created, response.in_progress…), or a bare one.
OJson LastResponse(std::string_view before) {
  OJson last = {{"object", "response"}};
  for (const auto& ev : llmconform::wire::ParseSse(before).events) {
    OJson data = OJson::parse(ev.data, nullptr, false);
    if (data.is_object() && data.contains("response") && data["response"].is_object())
      last = std::move(data["response"]);
  }
  return last;
}

}  // namespace

std::string SecondsText(double seconds) {
  if (seconds == static_cast<double>(static_cast<std::int64_t>(seconds)))
    return std::to_string(static_cast<std::int64_t>(seconds));
  return Format("{}", seconds);
}

std::string_view AnthropicErrorType(int status) {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 500:
      return "api_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 400 && status < 500 ? "invalid_request_error" : "api_error";
  }
}

std::string_view GeminiErrorStatus(int status) {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 501:
      return "UNIMPLEMENTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

OJson SurfaceErrorBody(Surface surface, int status, std::string_view message, std::string_view type,
                       const OJson& code, const OJson& param, std::optional<double> retry_after_s) {
  if (surface == Surface::kMessages) {
    return {{"type", "error"},
            {"error", {{"type", AnthropicErrorType(status)}, {"message", message}}}};
  }
  if (surface == Surface::kGemini) {
    OJson error = {{"code", status}, {"message", message}, {"status", GeminiErrorStatus(status)}};
    if (retry_after_s) {
      error["details"] = OJson::array({{{"@type", "type.googleapis.com/google.rpc.RetryInfo"},
                                        {"retryDelay", SecondsText(*retry_after_s) + "s"}}});
    }
    return {{"error", std::move(error)}};
  }
  OJson error = OJson::object();
  error["message"] = message;
  error["type"] = type.empty() ? OpenAiErrorType(status) : type;
  error["param"] = param;
  error["code"] = code;
  return {{"error", std::move(error)}};
}

Json InSurfaceShape(Surface surface, int status, Json openai_body) {
  if (surface != Surface::kMessages && surface != Surface::kGemini) return openai_body;
  if (!openai_body.is_object() || !openai_body.contains("error") ||
      !openai_body["error"].is_object() || IsOwnError(openai_body["error"]))
    return openai_body;
  const Json& e = openai_body["error"];
  const std::string message = e.value("message", std::string());
  return Json(SurfaceErrorBody(surface, status, message));
}

std::vector<std::pair<std::string, std::string>> RateLimitHeaders(
    Surface surface, int status, std::optional<double> retry_after_s,
    std::optional<std::int64_t> retry_after_ms) {
  std::vector<std::pair<std::string, std::string>> out;
  if (status != 429) return out;
  if (surface == Surface::kMessages) {
    out.emplace_back("anthropic-ratelimit-requests-remaining", "0");
  } else if (surface == Surface::kChat || surface == Surface::kResponses) {
    out.emplace_back("x-ratelimit-remaining-requests", "0");
    if (retry_after_ms) {
      out.emplace_back("x-ratelimit-reset-requests", Format("{}ms", *retry_after_ms));
    } else if (retry_after_s) {
      out.emplace_back("x-ratelimit-reset-requests", SecondsText(*retry_after_s) + "s");
    }
  }
  return out;
}

OJson DefaultStreamError(Surface surface) {
  if (surface == Surface::kMessages)
    return {{"type", "overloaded_error"}, {"message", "Overloaded"}};
  if (surface == Surface::kGemini) {
    return {{"code", 500}, {"message", "mockllm injected error"}, {"status", "INTERNAL"}};
  }
  return {{"message", "mockllm injected error"},
          {"type", "server_error"},
          {"param", nullptr},
          {"code", nullptr}};
}

std::string StreamErrorEvent(Surface surface, const OJson& error, bool failed,
                             std::string_view before, std::int64_t events) {
  using llmconform::wire::WriteSseEvent;
  if (surface == Surface::kMessages) {
    const OJson data = {{"type", "error"}, {"error", error}};
    return WriteSseEvent({.event = "error", .data = data.dump(), .id = ""});
  }
  if (surface != Surface::kResponses)
    return llmconform::wire::WriteSseData(OJson{{"error", error}}.dump());
  const OJson code = error.contains("code") && !error["code"].is_null()
                         ? error["code"]
                         : error.value("type", OJson());
  if (failed) {
    OJson response = LastResponse(before);
    response["status"] = "failed";
    response["error"] = {{"code", code.is_null() ? OJson("server_error") : code},
                         {"message", error.value("message", OJson(""))}};
    OJson output = OJson::array();
    for (const auto& item :
         llmconform::wire::AccumulateSurfaceStream(Surface::kResponses, before).items) {
      if (!item.raw.is_null()) output.push_back(OJson(item.raw));
    }
    response["output"] = std::move(output);
    const OJson data = {{"type", "response.failed"},
                        {"sequence_number", events},
                        {"response", std::move(response)}};
    return WriteSseEvent({.event = "response.failed", .data = data.dump(), .id = ""});
  }
  OJson data = {{"type", "error"}};
  data["code"] = code;
  data["message"] = error.value("message", OJson(""));
  data["param"] = error.value("param", OJson());
  data["sequence_number"] = events;
  return WriteSseEvent({.event = "error", .data = data.dump(), .id = ""});
}

}  // namespace llmconform::mockllm
