// Provider dialects on replay: a canonical reply of one API surface (a JSON
// body or an SSE stream, as recorded from the surface's own provider: OpenAI
// for Chat Completions and the Responses API, Anthropic for Messages, Google's
// Developer API for Gemini) rewritten into the wire shape of another server
// speaking that surface.
//
// A dialect is data: a name, its surface and an ordered list of deviations of
// the catalogue (specs/wire/dialects.json, "dialects"; each deviation names
// its surface too), each with parameters. The dialects live in the same file
// under "providers":
//   {"name": "deepseek", "surface": "chat", "about": "…",
//    "deviations": [{"id": "DIA-REASONING-CONTENT", "params": {"text": "…"}}, …],
//    "not_reproduced": {"DIA-…": "why the recorded provider shows it but replay does not"}}
// and are compiled into mockllm (the file is read at build time), so the
// program needs no data files at run time.
//
// A dialect rewrites only replies of its own surface: a reply of another
// surface (the `deepseek` dialect on a /v1/messages exchange) is returned
// unchanged, byte for byte, and the server's journal entry says so
// (FindingKind::kDialectOtherSurface). Each surface's canonical dialect
// (CanonicalDialect) has no deviation.
//
// Each deviation is one rewrite, applied in the listed order; the
// deviations with a rewrite, and their parameters, are listed by
// RewritableDeviations(). A rewrite only touches what its deviation is
// about (a tool-call rewrite leaves a text-only reply alone), and a reply
// no step changes is returned unchanged, byte for byte with its recorded
// chunking and timing. A changed stream is written one chunk per event, each
// event at the recorded time of its last byte (inserted events at the time
// of their neighbour). Rewriting is deterministic: the same reply and
// dialect always give the same bytes (padding is derived from a hash of the
// chunk, not from randomness).
//
// Faults (mockllm/fault.h) and --speed apply on top: the server plans the
// rewritten reply exactly as it plans a recorded one.
//
// A stream is rewritten on its SSE events as protocols/wire/sse_blocks.h
// frames them (field names compared exactly, a BOM kept first). The parts:
// mockllm/dialect/stream_events.h (the event list), mockllm/dialect/rewrites.h
// (each deviation's stream and body rewrite and the table of them), and
// mockllm/dialect/catalogue.cpp (reading the dialects).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/replay_plan.h"
#include "mockllm/trace.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {

struct DialectStep {
  std::string id;                  // "DIA-REASONING-CONTENT"
  OJson params = OJson::object();  // the deviation's parameters (defaults filled in)
};

struct Dialect {
  std::string name;                              // "deepseek"
  wire::Surface surface = wire::Surface::kChat;  // the replies it rewrites
  std::string about;
  std::vector<DialectStep> steps;
  // Deviations the real provider's recordings show that replay leaves out,
  // with the reason (id -> reason).
  OJson not_reproduced = OJson::object();

  // The step ids, in order.
  std::vector<std::string> Ids() const;
};

// A deviation replay can produce, with its parameters and their defaults.
struct RewritableDeviation {
  std::string_view id;
  std::string_view what;        // what the rewrite does
  std::string_view params_doc;  // "" when it takes none
};
const std::vector<RewritableDeviation>& RewritableDeviations();

// Parses the "providers" member of a dialect catalogue text. Errors are
// located ("dialects.json:120:9: /providers/3/deviations/0/id: no rewrite for
// DIA-NAMED-EVENT") and cover: unknown ids, a deviation without a rewrite,
// unknown or mistyped parameters, duplicate names, a missing or unknown
// "surface" (on a provider or a deviation of "dialects"), and a deviation of
// another surface than its dialect's.
std::expected<std::vector<Dialect>, Error> ParseDialects(std::string_view text,
                                                         std::string_view name);

// The dialects built into mockllm (specs/wire/dialects.json at build time),
// sorted by name.
const std::vector<Dialect>& BuiltinDialects();
// The built-in dialect called `name`, or null.
const Dialect* FindDialect(std::string_view name);
// "azure, deepseek, …": the built-in names, for messages.
std::string DialectNames();
// The built-in dialects of `surface`, sorted by name (its canonical one among them).
std::vector<const Dialect*> DialectsOf(wire::Surface surface);
// The name of `surface`'s canonical dialect, the surface's provider itself
// with no deviation: "openai" (chat), "openai-responses", "anthropic"
// (messages), "gemini-api" (gemini).
std::string_view CanonicalDialectName(wire::Surface surface);
// The built-in canonical dialect of `surface` (never null for the built-in catalogue).
const Dialect* CanonicalDialect(wire::Surface surface);
// The surface of a recorded exchange, by its request path (a path of no
// known surface counts as Chat Completions, as replay has always treated it).
wire::Surface ExchangeSurface(const Exchange& x);

// The reply `canonical`, a reply of `surface`, as `dialect` would send it;
// `canonical` itself when the dialect is of another surface.
// `stream_requested`: the request asked for a stream (an error answer to a
// streamed request is what DIA-ERROR-IN-STREAM turns into a 200 stream).
RecordedResponse RewriteResponse(const RecordedResponse& canonical, const Dialect& dialect,
                                 bool stream_requested, wire::Surface surface);

// The ids of `dialect`'s steps that change at least one of `exchanges`'
// replies, in step order: step i is listed when the reply rewritten by
// steps 0..i differs from the one rewritten by steps 0..i-1. What a failing
// `run --dialects` scenario reports as the deviations that could have broken
// it (reports/matrix_reporter.h).
std::vector<std::string> DeviationsApplied(const std::vector<Exchange>& exchanges,
                                           const Dialect& dialect);

// What replay writes for exchange `x` in `dialect`: its response rewritten,
// then planned with `fault` (the fault object the replay book applies; it was
// validated when the trace loaded) and `seed`. A fault that answers with an
// HTTP error is rewritten too: the injected error is the reply the dialect
// reshapes (Gemini's error array, OpenRouter's 200), and the rest of the
// fault (delays, cuts, …) applies on top.
ResponsePlan PlanDialectResponse(const Exchange& x, const Dialect& dialect, const OJson& fault,
                                 std::uint64_t seed);

// True when the recorded request asks for a stream: its body has
// "stream": true, or (Gemini, which has no such member) its path is a
// :streamGenerateContent.
bool RequestStreams(const RecordedRequest& request);

}  // namespace llmconform::mockllm
