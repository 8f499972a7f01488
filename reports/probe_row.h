// The report of `llmconform probe`: one endpoint's row of the provider
// matrix (each probed feature's outcome with its evidence, each deviation
// with where it showed) and, with `--expect DIALECT`, how that row differs
// from the dialect the user believes the endpoint speaks. The harness fills
// a ProbeRow; this renders it as text or JSON (docs/dialects.md "Probing a
// live endpoint" documents both). Strings are the endpoint's bytes as the
// harness decoded them; rendering never fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"

namespace llmconform::reports {

struct ProbeRequestResult {
  std::string request;  // "plain"
  std::string result;   // "pass", "fail", "unsupported", "not-provoked"
  int status = 0;       // 0: no answer
  bool streamed = false;
  long long ms = 0;
  std::string detail;  // the evidence
};

struct ProbeFeatureRow {
  std::string feature;  // "plain-text"
  std::string outcome;  // the feature's combined result
  std::vector<ProbeRequestResult> requests;
};

struct ProbeDeviationSeen {
  std::string request;
  std::string where;  // JSON pointer or event, "" for the whole reply
  std::string message;
};

struct ProbeDeviationRow {
  std::string id;  // "DIA-TOOLCALL-NO-INDEX"
  std::vector<ProbeDeviationSeen> seen;
};

// `--expect DIALECT`: the row's deviations against the dialect's.
struct ProbeExpectation {
  std::string dialect;
  std::vector<std::string> appeared;  // seen, not in the dialect
  std::vector<std::string> vanished;  // in the dialect, not seen
  // Seen, not reproduced by replay but known of the provider (the dialect's
  // `not_reproduced`): no drift.
  std::vector<std::string> known;
  bool Drifted() const { return !appeared.empty() || !vanished.empty(); }
};

struct ProbeRow {
  std::string endpoint;  // the base URL, redacted
  std::string model;
  std::string api = "chat";  // the API surface probed: chat, responses, messages, gemini
  std::vector<ProbeFeatureRow> features;      // probed features, in report order
  std::vector<ProbeDeviationRow> deviations;  // by id
  std::optional<ProbeExpectation> expectation;
};

// The console text: features with their requests' evidence, deviations with
// where they showed (from the surface's reference wire format: OpenAI's for
// chat and responses, Anthropic's for messages, Google's for gemini), the
// expectation's verdict, a summary line.
std::string ProbeRowText(const ProbeRow& row);
// {endpoint, model, api, features: {NAME: outcome}, deviations: [ids],
//  evidence: {features, deviations}, expect?: {dialect, appeared, vanished,
//  known, drifted}}, indented by one space, ending in a newline.
std::string ProbeRowJson(const ProbeRow& row);

}  // namespace llmconform::reports
