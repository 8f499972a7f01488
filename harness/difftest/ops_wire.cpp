#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "harness/difftest/chat_generator.h"
#include "harness/difftest/gemini_generator.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/messages_generator.h"
#include "harness/difftest/op_record.h"
#include "harness/difftest/responses_generator.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/gemini.h"
#include "protocols/wire/messages.h"
#include "protocols/wire/responses.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

rc::Gen<Json> SseParse() {
  auto line = gen::element<std::string>(
      "data: hello", "data:hello", "data:  two spaces", "data", "data:", "data: {\"a\":1}",
      "data: [DONE]", "event: message", "event:ping", "id: 7", "id: a\u0000b", "id", "retry: 1000",
      "retry: x", "retry:", ": keep-alive", ":", "field: v", "DATA: upper", " data: lead",
      "data: 你好 😀");
  auto eol = gen::element<std::string>("\n", "\n", "\r\n", "\r");
  auto stream = gen::apply(
      [](bool bom, std::vector<std::pair<std::string, std::string>> lines, bool blank_end) {
        std::string s = bom ? "\ufeff" : "";
        for (const auto& [l, e] : lines) s += l + e;
        if (blank_end) s += "\n";
        return s;
      },
      gen::element(false, false, false, true),
      gen::container<std::vector<std::pair<std::string, std::string>>>(
          gen::weightedOneOf<std::pair<std::string, std::string>>(
              {{5, gen::pair(line, eol)}, {2, gen::pair(gen::just(std::string()), eol)}})),
      gen::element(true, true, false));
  return gen::mapcat(stream, [](const std::string& s) {
    return gen::map(
        Opt(gen::container<std::vector<std::size_t>>(gen::inRange<std::size_t>(0, s.size() + 1))),
        [s](std::optional<std::vector<std::size_t>> splits) {
          Json in{{"stream", s}};
          if (splits) {
            std::sort(splits->begin(), splits->end());
            in["splits"] = *splits;
          }
          return in;
        });
  });
}

// The surfaces wire.dialect's generated inputs are of, each with its
// generator: Chat Completions' own, and the accumulate inputs of the Responses
// API, Anthropic Messages and Gemini (a body as text) with "surface" set. The op is measured
// against the ids these surfaces' detectors can report (wire::DialectIds(surface)); a surface joins
// by one more row here.
struct DialectSurface {
  wire::Surface surface;
  std::size_t weight;
  rc::Gen<Json> inputs;
};

rc::Gen<Json> AsDialectInput(wire::Surface surface, rc::Gen<Json> accumulate_inputs) {
  return gen::map(std::move(accumulate_inputs), [surface](Json in) {
    if (in.contains("body") && !in["body"].is_string()) in["body"] = in["body"].dump();
    in["surface"] = std::string(wire::SurfaceName(surface));
    return in;
  });
}

std::vector<DialectSurface> DialectSurfaces() {
  return {
      {wire::Surface::kChat, 3, WireDialectInput()},
      {wire::Surface::kResponses, 2,
       AsDialectInput(wire::Surface::kResponses, ResponsesAccumulateInput())},
      {wire::Surface::kMessages, 2,
       AsDialectInput(wire::Surface::kMessages, MessagesAccumulateInput())},
      {wire::Surface::kGemini, 2, AsDialectInput(wire::Surface::kGemini, GeminiAccumulateInput())}};
}

// One of the surfaces' inputs, picked by weight whatever the size (rapidcheck
// scales inRange with it, which would leave the last surfaces to the largest
// cases), shrinking toward the first.
rc::Gen<Json> WireDialectInputs(std::vector<DialectSurface> surfaces) {
  std::size_t total = 0;
  for (const DialectSurface& d : surfaces) total += d.weight;
  const auto weighted = gen::resize(rc::kNominalSize, gen::inRange<std::size_t>(0, total));
  return gen::mapcat(weighted, [surfaces](std::size_t pick) {
    for (const DialectSurface& d : surfaces) {
      if (pick < d.weight) return d.inputs;
      pick -= d.weight;
    }
    return surfaces.back().inputs;
  });
}

}  // namespace

std::vector<OpRecord> WireOps() {
  const std::vector<DialectSurface> surfaces = DialectSurfaces();
  std::vector<std::string> dialect_ids;
  for (const DialectSurface& d : surfaces)
    for (std::string_view id : wire::DialectIds(d.surface)) dialect_ids.emplace_back(id);
  // The accumulator's own rules, and the deviations it names by their DIA-* ids.
  std::vector<std::string> accumulate_rules = {"WIRE-STREAM-"};
  for (std::string_view id : wire::kAccumulatorDeviationIds) accumulate_rules.emplace_back(id);
  return {
      {"sse.parse",
       SseParse(),
       {"WIRE-SSE-"},
       [](const Json&, const Json&, std::set<std::string>& rules) {
         rules.insert("WIRE-SSE-FRAMING");
       }},
      {"wire.accumulate", WireAccumulateInput(), std::move(accumulate_rules), {}},
      {"responses.accumulate",
       ResponsesAccumulateInput(),
       {wire::kResponsesRuleIds.begin(), wire::kResponsesRuleIds.end()},
       {}},
      {"gemini.accumulate",
       GeminiAccumulateInput(),
       {wire::kGeminiRuleIds.begin(), wire::kGeminiRuleIds.end()},
       {}},
      {"messages.accumulate",
       MessagesAccumulateInput(),
       {wire::kMessagesRuleIds.begin(), wire::kMessagesRuleIds.end()},
       {}},
      {"wire.dialect", WireDialectInputs(surfaces), std::move(dialect_ids),
       [](const Json&, const Json& output, std::set<std::string>& rules) {
         if (!output.contains("deviations") || !output["deviations"].is_array()) return;
         for (const Json& d : output["deviations"])
           if (d.is_object() && d.contains("id") && d["id"].is_string())
             rules.insert(d["id"].get<std::string>());
       }},
  };
}

}  // namespace llmconform::harness::difftest
