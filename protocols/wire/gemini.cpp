// The Gemini API's paths, documented values and non-streamed bodies (gemini.h).
#include "protocols/wire/gemini.h"

#include <algorithm>

#include "base/format.h"

namespace llmconform::wire {

bool IsGeminiFinishReason(std::string_view reason) {
  // ai.google.dev/api/generate-content#FinishReason
  static constexpr std::string_view kReasons[] = {
      "FINISH_REASON_UNSPECIFIED",
      "STOP",
      "MAX_TOKENS",
      "SAFETY",
      "RECITATION",
      "LANGUAGE",
      "OTHER",
      "BLOCKLIST",
      "PROHIBITED_CONTENT",
      "SPII",
      "MALFORMED_FUNCTION_CALL",
      "IMAGE_SAFETY",
      "IMAGE_PROHIBITED_CONTENT",
      "IMAGE_OTHER",
      "NO_IMAGE",
      "IMAGE_RECITATION",
      "UNEXPECTED_TOOL_CALL",
      "TOO_MANY_TOOL_CALLS",
      "MISSING_THOUGHT_SIGNATURE",
      "MALFORMED_RESPONSE",
  };
  return std::find(std::begin(kReasons), std::end(kReasons), reason) != std::end(kReasons);
}

int GeminiStatusHttpCode(std::string_view status) {
  // google.rpc.Code and its HTTP mapping (cloud.google.com/apis/design/errors).
  static constexpr std::pair<std::string_view, int> kCodes[] = {
      {"OK", 200},
      {"CANCELLED", 499},
      {"UNKNOWN", 500},
      {"INVALID_ARGUMENT", 400},
      {"DEADLINE_EXCEEDED", 504},
      {"NOT_FOUND", 404},
      {"ALREADY_EXISTS", 409},
      {"PERMISSION_DENIED", 403},
      {"UNAUTHENTICATED", 401},
      {"RESOURCE_EXHAUSTED", 429},
      {"FAILED_PRECONDITION", 400},
      {"ABORTED", 409},
      {"OUT_OF_RANGE", 400},
      {"UNIMPLEMENTED", 501},
      {"INTERNAL", 500},
      {"UNAVAILABLE", 503},
      {"DATA_LOSS", 500},
  };
  for (const auto& [name, code] : kCodes)
    if (name == status) return code;
  return 0;
}

bool IsGeminiPath(std::string_view path) {
  path = path.substr(0, path.find('?'));
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view last = path.substr(slash + 1);  // "{model}:generateContent"
  const auto colon = last.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view method = last.substr(colon + 1);
  if (method != "generateContent" && method != "streamGenerateContent") return false;
  const std::string_view parent = path.substr(0, slash);
  return parent.ends_with("/models") || parent.ends_with("/tunedModels") || parent == "models";
}

std::string GeminiModelOfPath(std::string_view path) {
  path = path.substr(0, path.find('?'));
  if (!IsGeminiPath(path)) return "";
  const std::string_view last = path.substr(path.rfind('/') + 1);
  return std::string(last.substr(0, last.rfind(':')));
}

std::string GeminiCallOfPath(std::string_view path) {
  path = path.substr(0, path.find('?'));
  if (!IsGeminiPath(path)) return "";
  const std::size_t slash = path.rfind('/');
  const std::string_view parent = path.substr(0, slash);
  const std::string_view collection = parent.substr(parent.rfind('/') + 1);  // "models" without '/'
  return Format("{}/{}", collection, path.substr(slash + 1));
}

void GeminiAccumulator::ReadBody(const Json& body) {
  body_ = true;
  auto refuse = [this](const std::string& pointer, std::string what) {
    Report("GEM-BODY-RESPONSE", 0, pointer, std::move(what));
  };
  if (body.is_array()) {
    // streamGenerateContent without alt=sse: the chunks as one JSON array.
    if (body.empty()) refuse("", "an empty array: no GenerateContentResponse");
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (body[i].is_object()) {
        ReadChunk(body[i], 0, Format("/{}", i));
      } else {
        refuse(Format("/{}", i),
               Format("expected a GenerateContentResponse object, got {}", JsonTypeName(body[i])));
      }
    }
    return;
  }
  if (!body.is_object()) {
    refuse("", Format("expected a GenerateContentResponse object, got {}", JsonTypeName(body)));
    return;
  }
  if (!body.contains("candidates") && !body.contains("error") && !body.contains("promptFeedback")) {
    refuse("/candidates", "no candidates, promptFeedback or error");
  }
  ReadChunk(body, 0, "");
}

CanonicalResult ReadGeminiBody(const Json& body) {
  GeminiAccumulator acc;
  acc.ReadBody(body);
  return acc.Finish();
}

}  // namespace llmconform::wire
