#include "mockllm/surface_lint.h"

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {

std::vector<SurfaceWarning> SurfaceWarnings(const Exchange& x) {
  std::vector<SurfaceWarning> out;
  const auto surface = wire::SurfaceOfPath(x.request.path);
  // Chat Completions exchanges have their own lint (the WIRE-* rules); a
  // Responses API or Messages API error is no response, nor is a Messages
  // count_tokens answer. A Gemini error body is read: its status must fit
  // its code (GEM-ERROR-STATUS).
  if (!surface || *surface == wire::Surface::kChat) return out;
  if (*surface == wire::Surface::kMessages &&
      x.request.path.substr(0, x.request.path.find('?')).ends_with("/count_tokens"))
    return out;
  if (*surface != wire::Surface::kGemini && x.response.status >= 400) return out;
  wire::CanonicalResult result;
  // The chunk each event ends in: events are numbered from 1 as dispatched.
  std::vector<std::size_t> chunk_of_event;
  if (x.response.streamed) {
    wire::SseParser parser;
    auto acc = wire::MakeAccumulator(*surface);
    for (std::size_t c = 0; c < x.response.chunks.size(); ++c) {
      parser.Feed(x.response.chunks[c].raw, [&](const wire::SseEventView& ev) {
        chunk_of_event.push_back(c);
        acc->AddEvent(ev);
      });
    }
    parser.Finish();
    acc->NoteComments(parser.comment_count());
    result = acc->Finish();
  } else if (x.response.body && !x.response.raw) {
    result = wire::ReadSurfaceBody(*surface, Json(*x.response.body));
  } else if (x.response.raw && *surface == wire::Surface::kGemini) {
    // A body kept as its exact bytes (an error body as Google wrote it): read
    // when it is JSON; the findings are placed at `raw`, their pointer said.
    const Json body = ReadJsonOrDiscarded(*x.response.raw);
    if (body.is_discarded()) return out;
    result = wire::ReadSurfaceBody(*surface, body);
    for (const auto& f : result.findings)
      out.push_back({"/response/raw", Format("{}: {}", f.rule, f.message)});
    return out;
  } else {
    return out;
  }
  for (const auto& f : result.findings) {
    std::string pointer = "/response";
    if (!x.response.streamed) {
      pointer += "/body" + f.pointer;
    } else if (f.event > 0 && f.event <= chunk_of_event.size()) {
      pointer += Format("/chunks/{}", chunk_of_event[f.event - 1]);
    } else if (!x.response.chunks.empty()) {
      pointer += Format("/chunks/{}", x.response.chunks.size() - 1);
    }
    out.push_back({std::move(pointer), Format("{}: {}", f.rule, f.message)});
  }
  return out;
}

}  // namespace llmconform::mockllm
