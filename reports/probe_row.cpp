#include "reports/probe_row.h"

#include "base/format.h"
#include "base/json_read.h"

namespace llmconform::reports {
namespace {

std::string Joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

std::string ExpectationText(const ProbeExpectation& e) {
  if (!e.Drifted()) {
    std::string out = Format("\nexpected dialect {}: matches", e.dialect);
    if (!e.known.empty()) out += Format(" (also seen, known of the provider: {})", Joined(e.known));
    return out + "\n";
  }
  std::string out = Format("\nexpected dialect {}: {} deviation(s) differ\n", e.dialect,
                           e.appeared.size() + e.vanished.size());
  for (const std::string& id : e.appeared)
    out += Format("    appeared  {}  (this endpoint shows it; {} does not)\n", id, e.dialect);
  for (const std::string& id : e.vanished)
    out += Format("    vanished  {}  ({} shows it; this endpoint did not)\n", id, e.dialect);
  if (!e.known.empty())
    out += Format("    also seen, known of the provider: {}\n", Joined(e.known));
  return out;
}

}  // namespace

std::string ProbeRowText(const ProbeRow& row) {
  std::string text = Format("llmconform probe: {} (model {}{})\n\n", row.endpoint, row.model,
                            row.api == "chat" ? "" : ", api " + row.api);
  int pass = 0, fail = 0, unsupported = 0;
  for (const ProbeFeatureRow& f : row.features) {
    pass += f.outcome == "pass";
    fail += f.outcome == "fail";
    unsupported += f.outcome == "unsupported";
    text += Format("{:<20} {}\n", f.feature, f.outcome);
    for (const ProbeRequestResult& r : f.requests)
      text += Format("    {:<13} {} ({} ms)\n", r.result + ":", r.detail, r.ms);
  }
  const std::string_view owner = row.api == "messages" ? "Anthropic"
                                 : row.api == "gemini" ? "Google"
                                                       : "OpenAI";
  text += Format("\ndeviations from {}'s wire format: {}\n", owner, row.deviations.size());
  for (const ProbeDeviationRow& d : row.deviations) {
    text += Format("{}\n", d.id);
    for (const ProbeDeviationSeen& s : d.seen)
      text += Format("    {} {}: {}\n", s.request, s.where.empty() ? "/" : s.where, s.message);
  }
  if (row.expectation) text += ExpectationText(*row.expectation);
  text += Format("\n{} feature(s) pass, {} fail, {} unsupported; {} deviation(s)\n", pass, fail,
                 unsupported, row.deviations.size());
  return text;
}

std::string ProbeRowJson(const ProbeRow& row) {
  OJson features = OJson::object();
  OJson fevidence = OJson::object();
  for (const ProbeFeatureRow& f : row.features) {
    features[f.feature] = f.outcome;
    OJson items = OJson::array();
    for (const ProbeRequestResult& r : f.requests) {
      items.push_back({{"request", r.request},
                       {"result", r.result},
                       {"status", r.status},
                       {"streamed", r.streamed},
                       {"ms", r.ms},
                       {"detail", r.detail}});
    }
    fevidence[f.feature] = std::move(items);
  }
  OJson ids = OJson::array();
  OJson devidence = OJson::object();
  for (const ProbeDeviationRow& d : row.deviations) {
    ids.push_back(d.id);
    OJson items = OJson::array();
    for (const ProbeDeviationSeen& s : d.seen)
      items.push_back({{"request", s.request}, {"where", s.where}, {"message", s.message}});
    devidence[d.id] = std::move(items);
  }
  OJson doc = {
      {"endpoint", row.endpoint},
      {"model", row.model},
      {"api", row.api},
      {"features", std::move(features)},
      {"deviations", std::move(ids)},
      {"evidence", {{"features", std::move(fevidence)}, {"deviations", std::move(devidence)}}}};
  if (const auto& e = row.expectation) {
    doc["expect"] = {{"dialect", e->dialect},
                     {"appeared", e->appeared},
                     {"vanished", e->vanished},
                     {"known", e->known},
                     {"drifted", e->Drifted()}};
  }
  return DumpJson(doc, 1) + "\n";
}

}  // namespace llmconform::reports
