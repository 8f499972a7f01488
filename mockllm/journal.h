// The journal: what mockllm received and answered, one entry a request, in
// arrival order. Thread-safe. Bounded: past `limit` entries the oldest are
// dropped (and counted), so a long benchmark run keeps a flat memory profile.
//
// An entry (see mockllm/server.h for the fields) gets its `seq` (1, 2, …) when
// appended and may be amended later by seq (a stream's outcome is known only
// when it ends).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>

namespace mockllm {

class Journal {
 public:
  explicit Journal(std::size_t limit) : limit_(limit) {}

  // Stores `entry` with "seq" set; returns the seq.
  std::uint64_t Append(nlohmann::json entry);
  // Calls `edit` on the entry with `seq` if it is still held.
  void Amend(std::uint64_t seq, const std::function<void(nlohmann::json&)>& edit);
  // Every held entry, oldest first.
  nlohmann::json Entries() const;
  // Drops every entry (seq keeps counting).
  void Clear();
  std::uint64_t total() const;    // entries ever appended
  std::uint64_t dropped() const;  // entries dropped for the limit

 private:
  mutable std::mutex mu_;
  std::size_t limit_;
  std::deque<nlohmann::json> entries_;
  std::uint64_t first_seq_ = 1;  // seq of entries_.front()
  std::uint64_t next_seq_ = 1;
  std::uint64_t dropped_ = 0;
};

}  // namespace mockllm
