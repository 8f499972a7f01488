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
// Entries are kept typed (mockllm/journal_entry.h) and turned into JSON (the
// form documented in mockllm/server.h) only when read.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mockllm/journal_entry.h"

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
                  std::optional<JournalFinding> finding = std::nullopt);
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
