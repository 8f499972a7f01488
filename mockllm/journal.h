// The journal: what mockllm received and answered, one entry a request, in
// arrival order. Thread-safe. Bounded, so a long benchmark run or a hostile
// client keeps a flat memory profile: past `limit` entries, or past
// `max_bytes` of kept text, the oldest are dropped (and counted); no entry
// keeps more than kMaxKeptBytes of any text (a body that is not JSON, each
// string of a JSON body, a header value, a finding's message): longer text is
// cut at a UTF-8 boundary and ends with "… [N bytes in all]" (CapText); and a
// JSON body or a "nearest" is kept as JSON text of at most kMaxKeptBodyBytes
// (a longer one is kept as that text cut at kMaxKeptBytes, a string).
//
// Entries are kept typed and turned into JSON (the form documented in
// mockllm/server.h) only when read.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"

namespace llmconform::mockllm {

// What an entry keeps of one text at most: a header, the path, a message, a
// body that is not JSON, and each string inside a JSON body.
inline constexpr std::size_t kMaxKeptBytes = 64 * 1024;
// What an entry keeps of a JSON body (or of "nearest") at most, as compact
// JSON once its strings are capped; a larger one is kept as text, cut at
// kMaxKeptBytes.
inline constexpr std::size_t kMaxKeptBodyBytes = 1024 * 1024;
// The default bound on the text all held entries keep together.
inline constexpr std::size_t kDefaultJournalBytes = 64 * 1024 * 1024;

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
  bool body_cut = false;  // set by Journal::Append when the bounds cut the body
  int status = 0;
  std::optional<std::size_t> exchange;  // index of the replayed or compared exchange
  // For a replayed response:
  bool replayed = false;
  bool stream = false;
  std::size_t bytes = 0;
  bool cut = false;
  std::string outcome;                  // sending | complete | cut | client_disconnected | stopped
  std::optional<nlohmann::json> fault;  // when one applied
  llmconform::Findings findings;
  nlohmann::json nearest;              // no match: the nearest recorded request, else null
  std::string nearest_json;            // set by Journal::Append from `nearest` (then null)
  std::optional<std::string> proxied;  // forwarded by --proxy to this upstream
  std::optional<std::string> dialect;  // the reply was rewritten into this dialect

  // {"seq","session","trace","method","path","request":{"headers","body"[,"body_cut":true]},
  //  "response":{"status","exchange"[,"stream","bytes","cut","outcome"]},
  //  ["fault",] "findings":[{"rule","message"}] [,"nearest"] [,"proxied"] [,"dialect"]}
  nlohmann::json ToJson(std::uint64_t seq) const;
};

class Journal {
 public:
  // `limit`: entries held at most; `max_bytes`: the text they keep together
  // at most (the newest entry is always held); `whole_bodies`: JSON bodies
  // are kept whole, not cut (for judging a client's traffic by its bodies;
  // `max_bytes` still applies).
  explicit Journal(std::size_t limit, std::size_t max_bytes = kDefaultJournalBytes,
                   bool whole_bodies = false)
      : limit_(limit), max_bytes_(max_bytes), whole_bodies_(whole_bodies) {}

  // Stores `entry`; returns its seq (1, 2, …).
  std::uint64_t Append(JournalEntry entry);
  // Sets the outcome of the entry with `seq`, if still held, adding `finding`.
  void SetOutcome(std::uint64_t seq, std::string_view outcome,
                  std::optional<llmconform::Finding> finding = std::nullopt);
  // Every held entry, oldest first (as Page(0, all), "dropped_before" too).
  nlohmann::json Entries() const;
  // Up to `limit` held entries with a seq above `after`, oldest first: a page
  // of the journal (the admin route streams the journal page by page). When
  // the limits dropped entries the caller has not seen (seqs above `after`,
  // since the last Clear), the page's first entry says how many:
  // "dropped_before": N. A reader of the journal (llmconform judge) knows
  // from it that requests are missing.
  std::vector<nlohmann::json> Page(std::uint64_t after, std::size_t limit) const;
  // Drops every entry (seq keeps counting).
  void Clear();
  std::uint64_t total() const;    // entries ever appended
  std::size_t size() const;       // entries held
  std::uint64_t dropped() const;  // entries dropped for the entry limit or the byte budget
  // The bytes the held entries keep, as the byte budget counts them: their
  // texts and a fixed part each.
  std::size_t kept_bytes() const;

 private:
  // Drops the oldest entries (into `evicted`, to be freed outside the lock)
  // while the limit or the byte budget is passed, keeping the newest. Needs
  // mu_ held.
  void DropOverLimits(std::vector<JournalEntry>& evicted);

  mutable std::mutex mu_;
  std::size_t limit_;
  std::size_t max_bytes_;
  bool whole_bodies_;
  std::size_t kept_bytes_ = 0;  // KeptBytes of every held entry
  std::deque<JournalEntry> entries_;
  std::uint64_t first_seq_ = 1;    // seq of entries_.front()
  std::uint64_t cleared_seq_ = 1;  // the first seq after the last Clear
  std::uint64_t next_seq_ = 1;
  std::uint64_t dropped_ = 0;
};

}  // namespace llmconform::mockllm
