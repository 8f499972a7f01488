// `llmconform probe`: a fixed battery of requests of one API surface
// (`--api chat|responses|messages|gemini`, protocols/wire/surface.h) sent to a
// live endpoint, and that endpoint's row of the provider matrix: which client
// features work (pass / fail / unsupported) and which deviations from the
// surface's reference wire format it shows, each with its evidence.
//
// The battery's requests are exactly the recorded requests of
// fixtures/probe/*.trace.jsonl for Chat and fixtures/probe/SURFACE/ for the
// others (with the model replaced), so `mockllm serve --traces fixtures/probe
// [--dialect X]` is a stand-in endpoint (the folders hold different paths,
// so one server stands in for every surface). For Chat Deviations are found by the code of
// `llmconform dialect` (harness/dialect_cmd.h) run on the trace each exchange becomes; features are
// judged as a careful client reads the reply (protocols/wire: StreamAccumulator, ResponseFromJson,
// ErrorBodyFromJson), so a dialect the toolkit knows does not fail a feature, it shows a deviation.
// For the other surfaces the surface's own reader (AccumulateSurfaceStream, ReadSurfaceBody) judges
// the features, and its located contract findings (RESP-*, MSG-*, GEM-*) are deviations beside the
// DIA-* ids detection finds. docs/dialects.md "Probing a live endpoint" is the user's description.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "mockllm/trace.h"
#include "net/http_client.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/surface.h"

namespace llmconform::harness {

// One exchange's answer, kept as it arrived (status, headers, body pieces
// with their times) so that it can be judged and recorded as a trace.
struct ProbeReply {
  int status = 0;                                            // 0: no status line arrived
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::vector<mockllm::Chunk> pieces;  // the body as read, `t_ms` since the request was sent
  std::size_t joined_reads = 0;        // reads joined to the last piece (mockllm::AppendRead)
  std::optional<std::string> error;    // the exchange failed: "timed out after 2000 ms", …
  bool timed_out = false;
  long long ms = 0;  // how long the exchange took

  std::string Body() const;
  std::string Header(std::string_view lower) const;  // "" when absent
};

// POSTs `body` to `url` with `headers` through `http`. `timeout` is each of
// the three net::HttpTimeouts, so it bounds the whole exchange (connect, headers
// and body); a body larger than `max_body_bytes` is cut there and reported
// as an error. The status and headers are kept when the body then fails.
// Never throws.
ProbeReply ProbePost(net::HttpClient& http, const std::string& url,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     const std::string& body, std::chrono::milliseconds timeout,
                     std::size_t max_body_bytes = 16 * 1024 * 1024);

struct ProbeItem {
  std::string name;     // "plain": fixtures/probe/plain.trace.jsonl holds its canonical answer
  std::string feature;  // "plain-text"
  OJson body;           // the request body
  // The request asks for something an endpoint may refuse (tools, usage in a
  // stream, reasoning): a 400/422 answer makes the feature "unsupported".
  bool optional_params = false;
  wire::Surface surface = wire::Surface::kChat;
  bool stream = false;  // the request asks for an event stream
};

// The features, in report order: plain-text, streamed-text, usage, tool-call,
// parallel-tool-calls, streamed-tool-calls, reasoning, error-mapping.
const std::vector<std::string>& ProbeFeatures();

// The Chat Completions battery for `model`, in the order it is sent.
std::vector<ProbeItem> ProbeBattery(const std::string& model);
// The battery of `surface` (the same features and item names on every
// surface), as that surface's real clients send the requests.
std::vector<ProbeItem> ProbeBattery(wire::Surface surface, const std::string& model);

// Where `item` goes, appended to the base URL: "/chat/completions",
// "/responses", "/messages", "/models/MODEL:generateContent" or
// "/models/MODEL:streamGenerateContent?alt=sse".
std::string ProbeRequestPath(const ProbeItem& item, const std::string& model);
// The surface's version and key headers: `Authorization: Bearer KEY` (Chat,
// Responses), `x-api-key` and `anthropic-version` (Messages),
// `x-goog-api-key` (Gemini). No key header when `key` is empty.
std::vector<std::pair<std::string, std::string>> ProbeAuthHeaders(wire::Surface surface,
                                                                  const std::string& key);
// OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY.
std::string_view DefaultKeyEnv(wire::Surface surface);

enum class ProbeOutcome { kPass, kFail, kUnsupported, kNotProvoked };
std::string_view OutcomeName(ProbeOutcome o);  // "pass", "fail", "unsupported", "not-provoked"

struct ProbeItemResult {
  std::string name;
  std::string feature;
  ProbeOutcome outcome = ProbeOutcome::kFail;
  std::string detail;  // the evidence: which response, which field, what was seen
  int status = 0;      // 0: no answer
  bool streamed = false;
  long long ms = 0;
  std::vector<wire::Deviation> deviations;
};

// Judges `reply` to `item` (the reply's deviations already found, for
// reasoning blocks only the detector sees). Pure; never throws.
ProbeItemResult JudgeProbeReply(const ProbeItem& item, const ProbeReply& reply,
                                const std::vector<wire::Deviation>& deviations);

// A feature's result from its items: fail if one failed, else pass if one
// passed, else unsupported.
ProbeOutcome CombineOutcomes(const std::vector<ProbeOutcome>& items);

struct ProbeArgs {
  std::string base_url;
  std::string model;
  std::string api = "chat";  // --api: a wire::SurfaceName
  std::string api_key_env;   // empty: DefaultKeyEnv of the surface
  std::vector<std::string> features;
  std::string record_dir;
  std::string provider;
  std::string expect;  // a dialect name (--expect); empty: none
  double timeout_s = 60;
  bool json = false;
};
void SetupProbe(CLI::App& app, ProbeArgs& a);
// 0 every probed feature passed (or is unsupported) and, with `expect`, the
// DIA-* deviations seen are that dialect's; 1 a feature failed, or a deviation
// appeared or vanished against `expect`; 2 usage or input error (a bad URL,
// an unknown API, feature or dialect, a dialect of another surface, --expect
// with --features); 3 internal (a
// recording could not be written). The row is printed through
// reports/probe_row.h.
// Every request goes through `http`.
int RunProbe(const ProbeArgs& a, net::HttpClient& http = *net::RealHttpClient());

}  // namespace llmconform::harness
