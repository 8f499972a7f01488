#include "reports/json_reporter.h"

#include <utility>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"

namespace llmconform::reports {
namespace {

// Reads the fields of one object of a report, remembering the first error,
// which points at its value from the report's root (`where` is the object's
// pointer: "/scenarios/2/checks/0"; "" for the root). After an error every
// further read is a no-op.
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j.is_object()) {
      error_ = Error::AtPointer(where_, Format("expected object, got {}", JsonTypeName(j)));
    }
  }

  const std::string& where() const { return where_; }
  const std::optional<Error>& error() const { return error_; }

  void String(std::string_view key, std::string& out) {
    if (error_) return;
    if (auto v = RequireString(j_, key)) {
      out = std::move(*v);
    } else {
      Fail(v.error());
    }
  }

  // Like String, but an absent or null field leaves `out` as it is.
  void OptionalString(std::string_view key, std::string& out) {
    if (OptionalField(key)) String(key, out);
  }

  void Number(std::string_view key, double& out) {
    if (error_) return;
    auto it = j_.find(key);
    if (it == j_.end()) {
      FailAt(key, "expected number, got nothing (the field is required)");
    } else if (!it->is_number()) {
      FailAt(key, Format("expected number, got {}", JsonTypeName(*it)));
    } else {
      out = it->get<double>();
    }
  }

  // Reads each element of the array `key` with `read(element, where)`; when
  // `optional`, an absent or null field reads as empty.
  template <typename T, typename ReadOne>
  void Array(std::string_view key, std::vector<T>& out, ReadOne read, bool optional = false) {
    if (error_) return;
    auto it = j_.find(key);
    if (optional && (it == j_.end() || it->is_null())) return;
    auto array = RequireArray(j_, key);
    if (!array) return Fail(array.error());
    for (std::size_t i = 0; i < array->size() && !error_; ++i) {
      auto item = read((*array)[i], (JsonPointer(where_) / std::string(key) / i).to_string());
      if (item) {
        out.push_back(std::move(*item));
      } else {
        error_ = item.error();
      }
    }
  }

  // The object `key` when present and not null; nullptr otherwise.
  const Json* OptionalField(std::string_view key) const {
    if (error_) return nullptr;
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

  // An error of a reader of this object's fields, which points from it.
  void Fail(const Error& e) { error_ = e.Under(where_); }
  // WHAT about this object's field `key`.
  void FailAt(std::string_view key, std::string what) {
    error_ =
        Error::AtPointer((JsonPointer(where_) / std::string(key)).to_string(), std::move(what));
  }

 private:
  const Json& j_;
  std::string where_;
  std::optional<Error> error_;
};

template <typename T>
std::expected<T, Error> Finish(const ObjectReader& r, T value) {
  if (r.error()) return std::unexpected(*r.error());
  return value;
}

std::expected<std::string, Error> ReadTag(const Json& j, const std::string& where) {
  if (j.is_string()) return j.get<std::string>();
  return std::unexpected(
      Error::AtPointer(where, Format("expected string, got {}", JsonTypeName(j))));
}

std::expected<CheckResult, Error> ReadCheck(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  CheckResult c;
  std::string outcome;
  r.String("rule", c.rule);
  r.String("outcome", outcome);
  r.String("message", c.message);
  r.OptionalString("expected_failure", c.expected_failure);
  if (!r.error()) {
    if (std::optional<Outcome> o = OutcomeFromName(outcome)) {
      c.outcome = *o;
    } else {
      r.FailAt("outcome", Format("expected one of pass, fail, skip, error, got \"{}\"", outcome));
    }
  }
  if (const Json* evidence = r.OptionalField("evidence")) {
    ObjectReader e(*evidence, where + "/evidence");
    c.evidence.emplace();
    e.String("expected", c.evidence->expected);
    e.String("actual", c.evidence->actual);
    e.String("where", c.evidence->where);
    if (e.error()) return std::unexpected(*e.error());
  }
  return Finish(r, std::move(c));
}

std::expected<ScenarioResult, Error> ReadScenario(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  ScenarioResult s;
  r.String("protocol", s.info.protocol);
  r.String("name", s.info.name);
  r.String("description", s.info.description);
  r.String("file", s.info.file);
  r.String("trace", s.info.trace);
  r.String("provider", s.info.provider);
  r.Array("tags", s.info.tags, ReadTag, /*optional=*/true);
  if (j.is_object() && j.contains("dialect")) r.String("dialect", s.info.dialect);
  r.Array("deviations", s.info.deviations, ReadTag, /*optional=*/true);
  r.Number("duration_ms", s.duration_ms);
  r.Array("checks", s.checks, ReadCheck);
  return Finish(r, std::move(s));
}

std::expected<RuleInfo, Error> ReadRule(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RuleInfo rule;
  r.String("id", rule.id);
  r.String("protocol", rule.protocol);
  r.String("source", rule.source);
  r.String("text", rule.text);
  r.String("severity", rule.severity);
  return Finish(r, std::move(rule));
}

}  // namespace

Json TotalsToJson(const Totals& t) {
  return {{"pass", t.pass},
          {"fail", t.fail},
          {"skip", t.skip},
          {"error", t.error},
          {"total", t.Total()}};
}

Json CheckToJson(const CheckResult& c) {
  Json j = {{"rule", c.rule}, {"outcome", OutcomeName(c.outcome)}, {"message", c.message}};
  if (c.evidence) {
    j["evidence"] = {{"expected", c.evidence->expected},
                     {"actual", c.evidence->actual},
                     {"where", c.evidence->where}};
  }
  if (!c.expected_failure.empty()) j["expected_failure"] = c.expected_failure;
  return j;
}

Json ScenarioInfoToJson(const ScenarioInfo& info) {
  Json j = {{"protocol", info.protocol}, {"name", info.name},   {"description", info.description},
            {"file", info.file},         {"trace", info.trace}, {"provider", info.provider}};
  if (!info.tags.empty()) j["tags"] = info.tags;
  if (!info.dialect.empty()) j["dialect"] = info.dialect;
  if (!info.deviations.empty()) j["deviations"] = info.deviations;
  return j;
}

Json ScenarioToJson(const ScenarioResult& s) {
  Json j = ScenarioInfoToJson(s.info);
  Json& checks = j["checks"] = Json::array();
  for (const CheckResult& c : s.checks) checks.push_back(CheckToJson(c));
  j["outcome"] = OutcomeName(s.Overall());
  j["duration_ms"] = s.duration_ms;
  return j;
}

Json ReportToJson(const RunResult& run) {
  Json rules = Json::array();
  for (const RuleInfo& r : run.rules) {
    rules.push_back({{"id", r.id},
                     {"protocol", r.protocol},
                     {"source", r.source},
                     {"text", r.text},
                     {"severity", r.severity}});
  }
  Json scenarios = Json::array();
  for (const ScenarioResult& s : run.scenarios) scenarios.push_back(ScenarioToJson(s));
  Json report = {{"format", kReportFormat},
                 {"tool_version", run.tool_version},
                 {"started_at", run.started_at},
                 {"duration_ms", run.duration_ms},
                 {"totals",
                  {{"scenarios", TotalsToJson(run.ScenarioTotals())},
                   {"checks", TotalsToJson(run.CheckTotals())}}},
                 {"rules", std::move(rules)},
                 {"scenarios", std::move(scenarios)}};
  if (const int expected = run.ExpectedFailures(); expected > 0)
    report["totals"]["expected_failures"] = expected;
  if (!run.spec_hash.empty()) report["spec_hash"] = run.spec_hash;
  if (!run.shard.empty()) report["shard"] = run.shard;
  return report;
}

std::string DumpJson(const Json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string RenderJsonReport(const RunResult& run) { return DumpJson(ReportToJson(run), 2) + "\n"; }

std::expected<RunResult, Error> ReportFromJson(const Json& report) {
  ObjectReader r(report, "");
  std::string format;
  r.String("format", format);
  if (!r.error() && format != kReportFormat) {
    r.FailAt("format", Format("expected \"{}\", got \"{}\"", kReportFormat, format));
  }
  RunResult run;
  r.String("tool_version", run.tool_version);
  r.String("started_at", run.started_at);
  r.Number("duration_ms", run.duration_ms);
  r.OptionalString("spec_hash", run.spec_hash);
  r.OptionalString("shard", run.shard);
  r.Array("rules", run.rules, ReadRule);
  r.Array("scenarios", run.scenarios, ReadScenario);
  return Finish(r, std::move(run));
}

}  // namespace llmconform::reports
