// The detectors' shared tally (protocols/wire/dialect.h): each deviation
// reported once, at its first occurrence, in the order first seen.
#pragma once

#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/dialect.h"

namespace llmconform::wire {

class DeviationReport {
 public:
  // Keeps the first report of `id`; later ones are dropped.
  void Add(std::string_view id, std::string where, std::string message) {
    if (!seen_.insert(std::string(id)).second) return;
    out_.push_back(Deviation{std::string(id), std::move(where), std::move(message)});
  }
  bool Has(std::string_view id) const { return seen_.contains(std::string(id)); }
  std::vector<Deviation> Take() { return std::move(out_); }

 private:
  std::set<std::string> seen_;
  std::vector<Deviation> out_;
};

// The Responses API's detectors (responses_dialect.cpp) and the ids they report.
std::vector<Deviation> DetectResponsesStreamDialect(std::string_view raw_sse);
std::vector<Deviation> DetectResponsesBodyDialect(std::string_view body, std::optional<int> status);
inline constexpr std::array<std::string_view, 6> kResponsesDeviationIds = {
    "DIA-RESP-NO-SEQUENCE-NUMBER", "DIA-RESP-UNNAMED-EVENTS", "DIA-RESP-NO-ITEM-ADDED",
    "DIA-RESP-CALL-ID-AT-DONE",    "DIA-RESP-NO-USAGE",       "DIA-RESP-DONE-SENTINEL",
};

// The Gemini API's detectors (gemini_dialect.cpp) and the ids they report.
// The stream detector also reads a stream framed as one JSON array.
std::vector<Deviation> DetectGeminiStreamDialect(std::string_view raw);
std::vector<Deviation> DetectGeminiBodyDialect(std::string_view body, std::optional<int> status);
inline constexpr std::array<std::string_view, 4> kGeminiDeviationIds = {
    "DIA-GEM-USAGE-LAST-ONLY",
    "DIA-GEM-VERTEX-FIELDS",
    "DIA-GEM-STREAM-JSON-ARRAY",
    "DIA-GEM-ERROR-ARRAY",
};

// Anthropic Messages' detectors (messages_dialect.cpp) and the ids they report.
std::vector<Deviation> DetectMessagesStreamDialect(std::string_view raw_sse);
std::vector<Deviation> DetectMessagesBodyDialect(std::string_view body, std::optional<int> status);
inline constexpr std::array<std::string_view, 6> kMessagesDeviationIds = {
    "DIA-MSG-START-USAGE-ZERO",
    "DIA-MSG-TOOL-INPUT-AT-START",
    "DIA-MSG-TOOL-INPUT-WHOLE-DELTA",
    "DIA-MSG-THINKING-NO-SIGNATURE",
    "DIA-MSG-THINKING-START-NO-SIGNATURE",
    "DIA-MSG-OPENAI-ERROR-BODY",
};

}  // namespace llmconform::wire
