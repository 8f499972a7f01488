// Google's Gemini API surface (`POST …/models/{model}:generateContent` and
// `…:streamGenerateContent?alt=sse`): its stream accumulator and body reader
// (docs/surfaces.md "Gemini").
//
// A stream is unnamed SSE events, each `data:` one whole
// GenerateContentResponse: `candidates[]` (each with `index`, `content.parts[]`
// and, on its last chunk, `finishReason`), `usageMetadata`, `modelVersion`,
// `responseId`, `promptFeedback`. There is no `[DONE]`: a stream ends when
// every candidate has its finishReason. A part is a delta: text parts
// append to the candidate's text, `thought: true` parts to its reasoning; a
// `functionCall` part is one whole call (`name`, `args` an object, `id` when
// the API gives one). `thoughtSignature` (on any part) is kept opaque. Parts
// of other kinds (`executableCode`, `codeExecutionResult`, `inlineData`, …)
// are `other` items named by their kind; response and candidate fields not
// modelled (`groundingMetadata`, `safetyRatings`, …) are named in
// `other_events` ("candidate.groundingMetadata").
//
// The result is the first candidate read (index 0 in practice: what the
// SDKs' `.text` reads); every other candidate is one `other` item of type
// "candidate" holding its index, finishReason and parts as sent. `status` is
// that candidate's finishReason, `incomplete_reason` the prompt's
// `promptFeedback.blockReason`, `id` the responseId, `model` the modelVersion,
// `usage` the last usageMetadata.
//
// Lenient like the Responses reader: every broken contract rule (GEM-* of
// specs/wire/rules.json) is a LocatedFinding, once per rule (the first place,
// with a count of the others), and reading goes on as a careful client would.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/surface.h"

namespace llmconform::wire {

// The contract rules this surface's reader reports (specs/wire/rules.json).
inline constexpr std::array<std::string_view, 9> kGeminiRuleIds = {
    "GEM-EVENT-JSON",    "GEM-CANDIDATE-INDEX", "GEM-FUNCTION-CALL",
    "GEM-FINISH-REASON", "GEM-AFTER-FINISH",    "GEM-FINISHED",
    "GEM-USAGE-LAST",    "GEM-ERROR-STATUS",    "GEM-BODY-RESPONSE",
};

// The finishReason values the Gemini API reference documents.
bool IsGeminiFinishReason(std::string_view reason);

// The HTTP status google.rpc.Code `status` maps to (400 for
// INVALID_ARGUMENT, 429 for RESOURCE_EXHAUSTED, …); 0 for a name it lacks.
int GeminiStatusHttpCode(std::string_view status);

// True for a request path of this surface: `…/models/{model}:generateContent`
// or `…:streamGenerateContent` (Gemini API under /v1beta or /v1, Vertex AI
// under `…/publishers/google/models/{model}`); the query is not read.
bool IsGeminiPath(std::string_view path);

// The model a Gemini path names ("gemini-2.5-flash" of
// `/v1beta/models/gemini-2.5-flash:generateContent`); "" for another path.
std::string GeminiModelOfPath(std::string_view path);

// The call a Gemini path makes, without the prefix that only names the
// backend and its version: "models/{model}:{method}"
// ("models/gemini-2.5-flash:generateContent") of the Developer API's
// `/v1beta/models/…` and `/v1/models/…`, of Vertex AI's
// `/v1/projects/P/locations/L/publishers/google/models/…` and of its express
// mode's `/v1beta1/publishers/google/models/…` alike
// ("tunedModels/{model}:{method}" for a tuned model); "" for another path.
// The query is not read.
std::string GeminiCallOfPath(std::string_view path);

// A non-streamed body: a GenerateContentResponse, an error body, or (a
// stream asked for without alt=sse) a JSON array of either.
CanonicalResult ReadGeminiBody(const Json& body);

class GeminiAccumulator final : public SurfaceAccumulator {
 public:
  void AddEvent(const SseEventView& event) override;
  void NoteComments(std::size_t count) override;
  CanonicalResult Finish() override;

  // Reads a whole non-streamed body (ReadGeminiBody); call instead of
  // AddEvent, then Finish.
  void ReadBody(const Json& body);

 private:
  struct Candidate {
    std::int64_t index = 0;
    std::vector<OutputItem> items;
    Json parts = Json::array();  // a candidate other than the first: its parts as sent
    std::optional<std::string> finish;
    std::size_t finish_event = 0;  // the event its finishReason came in (0: a body)
    std::size_t finish_chunk = 0;  // the chunk it came in (chunks_ then; 0: none yet)
  };

  // One GenerateContentResponse (or error object) as event `event` (0: a
  // body), its pointers prefixed with `prefix` ("/3" for an array's element).
  void ReadChunk(const Json& data, std::size_t event, const std::string& prefix);
  void Report(std::string_view rule, std::size_t event, const std::string& pointer,
              std::string message);
  void ReadCandidate(const Json& c, std::size_t position, std::size_t event, const std::string& at,
                     std::set<std::int64_t>& seen);
  void ReadPart(Candidate& c, const Json& part, std::size_t event, const std::string& at);
  void ReadError(const Json& error, std::size_t event, const std::string& at);
  void NoteOther(std::string name);

  CanonicalResult out_{.surface = Surface::kGemini};
  std::map<std::int64_t, Candidate> candidates_;  // by index, at most kMaxCandidates
  std::int64_t first_ = -1;                       // the index of the first candidate read
  std::map<std::string, std::size_t, std::less<>> repeats_;   // rule -> further breaks
  std::map<std::string, std::size_t, std::less<>> reported_;  // rule -> its finding
  std::set<std::string, std::less<>> other_seen_;
  std::size_t other_dropped_ = 0;
  std::size_t end_event_ = 0;    // the event that finished the last candidate, or the error's
  bool last_had_usage_ = false;  // the last event read carried usageMetadata
  std::size_t chunks_ = 0;       // GenerateContentResponses read
  std::size_t last_event_ = 0;   // the event the last chunk came in
  bool blocked_ = false;         // promptFeedback.blockReason: no candidate is due
  bool body_ = false;            // reading a body: findings are placed by pointer alone
};

}  // namespace llmconform::wire
