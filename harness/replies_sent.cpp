#include "harness/replies_sent.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

#include "harness/requests_sent.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/fault.h"
#include "mockllm/replay_plan.h"
#include "protocols/wire/surface.h"

namespace llmconform::harness {
namespace {

std::optional<long long> ParseNumber(const std::string& text, double scale) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return static_cast<long long>(v * scale);
}

// The wait a reply names: retry-after-ms, else retry-after in seconds.
Json RetryAfterMs(const mockllm::ResponsePlan& plan) {
  std::optional<long long> ms, s;
  for (const auto& [name, value] : plan.headers) {
    std::string lower;
    for (char c : name) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    if (lower == "retry-after-ms") ms = ParseNumber(value, 1);
    if (lower == "retry-after") s = ParseNumber(value, 1000);
  }
  if (ms) return *ms;
  if (s) return *s;
  return nullptr;
}

std::optional<Json> Replied(const SentRequest& r, const mockllm::Trace& trace,
                            const mockllm::Dialect* dialect) {
  const auto x = r.exchange();
  if (!x || *x >= trace.exchanges.size()) return std::nullopt;
  const mockllm::Exchange& exchange = trace.exchanges[*x];
  OJson fault = OJson::object();
  if (const auto& f = r.entry().fault; f && f->is_object()) fault = OJson::parse(f->dump());
  const auto surface = wire::SurfaceOfPath(exchange.request.path).value_or(wire::Surface::kChat);
  mockllm::ResponsePlan plan;
  if (dialect && !dialect->steps.empty()) {
    plan = mockllm::PlanDialectResponse(exchange, *dialect, fault, 0);
  } else {
    auto f = mockllm::FaultFromJson(fault);
    if (!f) return std::nullopt;
    plan = mockllm::PlanResponse(exchange.response, *f, 0, surface);
  }
  std::int64_t stall_ms = 0;
  for (const mockllm::Piece& piece : plan.pieces)
    stall_ms = std::max(stall_ms, piece.stall_ms_before);
  return Json{{"surface", wire::SurfaceName(surface)},
              {"status", plan.status},
              {"content_type", plan.content_type},
              {"retry_after_ms", RetryAfterMs(plan)},
              {"stream", plan.chunked},
              {"cut", plan.cut},
              {"stall_ms", stall_ms},
              {"body", plan.Body()},
              {"at_ms", r.entry().at_ms ? Json(*r.entry().at_ms) : Json(nullptr)}};
}

}  // namespace

void AnnotateReplies(Json& journal, const mockllm::Trace& trace, const std::string& dialect) {
  if (!journal.is_array()) return;
  const mockllm::Dialect* d = dialect.empty() ? nullptr : mockllm::FindDialect(dialect);
  Json refused = Json::array();
  // Read before the entries are annotated (the view copies what it reads).
  const std::vector<SentRequest> requests = ReadRequestsSent(journal);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    Json& entry = journal[i];
    std::optional<Json> replied;
    try {
      replied = Replied(requests[i], trace, d);
    } catch (const std::exception&) {
      replied.reset();  // a journal entry of another shape: nothing to add
    }
    if (!entry.is_object()) continue;
    const Json& body = requests[i].body();
    if (i > 0 && (body.is_null() || requests[i - 1].body() != body)) refused = Json::array();
    entry["attempt"] = refused.size() + 1;
    entry["refused"] = refused;
    if (replied) {
      entry["replied"] = *replied;
      refused.push_back(std::move(*replied));
    } else {
      refused.push_back(nullptr);
    }
  }
}

}  // namespace llmconform::harness
