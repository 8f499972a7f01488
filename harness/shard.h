// Splitting a run into N shards for a CI job matrix: `--shard K/N` runs the
// K-th of N disjoint slices that together cover every selected scenario.
//
// With timings (scenario id → milliseconds, from a previous report.json) the
// slices are balanced by duration: scenarios are taken longest first (ties by
// id) and each goes to the shard with the least total so far (ties: the lowest
// shard), the LPT rule. A scenario the timings do not know counts as the mean
// of the known ones. Without timings, scenarios are ordered by a 64-bit FNV-1a
// hash of their id (ties by id) and dealt round-robin, so shard sizes differ
// by at most one and a scenario's shard does not depend on the machine.
// Either way the result depends only on the ids (and timings), never on the
// order they are given in; each slice keeps the order of the input.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/hash.h"
#include "harness/suite.h"

namespace llmconform::harness {

struct Shard {
  int index = 1;  // K, 1-based
  int count = 1;  // N
  friend bool operator==(const Shard&, const Shard&) = default;
};

// Parses "K/N" with 1 <= K <= N <= 10000. Error: `--shard '3/2': expected
// K/N with 1 <= K <= N (e.g. 1/4)`.
std::expected<Shard, Error> ParseShard(std::string_view text);
std::string FormatShard(const Shard& shard);  // "K/N"

using Timings = std::map<std::string, double>;  // "<protocol>/<name>" → ms

// The scenario durations of a report.json (llmconform-report/1). Errors are
// located as ReportFromJson's, prefixed with the file name.
std::expected<Timings, Error> LoadTimings(const std::filesystem::path& report);

// Which shard (0-based) each id goes to, by the rules above; ids must be unique.
std::vector<int> AssignShards(const std::vector<std::string>& ids, int shard_count,
                              const Timings& timings);

// The scenarios of `shard`, in input order.
std::vector<const Scenario*> SelectShard(const std::vector<const Scenario*>& scenarios,
                                         const Shard& shard, const Timings& timings);

// The shard a scenario falls in without --timings: Fnv1a64 (base/hash.h) of its id.
using ::llmconform::Fnv1a64;

}  // namespace llmconform::harness
