// Rewriting a reply into a dialect: the body rewrites, then (for a stream)
// the stream rewrites on its events; the pieces live in mockllm/dialect/.
#include "mockllm/dialect_rewrite.h"

#include <algorithm>
#include <cctype>

#include "base/json_read.h"
#include "mockllm/dialect/rewrites.h"
#include "mockllm/dialect/stream_events.h"
#include "mockllm/replay_plan.h"
#include "protocols/wire/sse_blocks.h"

namespace llmconform::mockllm {
namespace {

using dialect::BodyView;
using dialect::EventStream;
using dialect::FindRewrite;
using dialect::Rewrite;
using dialect::SplitEvents;
using dialect::StreamEvent;
using dialect::Write;

bool IsContentType(std::string_view name) {
  return std::ranges::equal(name, std::string_view("content-type"), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

}  // namespace

bool RequestStreams(const RecordedRequest& request) {
  if (request.path.find(":streamGenerateContent") != std::string::npos) return true;  // Gemini
  return request.body && request.body->is_object() && request.body->contains("stream") &&
         (*request.body)["stream"] == true;
}

wire::Surface ExchangeSurface(const Exchange& x) {
  return wire::SurfaceOfPath(x.request.path).value_or(wire::Surface::kChat);
}

RecordedResponse RewriteResponse(const RecordedResponse& canonical, const Dialect& dialect,
                                 bool stream_requested, wire::Surface surface) {
  if (dialect.steps.empty() || dialect.surface != surface) return canonical;
  RecordedResponse out = canonical;
  if (!out.streamed) {
    BodyView b{out, ReadOrderedJsonOrDiscarded(canonical.BodyBytes())};
    for (const DialectStep& s : dialect.steps) {
      const Rewrite* r = FindRewrite(s.id);
      if (!r || !r->body || out.streamed) continue;
      if (b.json.is_discarded()) break;
      r->body(b, s.params, stream_requested);
    }
    if (out.streamed) {
      // Became a stream (DIA-ERROR-IN-STREAM): the stream steps apply too.
    } else {
      if (b.changed) {
        out.body = b.json;
        out.raw.reset();
      }
      return out;
    }
  }
  EventStream stream = SplitEvents(out.chunks);
  std::vector<StreamEvent>& evs = stream.events;
  for (const DialectStep& s : dialect.steps) {
    const Rewrite* r = FindRewrite(s.id);
    if (r && r->stream) r->stream(evs, s.params);
  }
  std::vector<Chunk> chunks;
  std::string before, after;
  for (const Chunk& c : out.chunks) before += c.raw;
  std::int64_t t = 0;
  for (const StreamEvent& e : evs) {
    t = std::max(t, e.t_ms);
    chunks.push_back(Chunk{t, Write(e)});
    after += chunks.back().raw;
  }
  if (stream.bom) {  // the stream's first bytes, before any event a rewrite inserted
    if (chunks.empty()) chunks.push_back(Chunk{0, ""});
    chunks.front().raw.insert(0, llmconform::wire::kSseBom);
    after.insert(0, llmconform::wire::kSseBom);
  }
  if (after == before) return out;  // nothing to rewrite: the recorded chunking stays
  out.chunks = std::move(chunks);
  if (after.starts_with('[')) {  // no SSE any more (DIA-GEM-STREAM-JSON-ARRAY): served as JSON
    for (auto it = out.headers.begin(); it != out.headers.end();)
      it = IsContentType(it.key()) ? out.headers.erase(it) : std::next(it);
    out.headers["content-type"] = "application/json; charset=UTF-8";
  }
  return out;
}

std::vector<std::string> DeviationsApplied(const std::vector<Exchange>& exchanges,
                                           const Dialect& dialect) {
  std::vector<std::string> out;
  Dialect before{.name = dialect.name,
                 .surface = dialect.surface,
                 .about = {},
                 .steps = {},
                 .not_reproduced = {}};
  for (const DialectStep& step : dialect.steps) {
    Dialect after = before;
    after.steps.push_back(step);
    for (const Exchange& x : exchanges) {
      const bool streams = RequestStreams(x.request);
      const wire::Surface surface = ExchangeSurface(x);
      if (RewriteResponse(x.response, before, streams, surface) !=
          RewriteResponse(x.response, after, streams, surface)) {
        out.push_back(step.id);
        break;
      }
    }
    before = std::move(after);
  }
  return out;
}

ResponsePlan PlanDialectResponse(const Exchange& x, const Dialect& dialect, const OJson& fault_json,
                                 std::uint64_t seed) {
  auto parsed = FaultFromJson(fault_json);
  Fault fault = parsed ? *parsed : Fault{};
  const bool streams = RequestStreams(x.request);
  const wire::Surface surface = ExchangeSurface(x);
  if (!fault.status || dialect.surface != surface)
    return PlanResponse(RewriteResponse(x.response, dialect, streams, surface), fault, seed,
                        surface);
  // The injected error as a recorded reply, rewritten, then the rest of the fault.
  Fault error_only;
  error_only.status = fault.status;
  error_only.body = fault.body;
  error_only.retry_after = fault.retry_after;
  error_only.retry_after_ms = fault.retry_after_ms;
  error_only.headers = fault.headers;
  const ResponsePlan error = PlanResponse(x.response, error_only, seed, surface);
  RecordedResponse injected;
  injected.status = error.status;
  injected.headers["content-type"] = error.content_type;
  for (const auto& [name, value] : error.headers) injected.headers[name] = value;
  injected.raw = error.Body();
  fault.status.reset();
  fault.body.reset();
  fault.retry_after.reset();
  fault.retry_after_ms.reset();
  fault.headers = OJson::object();
  return PlanResponse(RewriteResponse(injected, dialect, streams, surface), fault, seed, surface);
}

}  // namespace llmconform::mockllm
