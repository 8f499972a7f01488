#include "reports/junit_reporter.h"

#include <cstdio>
#include <pugixml.hpp>
#include <sstream>

#include "base/format.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

// Seconds with millisecond precision, the form the schema's time pattern takes.
std::string Seconds(double ms) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", ms >= 0 ? ms / 1000 : 0.0);
  return buf;
}

// ISO 8601 without zone, as the schema's timestamp: "2026-11-21T00:00:00Z" →
// "2026-11-21T00:00:00" (the run's time is UTC by contract).
std::string Timestamp(std::string_view started_at) { return std::string(started_at.substr(0, 19)); }

void SetText(pugi::xml_attribute a, std::string_view text) {
  a.set_value(ReadableText(text).c_str());
}

void AddAttribute(pugi::xml_node node, const char* name, std::string_view text) {
  SetText(node.append_attribute(name), text);
}

void AddCount(pugi::xml_node node, const char* name, int n) {
  node.append_attribute(name).set_value(n);
}

// The body of a <failure> or <error>.
std::string Details(const RunResult& run, const ScenarioResult& s, const CheckResult& c) {
  std::string out = c.message + "\n";
  if (const RuleInfo* rule = run.FindRule(s.info.protocol, c.rule)) {
    out += Format("\nrule {} ({}, {}): {}\n", rule->id, rule->severity, rule->source, rule->text);
  }
  if (c.evidence) {
    out += Format("\nexpected: {}\nactual:   {}\nwhere:    {}\n", c.evidence->expected,
                  c.evidence->actual, c.evidence->where);
  }
  out += Format("\nscenario: {}", s.info.file);
  if (!s.info.trace.empty()) out += Format("\ntrace:    {}", s.info.trace);
  return out + "\n";
}

void AddTestcase(pugi::xml_node suite, const RunResult& run, const ScenarioResult& s,
                 const CheckResult& c) {
  pugi::xml_node tc = suite.append_child("testcase");
  AddAttribute(tc, "classname",
               s.info.dialect.empty()
                   ? Format("{}.{}", s.info.protocol, s.info.name)
                   : Format("{}.{}[{}]", s.info.protocol, s.info.name, s.info.dialect));
  AddAttribute(tc, "name", c.rule);
  switch (c.outcome) {
    case Outcome::kPass:
      return;
    case Outcome::kSkip: {
      // The schema makes <skipped> text-only: the reason is its text.
      tc.append_child("skipped")
          .append_child(pugi::node_pcdata)
          .set_value(ReadableText(c.message).c_str());
      return;
    }
    case Outcome::kFail:
    case Outcome::kError: {
      pugi::xml_node n = tc.append_child(c.outcome == Outcome::kFail ? "failure" : "error");
      AddAttribute(n, "message", c.message);
      AddAttribute(n, "type", OutcomeName(c.outcome));
      n.append_child(pugi::node_pcdata).set_value(ReadableText(Details(run, s, c)).c_str());
      return;
    }
  }
}

}  // namespace

std::string RenderJUnit(const RunResult& run) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";

  const Totals all = run.CheckTotals();
  pugi::xml_node root = doc.append_child("testsuites");
  root.append_attribute("name") = "llmconform";
  AddCount(root, "tests", all.Total());
  AddCount(root, "failures", all.fail);
  AddCount(root, "errors", all.error);
  AddAttribute(root, "time", Seconds(run.duration_ms));

  for (const ProtocolTotals& p : run.TotalsByProtocol()) {
    pugi::xml_node suite = root.append_child("testsuite");
    double ms = 0;
    for (const ScenarioResult& s : run.scenarios) {
      if (s.info.protocol == p.protocol) ms += s.duration_ms;
    }
    AddAttribute(suite, "name", p.protocol);
    AddCount(suite, "tests", p.checks.Total());
    AddCount(suite, "failures", p.checks.fail);
    AddCount(suite, "errors", p.checks.error);
    AddCount(suite, "skipped", p.checks.skip);
    AddAttribute(suite, "time", Seconds(ms));
    AddAttribute(suite, "timestamp", Timestamp(run.started_at));
    pugi::xml_node props = suite.append_child("properties");
    const auto add_property = [&props](const char* name, std::string_view value) {
      pugi::xml_node prop = props.append_child("property");
      prop.append_attribute("name") = name;
      AddAttribute(prop, "value", value);
    };
    add_property("tool_version", run.tool_version);
    add_property("started_at", run.started_at);
    for (const ScenarioResult& s : run.scenarios) {
      if (s.info.protocol != p.protocol) continue;
      for (const CheckResult& c : s.checks) AddTestcase(suite, run, s, c);
    }
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
  return out.str();
}

}  // namespace llmconform::reports
