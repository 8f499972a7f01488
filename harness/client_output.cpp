#include "harness/client_output.h"

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string_view>

#include "base/format.h"
#include "base/json_fields.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

bool Lists(const Scenario& s, std::string_view rule) {
  return std::find(s.rules.begin(), s.rules.end(), rule) != s.rules.end();
}

// {"events": [{"event", "data"}], "status"?, "contentType"?} as the suite's
// "stream" (harness/sse_check.h, CapturedStreamFromJson); `http` tells
// whether the client reported the HTTP answer.
std::expected<Json, Error> ReadStream(const Json& stream, const JsonPointer& at, bool& http) {
  auto events = RequireArray(stream, at, "events");
  if (!events) return std::unexpected(events.error());
  for (std::size_t i = 0; i < events->size(); ++i) {
    const JsonPointer e = at / "events" / i;
    if (auto ok = RequireObjectAt((*events)[i], e); !ok) return std::unexpected(ok.error());
    for (const char* key : {"event", "data"}) {
      if (auto ok = RequireString((*events)[i], e, key); !ok) return std::unexpected(ok.error());
    }
  }
  auto status = OptionalInt(stream, at, "status");
  if (!status) return std::unexpected(status.error());
  auto type = OptionalString(stream, at, "contentType");
  if (!type) return std::unexpected(type.error());
  http = status->has_value();
  // Without the HTTP answer GYMBRO-6.16 is skipped (the caller's override),
  // so the stream judge's view of it never shows.
  return Json{{"url", ""},
              {"status", status->value_or(200)},
              {"contentType", type->value_or(http ? "" : "text/event-stream")},
              {"events", *events},
              {"transportError", ""}};
}

// gymbro and thinkingml: the events the client's service published for the
// message, its POST answer, and the client's join of them.
void MapEventStream(const Scenario& s, const Json& doc, ClientOutput& out) {
  const JsonPointer root;
  auto fail_rules = [&](std::span<const std::string> rules, const std::string& why) {
    for (const auto& rule : rules) {
      if (Lists(s, rule))
        out.overrides.push_back(CheckResult::Fail(
            rule, why,
            reports::Evidence{
                .expected = "the field", .actual = why, .where = "LLMCONFORM_OUTPUT"}));
    }
  };
  if (const auto id = s.input.find("requestId"); id != s.input.end() && id->is_string())
    out.outputs["requestId"] = *id;  // the X-Request-Id the scenario sends

  bool http = false;
  std::expected<Json, Error> read = RequireObject(doc, root, "stream");
  if (read) read = ReadStream(*read, root / "stream", http);
  if (!read) {
    out.problems.push_back(read.error().message);
    fail_rules(s.rules,
               "the client's output holds no event stream to judge: " + read.error().message);
    return;
  }
  out.outputs["stream"] = std::move(*read);

  auto post = OptionalObject(doc, root, "post");
  if (post && *post) {
    if (auto status = RequireInt(**post, root / "post", "status"); !status) {
      post = std::unexpected(status.error());
    } else {
      out.outputs["post"] = {{"status", *status}, {"body", (*post)->value("body", Json())}};
    }
  }
  if (!post) out.problems.push_back(post.error().message);
  if (!post || !*post || !http) {
    if (Lists(s, "GYMBRO-6.16"))
      out.overrides.push_back(CheckResult::Skip(
          "GYMBRO-6.16",
          "the client reported no HTTP answers (/post and /stream/status): the endpoints "
          "are a service's; gate a running one with `llmconform sse-check`"));
  }

  auto client = RequireObject(doc, root, "client");
  std::expected<void, Error> ok;
  if (!client) {
    ok = std::unexpected(client.error());
  } else if (auto reply = RequireString(*client, root / "client", "reply"); !reply) {
    ok = std::unexpected(reply.error());
  } else if (auto succeeded = OptionalBool(*client, root / "client", "succeeded");
             !succeeded || !*succeeded) {
    ok = std::unexpected(succeeded ? ErrorAt(root / "client" / "succeeded",
                                             "expected boolean, got nothing (the field is "
                                             "required)")
                                   : succeeded.error());
  } else {
    out.outputs["client"] = {{"reply", *reply}, {"succeeded", **succeeded}};
  }
  if (!ok) {
    out.problems.push_back(ok.error().message);
    const std::string rules[] = {"GYMBRO-7.2", "GYMBRO-7.4"};
    fail_rules(rules, "the client reported no reply and verdict to judge: " + ok.error().message);
  }
}

// A top-level field of the output: its check, and the rules that read it.
// An optional one may be absent or null (then left out).
struct Field {
  const char* key;
  std::expected<void, Error> (*check)(const Json& value, const JsonPointer& at);
  std::initializer_list<std::string_view> rules;
  bool required = true;
};

// The fields of `doc` that pass their checks; each that does not is a
// problem, and fails the rules of `s` that read it.
Json ReadFields(const Scenario& s, const Json& doc, std::span<const Field> fields,
                ClientOutput& out) {
  Json good = Json::object();
  for (const Field& f : fields) {
    const JsonPointer at = JsonPointer() / f.key;
    const auto it = doc.find(f.key);
    if (!f.required && (it == doc.end() || it->is_null())) continue;
    std::expected<void, Error> ok =
        it == doc.end()
            ? std::unexpected(ErrorAt(at, "expected a value, got nothing (the field is required)"))
            : f.check(*it, at);
    if (ok) {
      good[f.key] = *it;
      continue;
    }
    out.problems.push_back(ok.error().message);
    for (std::string_view rule : f.rules) {
      if (!Lists(s, rule)) continue;
      const std::string why =
          Format("the client's output lacks what {} reads: {}", rule, ok.error().message);
      out.overrides.push_back(CheckResult::Fail(std::string(rule), why,
                                                reports::Evidence{.expected = Format("/{}", f.key),
                                                                  .actual = ok.error().message,
                                                                  .where = "LLMCONFORM_OUTPUT"}));
    }
  }
  return good;
}

std::expected<void, Error> ArrayOf(const Json& v, const JsonPointer& at, Json::value_t type,
                                   std::string_view what) {
  if (!v.is_array())
    return std::unexpected(ErrorAt(at, Format("expected array, got {}", v.type_name())));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool ok =
        type == Json::value_t::number_integer ? v[i].is_number_integer() : v[i].type() == type;
    if (!ok)
      return std::unexpected(
          ErrorAt(at / i, Format("expected {}, got {}", what, v[i].type_name())));
  }
  return {};
}

std::expected<void, Error> CheckTranscript(const Json& v, const JsonPointer& at) {
  if (auto ok = ArrayOf(v, at, Json::value_t::object, "object"); !ok) return ok;
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (const char* key : {"event", "state"}) {
      if (auto ok = RequireString(v[i], at / i, key); !ok) return std::unexpected(ok.error());
    }
    if (auto ok = RequireInt(v[i], at / i, "step"); !ok) return std::unexpected(ok.error());
  }
  return {};
}

std::expected<void, Error> CheckEnd(const Json& v, const JsonPointer& at) {
  if (v.is_null()) return {};
  if (auto ok = RequireObjectAt(v, at); !ok) return ok;
  for (const char* key : {"reason", "message"}) {
    if (auto ok = RequireString(v, at, key); !ok) return std::unexpected(ok.error());
  }
  return {};
}

// skill: the session's record; the rules compare it with the scenario's
// expect (harness/suites/skill_*_checks.cpp).
const Field kSkillFields[] = {
    {"transcript", &CheckTranscript, {"SKILL-STATE-2", "SKILL-STATE-3", "SKILL-STATE-4"}},
    {"states",
     [](const Json& v, const JsonPointer& at) {
       return ArrayOf(v, at, Json::value_t::string, "string");
     },
     {"SKILL-STATE-1"}},
    {"steps",
     [](const Json& v, const JsonPointer& at) {
       return ArrayOf(v, at, Json::value_t::number_integer, "integer");
     },
     {"SKILL-USER-6"}},
    {"parsed",
     [](const Json& v, const JsonPointer& at) {
       return ArrayOf(v, at, Json::value_t::object, "object");
     },
     {"SKILL-PARSE-1", "SKILL-PARSE-2", "SKILL-PARSE-3", "SKILL-PARSE-4", "SKILL-PARSE-5",
      "SKILL-PARSE-6", "SKILL-PARSE-7", "SKILL-PARSE-8"}},
    {"end",
     &CheckEnd,
     {"SKILL-STATE-5", "SKILL-STATE-6", "SKILL-REQ-6", "SKILL-REQ-7", "SKILL-STEP-1"}},
};

// All five fields or none: the checks read them together (Context::has_outputs);
// without them the rules judge the wire alone, and those comparing a bad field fail.
void MapSkillSession(const Scenario& s, const Json& doc, ClientOutput& out) {
  Json fields = ReadFields(s, doc, kSkillFields, out);
  if (out.problems.empty()) out.outputs = std::move(fields);
}

std::expected<void, Error> CheckString(const Json& v, const JsonPointer& at) {
  if (v.is_string()) return {};
  return std::unexpected(ErrorAt(at, Format("expected string, got {}", v.type_name())));
}

// [{"request": {"messages": […]}, "response": {"assistant": {…} or null}, …}]:
// what TC-4.2-1, TC-7-1 and TC-8-1 read; the other EngineTurn fields are
// TC-4.2-1's to ask for.
std::expected<void, Error> CheckTurns(const Json& v, const JsonPointer& at) {
  if (auto ok = ArrayOf(v, at, Json::value_t::object, "object"); !ok) return ok;
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (const char* part : {"request", "response"}) {
      if (auto o = RequireObject(v[i], at / i, part); !o) return std::unexpected(o.error());
    }
    if (auto ok = RequireArray(v[i]["request"], at / i / "request", "messages"); !ok)
      return std::unexpected(ok.error());
    const Json& response = v[i]["response"];
    const auto assistant = response.find("assistant");
    if (assistant == response.end())
      return std::unexpected(ErrorAt(at / i / "response" / "assistant",
                                     "expected object or null, got nothing (the field is "
                                     "required)"));
    if (!assistant->is_object() && !assistant->is_null())
      return std::unexpected(
          ErrorAt(at / i / "response" / "assistant",
                  Format("expected object or null, got {}", assistant->type_name())));
  }
  return {};
}

// toolcalls: what the client's run reports, field by field; the rest (audit,
// state, files) the harness reads from the workspace (harness/client_cmd.h).
const Field kRunFields[] = {
    {"phase", &CheckString, {"TC-4.2-2"}},
    {"stopReason", &CheckString, {"TC-4.2-2"}, /*required=*/false},
    {"message", &CheckString, {}, /*required=*/false},
    {"error", &CheckString, {}, /*required=*/false},
    {"turns", &CheckTurns, {"TC-4.2-1", "TC-7-1", "TC-8-1"}},
};

}  // namespace

ClientOutput MapClientOutput(const Scenario& s, const Json& doc) {
  ClientOutput out;
  if (s.protocol == "gymbro" || s.protocol == "thinkingml") {
    MapEventStream(s, doc, out);
  } else if (s.protocol == "skill") {
    MapSkillSession(s, doc, out);
  } else if (s.protocol == "toolcalls") {
    out.outputs = ReadFields(s, doc, kRunFields, out);
  } else {
    out.outputs = doc;  // multiturn, action: the checks read the fields as they are
  }
  return out;
}

std::vector<CheckResult> ApplyOverrides(std::vector<CheckResult> checks,
                                        const std::vector<CheckResult>& overrides) {
  for (const auto& o : overrides) {
    auto first = std::find_if(checks.begin(), checks.end(),
                              [&](const CheckResult& c) { return c.rule == o.rule; });
    if (first == checks.end()) {
      checks.push_back(o);
      continue;
    }
    *first = o;
    checks.erase(std::remove_if(std::next(first), checks.end(),
                                [&](const CheckResult& c) { return c.rule == o.rule; }),
                 checks.end());
  }
  return checks;
}

}  // namespace llmconform::harness
