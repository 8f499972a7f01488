// The Responses API's items and non-streamed bodies (responses.h).
#include "protocols/wire/responses.h"

#include "base/format.h"

namespace llmconform::wire {
namespace {

// The text of every part of `parts` whose type is `type`, joined.
std::string PartsText(const Json& parts, std::string_view type, std::string_view field) {
  std::string out;
  if (!parts.is_array()) return out;
  for (const Json& p : parts) {
    if (p.is_object() && StringAt(p, "type") == type) out += StringAt(p, field);
  }
  return out;
}

}  // namespace

OutputItem ResponsesItemFromJson(const Json& item) {
  OutputItem out;
  out.raw = item;
  if (!item.is_object()) return out;
  out.type = StringAt(item, "type");
  out.id = StringAt(item, "id");
  if (auto s = item.find("status"); s != item.end() && s->is_string()) out.status = *s;
  const Json empty;
  auto content = item.find("content");
  const Json& parts = content != item.end() ? *content : empty;
  if (out.type == "message") {
    out.kind = ItemKind::kMessage;
    out.text = PartsText(parts, "output_text", "text");
    out.refusal = PartsText(parts, "refusal", "refusal");
  } else if (out.type == "function_call") {
    out.kind = ItemKind::kFunctionCall;
    out.call_id = StringAt(item, "call_id");
    out.name = StringAt(item, "name");
    out.arguments = StringAt(item, "arguments");
  } else if (out.type == "reasoning") {
    out.kind = ItemKind::kReasoning;
    if (auto s = item.find("summary"); s != item.end() && s->is_array()) {
      for (const Json& p : *s) {
        if (p.is_object()) out.summary.push_back(StringAt(p, "text"));
      }
    }
    out.text = PartsText(parts, "reasoning_text", "text");
    if (auto e = item.find("encrypted_content"); e != item.end() && e->is_string())
      out.encrypted = *e;
  }
  return out;
}

CanonicalResult ReadResponsesBody(const Json& body) {
  CanonicalResult out{.surface = Surface::kResponses};
  out.terminated = true;
  FindingLog log(/*body=*/true);
  auto report = [&log](std::string_view rule, std::string_view pointer, std::string what) {
    log.Report(rule, 0, pointer, std::move(what));
  };
  if (!body.is_object()) {
    report("RESP-BODY-RESPONSE", "",
           Format("expected a response object, got {}", JsonTypeName(body)));
    out.findings = log.Take();
    return out;
  }
  auto output = body.find("output");
  if (output == body.end() && body.contains("error")) {
    out.error = ErrorBodyFromJson(body);
    if (!out.error) report("RESP-BODY-RESPONSE", "/error", "an error body without a message");
    out.findings = log.Take();
    return out;
  }
  if (output == body.end() || !output->is_array()) {
    report("RESP-BODY-RESPONSE", "/output",
           Format("expected the response's output array, got {}",
                  JsonTypeName(output == body.end() ? Json() : *output)));
    out.findings = log.Take();
    return out;
  }
  out.id = StringAt(body, "id");
  out.model = StringAt(body, "model");
  for (const char* key : {"id", "model"}) {
    if (StringAt(body, key).empty())
      report("RESP-TERMINAL-ID-MODEL", Format("/{}", key),
             Format("the response has no {} (clients such as Codex need it)", key));
  }
  for (const Json& item : *output) out.items.push_back(ResponsesItemFromJson(item));
  if (auto s = body.find("status"); s != body.end() && s->is_string()) out.status = *s;
  if (auto d = body.find("incomplete_details"); d != body.end() && d->is_object())
    if (auto r = d->find("reason"); r != d->end() && r->is_string()) out.incomplete_reason = *r;
  if (auto u = body.find("usage"); u != body.end()) out.usage = *u;
  if (auto e = body.find("error"); e != body.end() && e->is_object())
    out.error = ErrorBodyFromJson(Json{{"error", *e}});
  if (out.status == "incomplete" && !out.incomplete_reason)
    report("RESP-STATUS", "/incomplete_details",
           "status is \"incomplete\" but incomplete_details.reason is missing");
  out.findings = log.Take();
  return out;
}

}  // namespace llmconform::wire
