// The loaded traces and the replay sessions: which recorded response answers
// a request, and what goes wrong when none does. Thread-safe.
//
// Pinned replay (a request names its trace): a session per (trace, session
// name); the Nth request of a session is compared with the Nth exchange and,
// when it matches, answered with the Nth response. Strict: a mismatch is
// answered with a `mockllm_request_mismatch` error; lenient: the response is
// replayed anyway and the mismatch is a finding. Past the last exchange:
// `mockllm_trace_exhausted`. Either way the request uses up its position.
//
// Unpinned replay (plain /v1/…): the request is compared with every exchange
// of every trace; the first equal one answers, as often as asked.
//
// Finding kinds (Finding::rule): request_mismatch, trace_exhausted, no_match,
// unknown_trace (plus malformed_request and client_disconnected from the server).
#pragma once

#include <cstdint>
#include <expected>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/canonical.h"
#include "mockllm/replay_plan.h"
#include "mockllm/trace.h"

namespace mockllm {

struct ReplayOptions {
  bool strict = true;
  std::vector<std::string> ignore_paths;  // JSON pointers, `*` for any key or index
  OJson fault = OJson::object();          // applied to every response, under each exchange's own
  std::uint64_t seed = 0;                 // for faults that need randomness
  std::size_t max_sessions = 10000;       // sessions kept; past it the least recently used go
};

// What to answer one request with.
struct Verdict {
  int status = 200;
  std::optional<std::size_t> trace;     // index into traces()
  std::optional<std::size_t> exchange;  // index into that trace's exchanges
  const ResponsePlan* plan = nullptr;   // the response to replay, or null…
  Json error_body;                      // …and then this error is the answer
  llmconform::Findings findings;
  const OJson* fault = nullptr;  // the fault applied (an empty object when none)
};

class ReplayBook {
 public:
  // Errors: a bad ignore path, an invalid fault.
  static std::expected<std::unique_ptr<ReplayBook>, Error> Build(std::vector<Trace> traces,
                                                                 const ReplayOptions& options);

  const std::vector<Trace>& traces() const { return traces_; }
  // The index of the trace with this id.
  std::optional<std::size_t> FindTrace(std::string_view id) const;
  // Model names in the given trace (or all traces), sorted, unique: the
  // header's `model` and every request body's `model`.
  std::vector<std::string> Models(std::optional<std::size_t> trace) const;

  Verdict ReplayPinned(std::size_t trace, const std::string& session, std::string_view method,
                       std::string_view path, const Json& body);
  Verdict ReplayUnpinned(std::string_view method, std::string_view path, const Json& body) const;

  // [{"trace","session","cursor","exchanges","unused":[indices]}] for every
  // session, and {"session":null,…} for each trace no session has used.
  Json Sessions() const;
  // Forgets every session.
  void Reset();
  // Sessions held now, and sessions forgotten because max_sessions was
  // reached (least recently used first; a forgotten session starts again at
  // its trace's first exchange).
  std::size_t SessionCount() const;
  std::uint64_t SessionsEvicted() const;

 private:
  struct Loaded {
    Json canonical_body;  // the recorded body, ignored paths removed
    ResponsePlan plan;
    OJson fault;
  };
  using SessionKey = std::pair<std::size_t, std::string>;
  struct Session {
    std::size_t cursor = 0;
    std::vector<bool> served;
    std::list<SessionKey>::iterator lru;  // its place in lru_
  };
  // The session `key`, created if new (evicting the least recently used
  // past max_sessions) and made the most recent. Needs mu_.
  Session& TouchSession(const SessionKey& key);
  // Marks exchange x of session `key` served, if the session is still held.
  void MarkServed(const SessionKey& key, std::size_t x);

  ReplayBook() = default;
  // The first difference between the request and exchange `x` of trace `t`
  // ("" pointer with the request lines when method or path differ).
  std::optional<Difference> Compare(std::size_t t, std::size_t x, std::string_view method,
                                    std::string_view path, const Json& canonical) const;
  Verdict Replay(std::size_t t, std::size_t x) const;

  std::vector<Trace> traces_;
  std::vector<std::vector<Loaded>> loaded_;
  ReplayOptions options_;
  IgnorePaths ignore_;
  mutable std::mutex mu_;
  std::map<SessionKey, Session> sessions_;
  std::list<SessionKey> lru_;  // most recently used first
  std::uint64_t sessions_evicted_ = 0;
};

}  // namespace mockllm
