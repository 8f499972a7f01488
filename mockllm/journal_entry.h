// One journal entry: what mockllm received and answered for one request, with
// the findings it made about it. Its JSON form (documented in mockllm/server.h)
// is written by JournalEntry::ToJson and read by JournalRecordFromJson, here
// and nowhere else: mockllm's admin API and --journal file, `llmconform
// judge` on a journal captured elsewhere, and the harness's view of the
// requests a client sent (harness/requests_sent.h) all go through them.
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json_fields.h"

namespace llmconform::mockllm {

// What mockllm found wrong with a request (a finding's "rule" in JSON).
enum class FindingKind {
  kRequestMismatch,     // request_mismatch: a pinned request differs from the recorded one
  kTraceExhausted,      // trace_exhausted: a pinned request came after the trace's last exchange
  kNoMatch,             // no_match: an unpinned request equals no recorded one
  kUnknownTrace,        // unknown_trace: a pinned route names no loaded trace
  kMalformedRequest,    // malformed_request: not JSON, a wrong content type, a bad header…
  kAdminRequest,        // admin_request: a request to the admin API while it is closed
  kProxyFailed,         // proxy_failed: --proxy could not reach the upstream
  kClientDisconnected,  // client_disconnected: the client left before the reply was complete
  // dialect_other_surface: the request's dialect is of another API surface
  // than the exchange (`--dialect deepseek` on /v1/messages); the reply was
  // sent as recorded, untouched.
  kDialectOtherSurface,
};

// Every kind, in the order above.
inline constexpr FindingKind kFindingKinds[] = {FindingKind::kRequestMismatch,
                                                FindingKind::kTraceExhausted,
                                                FindingKind::kNoMatch,
                                                FindingKind::kUnknownTrace,
                                                FindingKind::kMalformedRequest,
                                                FindingKind::kAdminRequest,
                                                FindingKind::kProxyFailed,
                                                FindingKind::kClientDisconnected,
                                                FindingKind::kDialectOtherSurface};

// The kind's name in JSON ("request_mismatch").
std::string_view FindingKindName(FindingKind kind);
// The kind of a name; nullopt for a name mockllm does not write.
std::optional<FindingKind> FindingKindFromName(std::string_view name);
// Every name, comma-separated, in the order of kFindingKinds (for --help and errors).
std::string FindingKindNames();
// The request matched no recorded exchange: request_mismatch, trace_exhausted,
// no_match, unknown_trace.
bool IsUnmatched(FindingKind kind);

struct JournalFinding {
  FindingKind kind = FindingKind::kMalformedRequest;
  std::string message;  // what was seen, in a sentence a person can act on

  friend bool operator==(const JournalFinding&, const JournalFinding&) = default;
};

struct JournalEntry {
  std::optional<std::string> session;  // pinned requests only
  std::optional<std::string> trace;
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names, secrets redacted
  nlohmann::json body;                                       // parsed JSON, the text, or null
  // Set by Journal::Append from an object or array `body` (then null): the
  // body as JSON text, parsed back by ToJson. A held entry is one block to
  // free when it is dropped, not one per value. A caller may set it beside
  // such a `body` to that body's exact JSON text (the request's own bytes,
  // when redaction changed nothing); Append keeps it when it is within
  // kMaxKeptBytes, which saves writing the body out again.
  std::string body_json;
  bool body_cut = false;                // set by Journal::Append when the bounds cut the body
  int status = 0;                       // 0: none was sent (an entry read without a response)
  std::optional<std::size_t> exchange;  // index of the replayed or compared exchange
  // For a replayed response (in JSON: the response has "outcome", "stream",
  // "bytes" or "cut"; ToJson writes all four):
  bool replayed = false;
  bool stream = false;
  std::size_t bytes = 0;
  bool cut = false;
  std::string outcome;                  // sending | complete | cut | client_disconnected | stopped
  std::optional<nlohmann::json> fault;  // when one applied
  std::vector<JournalFinding> findings;
  nlohmann::json nearest;              // no match: the nearest recorded request, else null
  std::string nearest_json;            // set by Journal::Append from `nearest` (then null)
  std::optional<std::string> proxied;  // forwarded by --proxy to this upstream
  std::optional<std::string> dialect;  // the reply was rewritten into this dialect
  // When mockllm journaled the request, in whole milliseconds since the
  // server started (a steady clock): as it answered, which for a replayed or
  // refused request is right after it arrived, and for a proxied one when
  // the upstream had answered. The difference between two entries is at
  // least the time the client let pass between them (a retry's wait).
  std::optional<std::int64_t> at_ms;

  // {"seq","session","trace","method","path","request":{"headers","body"[,"body_cut":true]},
  //  "response":{"status","exchange"[,"stream","bytes","cut","outcome"]},
  //  ["fault",] "findings":[{"rule","message"}] [,"nearest"] [,"proxied"] [,"dialect"]
  //  [,"at_ms"]}
  nlohmann::json ToJson(std::uint64_t seq) const;

  friend bool operator==(const JournalEntry&, const JournalEntry&) = default;
};

// An entry as the journal is read back: the entry with the numbers the
// journal gave it.
struct JournalRecord {
  std::optional<std::uint64_t> seq;
  // Set on the first entry of a page after a gap: the journal's limits
  // dropped this many older entries the reader had not seen (Journal::Page).
  std::optional<std::uint64_t> dropped_before;
  JournalEntry entry;  // its body and "nearest" as JSON values (body_json, nearest_json empty)
};

// Reads one entry of a journal (ToJson's form; `j` is the value at `at` in
// the document read). Every field may be absent (then it has its default)
// or null for "none"; one of the wrong type or range is an error naming it by
// its pointer, kind kInvalidInput: "/3/response/status: expected an HTTP
// status (100-599)", "/0/findings/1/rule: unknown finding \"x\" (mockllm
// writes request_mismatch, …)". Members it does not know are ignored (a
// reader annotates entries: harness/replies_sent.h). Never throws. The depth
// of `j` is bounded by the reader that parsed it (base/json_read.h).
std::expected<JournalRecord, Error> JournalRecordFromJson(const nlohmann::json& j,
                                                          const JsonPointer& at);

// Reads a journal as `mockllm serve --journal` or GET /__admin/journal
// writes it: a JSON array of entries, an object with "entries", or JSON
// Lines of entries (a UTF-8 byte order mark first is skipped). Each entry is
// what JournalRecordFromJson reads, with a "request" object. Returns the
// entries as they stand, members they do not model kept. Errors are
// kInvalidInput and located: "j.jsonl:3:12: entry 2: /request: expected
// object, got array", "j.json:1:37: /0/response/status: …", the parser's own
// (base/json_read.h: depth, UTF-8, numbers) for text that is not JSON.
std::expected<nlohmann::json, Error> ParseJournal(std::string_view name, std::string_view text);

}  // namespace llmconform::mockllm
