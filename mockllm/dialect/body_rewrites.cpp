#include <algorithm>
#include <cctype>

#include "mockllm/dialect/rewrites.h"
#include "mockllm/surface_errors.h"

namespace llmconform::mockllm::dialect {

namespace {

bool IsCompletion(const OJson& j) {
  return j.is_object() && j.contains("choices") && j["choices"].is_array();
}

// A canonical error: status >= 400 and {"error": {...}}.
bool IsCanonicalError(const BodyView& b) {
  return b.r.status >= 400 && b.json.is_object() && b.json.contains("error") &&
         b.json["error"].is_object();
}

bool StatusListed(const OJson& statuses, int status) {
  if (statuses.empty()) return true;
  for (const OJson& s : statuses)
    if (s == status) return true;
  return false;
}

}  // namespace

void BodyContentFilter(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || c.contains("content_filter_results")) continue;
    c["content_filter_results"] = p["content_filter_results"];
    b.changed = true;
  }
}

BodyRewrite BodyReasoning(std::string field) {
  return [field](BodyView& b, const OJson& p, bool) {
    if (!IsCompletion(b.json)) return;
    for (OJson& c : b.json["choices"]) {
      if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
      if (c["message"].contains(field)) continue;
      c["message"][field] = ReasoningValue(field, p["text"].get<std::string>());
      b.changed = true;
    }
  };
}

void BodyThinkTags(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
    OJson& m = c["message"];
    if (!IsString(m, "content") || m["content"].get<std::string>().empty()) continue;
    m["content"] = ThinkPrefix(p) + m["content"].get<std::string>();
    b.changed = true;
  }
}

// Mistral's reasoning replies: the message's string content becomes the
// block array [thinking, text].
void BodyContentArray(BodyView& b, const OJson& p, bool) {
  if (!IsCompletion(b.json)) return;
  for (OJson& c : b.json["choices"]) {
    if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) continue;
    OJson& m = c["message"];
    if (!IsString(m, "content")) continue;
    OJson blocks = ReasoningValue("content", p["text"].get<std::string>());
    blocks.push_back(OJson{{"type", "text"}, {"text", m["content"]}});
    m["content"] = std::move(blocks);
    b.changed = true;
  }
}

namespace {

void SetContentType(RecordedResponse& r, const std::string& type) {
  OJson headers = OJson::object();
  for (const auto& [k, v] : r.headers.items()) {
    std::string lower = k;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (lower != "content-type" && lower != "content-length") headers[k] = v;
  }
  headers["content-type"] = type;
  r.headers = std::move(headers);
}

}  // namespace

void BodyErrorInStream(BodyView& b, const OJson& p, bool stream_requested) {
  if (!stream_requested || !IsCanonicalError(b) || !StatusListed(p["statuses"], b.r.status)) return;
  const std::string event = "data: " + Dump(OJson{{"error", b.json["error"]}}) + "\n\n";
  b.r.status = 200;
  b.r.streamed = true;
  b.r.body.reset();
  b.r.raw.reset();
  b.r.chunks = {Chunk{0, event}, Chunk{0, "data: [DONE]\n\n"}};
  SetContentType(b.r, "text/event-stream");
  b.json = OJson::value_t::discarded;
}

void BodyErrorWith200(BodyView& b, const OJson& p, bool) {
  if (!IsCanonicalError(b) || !StatusListed(p["statuses"], b.r.status)) return;
  OJson& err = b.json["error"];
  if (!err.contains("code") || err["code"].is_null()) err["code"] = b.r.status;
  b.r.status = 200;
  b.changed = true;
}

void BodyFlatError(BodyView& b, const OJson& p, bool) {
  if (!IsCanonicalError(b)) return;
  const OJson err = b.json["error"];
  const std::string message = TextOr(err, "message");
  if (p["style"] == "detail") {
    b.json = OJson{{"detail", message}};
  } else {
    OJson flat{{"object", "error"}, {"message", message}};
    flat["type"] = err.contains("type") ? err["type"] : OJson("invalid_request_error");
    flat["param"] = err.contains("param") ? err["param"] : OJson(nullptr);
    flat["code"] = b.r.status;
    b.json = std::move(flat);
  }
  b.changed = true;
}

void BodyErrorArray(BodyView& b, const OJson&, bool) {
  if (!IsCanonicalError(b)) return;
  const std::string message = TextOr(b.json["error"], "message");
  b.json = OJson::array({OJson{{"error", OJson{{"code", b.r.status},
                                               {"message", message},
                                               {"status", GeminiErrorStatus(b.r.status)}}}}});
  b.changed = true;
}

}  // namespace llmconform::mockllm::dialect
