#include "protocols/thinkingml/oracle_ops.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/thinkingml/thinkingml.h"
#include "protocols/wire/chat.h"

namespace llmconform::thinkingml {
namespace {

Json OptionalText(const std::optional<std::string_view>& s) { return s ? Json(*s) : Json(nullptr); }

Json PartsJson(const Parts& p) {
  Json phases = Json::array();
  for (const auto& ph : p.phases) {
    phases.push_back(
        {{"id", ph.id ? Json(*ph.id) : Json(nullptr)}, {"title", ph.title}, {"text", ph.text}});
  }
  return {{"think", OptionalText(p.think)},
          {"serp", OptionalText(p.serp)},
          {"phases", std::move(phases)},
          {"final", OptionalText(p.final_content)},
          {"queries", p.queries ? Json(*p.queries) : Json(nullptr)}};
}

std::expected<Json, Error> ValidateOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  return ValidationJson(Validate(*text), /*with_parts=*/true);
}

std::expected<Json, Error> EscapeOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return std::unexpected(text.error());
  return Json{{"text", EscapeThinkingFinalLiterals(*text)}};
}

std::expected<Json, Error> CheckEventsOp(const Json& in) {
  auto events = RequireArray(in, "events");
  if (!events) return std::unexpected(events.error());
  auto request_id = OptionalString(in, "request_id");
  if (!request_id) return std::unexpected(request_id.error());
  std::vector<gymbro::StreamEvent> list;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const Json& e = (*events)[i];
    auto name = RequireString(e, "event");
    if (!name) return std::unexpected(name.error().Under(Format("/events/{}", i)));
    if (!e.contains("data")) {
      return std::unexpected(
          Error::AtPointer(Format("/events/{}/data", i),
                           "expected string or object, got nothing (the field is required)"));
    }
    const Json& data = e["data"];
    list.push_back({std::move(*name), data.is_string() ? data.get<std::string>() : data.dump()});
  }
  const gymbro::EventCheck check = gymbro::CheckEvents(list, {*request_id});
  Json findings = Json::array();
  for (const auto& f : check.findings) {
    findings.push_back({{"rule", f.rule},
                        {"severity", gymbro::SeverityName(f.severity)},
                        {"message", f.message},
                        {"event", f.event_index ? Json(*f.event_index) : Json(nullptr)}});
  }
  return Json{{"valid", check.valid},
              {"reply", check.reply},
              {"outcome", gymbro::TerminationName(check.termination)},
              {"findings", std::move(findings)}};
}

}  // namespace

Json ValidationJson(const Validation& v, bool with_parts) {
  Json findings = Json::array();
  for (const auto& f : v.findings) {
    findings.push_back({{"rule", f.rule},
                        {"message", f.message},
                        {"line", f.position.line},
                        {"column", f.position.column}});
  }
  Json out{{"valid", v.valid}, {"findings", std::move(findings)}};
  if (with_parts) out["parts"] = PartsJson(v.parts);
  return out;
}

std::vector<OracleOp> OracleOps() {
  return {
      {"thinkingml.validate",
       "judge a ThinkingML reply by every rule of seed 002 §1-§5: {\"text\"} -> "
       "{\"valid\",\"findings\",\"parts\"}",
       ValidateOp},
      {"thinkingml.escapeThinkingFinalLiterals",
       "escape <final>/</final> literals inside <thinking>: {\"text\"} -> {\"text\"}", EscapeOp},
      {"gymbro.checkEvents",
       "judge a GymBro SSE event sequence (seed 002 §6-§7) and join its reply: "
       "{\"events\":[{\"event\",\"data\"}],"
       "\"request_id\"?} -> {\"valid\",\"reply\",\"outcome\",\"findings\"}",
       CheckEventsOp},
  };
}

}  // namespace llmconform::thinkingml
