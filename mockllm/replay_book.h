// The loaded traces and the replay sessions: which recorded response answers
// a request, and what goes wrong when none does. Thread-safe; traces can be
// added and removed while requests are served (a response being written keeps
// its trace alive).
//
// Before comparing, both the recorded and the incoming request body go through
// the same steps: secrets redacted as the recorder redacts them (a recorded
// exchange replays to the client that made it), ignored paths removed and, in
// `sdk` matching, the API's default values removed (mockllm/sdk_match.h).
//
// Pinned replay (a request names its trace): a session per (trace, session
// name); the Nth request of a session is compared with the Nth exchange and,
// when it matches, answered with the Nth response. Strict: a mismatch is
// answered with a `mockllm_request_mismatch` error naming every differing
// pointer; lenient: the response is replayed anyway and the mismatch is a
// finding. Past the last exchange: `mockllm_trace_exhausted`. Either way the
// request uses up its position.
//
// Retries (docs/mockllm.md, "Retries"): when a session's previous request was
// answered with an injected fault (the --fault or the exchange's `fault`
// object) and the next request repeats it, the repeat is another attempt at
// the same exchange, not the session's next request, unless the next
// recorded exchange matches it too (a recorded retry replays in order). A
// fault with {"times": N} applies to the first N attempts of an exchange only.
//
// Unpinned replay (plain /v1/…): the request is compared with every exchange
// of every trace; the first equal one answers, as often as asked. Attempts
// are counted per (exchange, session) for `times`. When none is equal, the
// error names the nearest one (fewest differing pointers) and its differences.
//
// Its findings (mockllm/journal_entry.h FindingKind): request_mismatch,
// trace_exhausted, no_match, unknown_trace.
#pragma once

#include <cstdint>
#include <expected>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "mockllm/canonical.h"
#include "mockllm/journal_entry.h"
#include "mockllm/replay_plan.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {

enum class MatchMode {
  kStrict,  // bodies equal as JSON values
  kSdk,     // and the API's default values treated as absent on both sides
};

struct ReplayOptions {
  bool strict = true;  // pinned: false replays a mismatched request anyway (lenient)
  MatchMode pinned_match = MatchMode::kStrict;
  MatchMode unpinned_match = MatchMode::kSdk;
  std::vector<std::string> ignore_paths;  // JSON pointers, `*` for any key or index
  OJson fault = OJson::object();          // applied to every response, under each exchange's own
  std::uint64_t seed = 0;                 // for faults that need randomness
  std::size_t max_sessions = 10000;       // sessions kept; past it the least recently used go
};

// One exchange as replay uses it.
struct LoadedExchange {
  Json strict_body;    // the recorded body, redacted, ignored paths removed
  Json sdk_body;       // the same with the API's defaults removed
  ResponsePlan plan;   // the response with its fault
  ResponsePlan clean;  // the response without it (a `times` fault past its attempts)
  OJson fault;         // the fault object (--fault merged under the exchange's)
  bool faulted = false;
  std::optional<std::int64_t> times;
  std::uint64_t seed = 0;  // the seed its plans were made with
  // The Responses API: the id of the recorded response ("" when none).
  std::string response_id;
};

struct LoadedTrace {
  Trace trace;
  std::vector<LoadedExchange> exchanges;
  // previous_response_ids its requests name that none of its responses
  // carries: the recording begins mid-chain (mockllm/response_chain.h).
  std::vector<std::string> outside_ids;
};

// What to answer one request with.
struct Verdict {
  int status = 200;
  std::optional<std::string> trace;         // the trace's id
  std::optional<std::size_t> exchange;      // index into that trace's exchanges
  std::shared_ptr<const LoadedTrace> keep;  // holds `plan` and `fault`
  const ResponsePlan* plan = nullptr;       // the response to replay, or null…
  Json error_body;                          // …and then this error is the answer
  std::vector<JournalFinding> findings;
  const OJson* fault = nullptr;  // the fault applied (an empty object when none)
  std::size_t attempt = 1;       // attempts at this exchange in this session, this one included
  bool retry = false;            // a repeat after an injected fault, answered by the same exchange
  // No match: {"trace","exchange","line","differences":[{"pointer","expected","actual"}]}
  // of the nearest recorded request; null when nothing shares the method and path.
  Json nearest;
  bool mismatch = false;  // the request matched nothing it was compared with
};

// The most JSON values one search for the nearest recorded request walks, in
// all the exchanges it compares (each only as far as it could still be the
// nearest). Past it the search stops: the nearest found so far is named, and
// the message (and "nearest": {"searched": N}) says how many were compared.
inline constexpr std::size_t kNearestBudget = std::size_t{1} << 20;

// What an error answer or the journal quotes at most of one thing the
// request sent (a value, a pointer, a header, a name): a longer string is cut
// (CapText), and a larger object or array is quoted as its JSON text, cut, so
// a huge request is never echoed back.
inline constexpr std::size_t kMaxQuotedBytes = 1024;
Json QuotedValue(const Json& value);
// {"pointer","expected","actual"} objects (a side absent: no key), each
// pointer and value quoted within kMaxQuotedBytes.
Json DifferencesJson(const std::vector<Difference>& differences);
// "/a: expected 1, got 2; /b: missing, expected true".
std::string DescribeDifferences(const std::vector<Difference>& differences);

class ReplayBook {
 public:
  // Errors: a bad ignore path, an invalid fault, a trace id loaded twice.
  static std::expected<std::unique_ptr<ReplayBook>, Error> Build(std::vector<Trace> traces,
                                                                 const ReplayOptions& options);

  // Loads more traces; returns warnings (identical requests in two traces).
  // Errors (nothing is loaded then): an id already loaded, an invalid fault.
  std::expected<std::vector<std::string>, Error> Add(std::vector<Trace> traces);
  // Unloads a trace and forgets its sessions; false when no trace has the id.
  bool Remove(std::string_view id);

  std::vector<std::string> TraceIds() const;
  bool HasTrace(std::string_view id) const;
  // Model names in the given trace (or all traces), sorted, unique: the
  // header's `model` and every request body's `model`.
  std::vector<std::string> Models(const std::optional<std::string>& trace) const;
  // Some trace records a request with this method and path.
  bool KnownPath(std::string_view method, std::string_view path) const;

  // Replays the answer to a request. `body` must already have its secrets
  // redacted (RedactSecrets), as the server does when a request arrives, so it
  // compares with the recorded bodies, which are redacted when loaded.
  Verdict ReplayPinned(const std::string& trace, const std::string& session,
                       std::string_view method, std::string_view path, const Json& body);
  Verdict ReplayUnpinned(std::string_view method, std::string_view path, const Json& body,
                         const std::string& session = "default");
  // ReplayUnpinned in two steps. MatchUnpinned: the exchange that records
  // the request, found by hash (cheap: it does not grow with the traces), or
  // nullopt. NoMatchUnpinned: the 404 naming the nearest recorded request,
  // whose search does grow with the traces (bounded by kNearestBudget): the
  // server runs it on a worker, never on an I/O thread.
  std::optional<Verdict> MatchUnpinned(std::string_view method, std::string_view path,
                                       const Json& body, const std::string& session = "default");
  Verdict NoMatchUnpinned(std::string_view method, std::string_view path, const Json& body) const;

  // [{"trace","session","cursor","exchanges","unused":[indices],"touched":true}]
  // for every session, {"trace","session":null,"unpinned":true,…} for the
  // exchanges of a trace answered on unpinned routes, and
  // {"trace","session":null,"touched":false,…} for each trace nothing used.
  Json Sessions() const;
  // Where a walk through the rows of Sessions() stands (its order: traces in
  // load order; for each, its sessions by name, its unpinned row, its
  // untouched row). A walk while traces come and go may skip or repeat one.
  struct SessionsCursor {
    std::size_t trace = 0;             // index in load order
    int part = 0;                      // 0: sessions, 1: unpinned row, 2: untouched row
    std::optional<std::string> after;  // part 0: the last session listed
    bool touched = false;              // a row of this trace was listed
  };
  // The next at most `limit` rows of Sessions() from `cursor`, which moves
  // past them; empty at the end. A large book is listed page by page,
  // never built whole.
  Json SessionsPage(SessionsCursor& cursor, std::size_t limit) const;
  // Forgets every session and the response ids replayed.
  void Reset();

  // previous_response_id chains (the Responses API; mockllm/response_chain.h):
  // the id a Responses request's `previous_response_id` names when the API
  // would not know it: no response replayed since the start or the last
  // Reset carried it, and no loaded trace names it as the response its
  // recording begins after (LoadedTrace::outside_ids). nullopt otherwise,
  // and for other surfaces.
  std::optional<std::string> UnknownPreviousResponse(std::string_view path, const Json& body) const;
  // Remembers the id of the recorded response `v` replays (a 2xx answer).
  void NoteReplayed(const Verdict& v);
  // Warnings found while loading: two traces holding identical requests.
  std::vector<std::string> Warnings() const;
  // Sessions held now, and sessions forgotten because max_sessions was
  // reached (least recently used first; a forgotten session starts again at
  // its trace's first exchange). A session counting unpinned attempts for a
  // `times` fault is held and counted too.
  std::size_t SessionCount() const;
  std::uint64_t SessionsEvicted() const;

 private:
  using Traces = std::vector<std::shared_ptr<const LoadedTrace>>;
  // The loaded traces and the lookups made when they change (Add, Remove).
  struct Catalog {
    Traces traces;                                       // in load order
    std::unordered_map<std::string, std::size_t> by_id;  // trace id → index in traces
    // CanonicalHash of each recorded body as unpinned replay compares it →
    // (trace index, exchange), in load order: a request finds its candidates
    // at once instead of being compared with every exchange.
    std::unordered_map<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>> by_body;
    // Rebuilds by_id and by_body from `traces`.
    void Index(MatchMode unpinned);
  };
  using SessionKey = std::pair<std::string, std::string>;  // (trace id, session)
  struct Session {
    std::size_t cursor = 0;
    std::vector<bool> served;
    std::map<std::size_t, std::int64_t> attempts;  // of faulted exchanges only
    struct Last {
      std::size_t exchange;
      // A hash of the method, path and body as compared (its compact JSON):
      // a session keeps a few bytes, not the request.
      std::uint64_t request;
    };
    std::optional<Last> last_faulted;     // the previous request, when a fault answered it
    std::list<SessionKey>::iterator lru;  // its place in lru_
  };
  // The session `key`, created if new (evicting the least recently used
  // past max_sessions) and made the most recent. Needs mu_.
  Session& TouchSession(const SessionKey& key);

  ReplayBook() = default;
  std::expected<std::shared_ptr<const LoadedTrace>, Error> Load(Trace trace) const;
  std::shared_ptr<const Catalog> Snapshot() const;
  // The body as compared in `mode`: ignored paths removed, the defaults of
  // the API surface of `path` removed (secrets are redacted before:
  // RedactSecrets).
  Json Canonical(Json body, MatchMode mode, std::string_view path) const;
  // The same without a copy when nothing would change: `body` itself, or the
  // canonical copy put in `holder` (the result lives as long as both).
  const Json& CanonicalOf(const Json& body, MatchMode mode, std::string_view path,
                          Json& holder) const;
  // The recorded body of `x` as compared in `mode`.
  static const Json& Recorded(const LoadedExchange& x, MatchMode mode);
  // Differences between the request and exchange `x` (one with the "" pointer
  // and the request lines when method or path differ).
  static std::vector<Difference> Compare(const LoadedTrace& t, std::size_t x,
                                         std::string_view method, std::string_view path,
                                         const Json& canonical, MatchMode mode,
                                         std::size_t limit = kMaxDifferences);
  static Verdict Replay(const std::shared_ptr<const LoadedTrace>& t, std::size_t x,
                        std::int64_t attempt);
  // Identical requests in `added` and in the catalog before it or in each other.
  std::vector<std::string> DuplicateWarnings(const Traces& before, const Traces& added) const;

  ReplayOptions options_;
  IgnorePaths ignore_;
  mutable std::mutex mu_;
  std::shared_ptr<const Catalog> catalog_;
  std::vector<std::string> warnings_;
  std::map<SessionKey, Session> sessions_;
  std::list<SessionKey> lru_;  // most recently used first
  std::uint64_t sessions_evicted_ = 0;
  std::map<std::string, std::vector<bool>> unpinned_served_;  // by trace id
  // Ids of recorded responses replayed (so at most one per loaded exchange).
  std::set<std::string> replayed_ids_;
  // Attempts at unpinned exchanges with a `times` fault, by (trace id,
  // exchange, session); forgotten with the sessions (at most max_sessions
  // sessions' worth are kept).
  std::map<std::tuple<std::string, std::size_t, std::string>, std::int64_t> unpinned_attempts_;
};

}  // namespace llmconform::mockllm
