// mockllm's Prometheus metrics (text exposition format 0.0.4), served at
// GET /__admin/metrics and, with `serve --metrics`, at GET /metrics:
//
//   mockllm_requests_total{route,trace,status,outcome}   counter
//     route: pinned | unpinned | models | other; trace: the loaded trace that
//     answered ("" when none); outcome: replayed | fault | unmatched |
//     refused | proxied | answered (the models list)
//   mockllm_replay_duration_seconds                      histogram: a replayed
//     answer, from its journal entry to its last byte (or its end)
//   mockllm_replay_first_byte_seconds                    histogram: … to its first byte
//   mockllm_sent_bytes_total                             counter: replayed body bytes
//                                                        handed to connections
//   mockllm_faults_injected_total{kind}                  counter: per fault key
//   mockllm_sessions / mockllm_sessions_evicted_total    gauge / counter
//   mockllm_journal_entries / mockllm_journal_dropped_total   gauge / counter
//   mockllm_connections_open / mockllm_connections_refused_total   gauge / counter
//
// Bounded: at most kMaxRequestSeries label sets for mockllm_requests_total
// (further ones count under trace="(other)"), and at most kMaxInFlight
// replays timed at once (further ones are counted but not timed).
// Thread safety: every method may be called from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "mockllm/journal.h"

namespace llmconform::mockllm {

// The values a render needs from outside the Metrics object.
struct MetricsGauges {
  std::uint64_t sessions = 0;
  std::uint64_t sessions_evicted = 0;
  std::uint64_t journal_entries = 0;
  std::uint64_t journal_dropped = 0;
  std::uint64_t connections_open = 0;
  std::uint64_t connections_refused = 0;
};

// The content type of the exposition format.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

class Metrics {
 public:
  // `enabled` false: every method below counts nothing and Render() is
  // never called (serve --no-metrics).
  explicit Metrics(bool enabled = true) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  static constexpr std::size_t kMaxRequestSeries = 10000;
  static constexpr std::size_t kMaxInFlight = 100000;
  // Upper bounds of the histograms' buckets, in seconds (+Inf is implied).
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                      0.25,  0.5,   1,    2.5,   5,    10};

  // A journaled request. `path` is the request's path (its route is read
  // from it), `trace` the answering trace ("" for none).
  void Request(std::string_view path, std::string_view trace, int status, std::string_view outcome);
  // The keys of a fault that applied to an answer, each counted as a kind
  // (modifiers such as times, body or retry_after are not kinds).
  void Faults(const nlohmann::json& fault);
  // A replay answer started (journal entry `seq`), wrote its first byte,
  // ended (first call only; later ones are ignored).
  void ReplayStarted(std::uint64_t seq);
  void FirstByte(std::uint64_t seq);
  void ReplayEnded(std::uint64_t seq);
  void BytesSent(std::uint64_t n) {
    if (enabled_) sent_bytes_.fetch_add(n, std::memory_order_relaxed);
  }

  // The whole exposition text.
  std::string Render(const MetricsGauges& gauges) const;

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> counts{};  // not cumulative
    std::uint64_t count = 0;
    double sum = 0;
    void Observe(double seconds);
  };
  struct InFlight {
    Clock::time_point start;
    bool first_byte = false;
  };

  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int, std::string>, std::uint64_t> requests_;
  std::map<std::string, std::uint64_t> faults_;
  std::unordered_map<std::uint64_t, InFlight> in_flight_;
  Histogram duration_;
  Histogram first_byte_;
  std::atomic<std::uint64_t> sent_bytes_{0};
};

// The route label of a request path: "pinned" (/t/…), "models" (…/v1/models),
// "unpinned" (/v1/…), "other".
std::string_view MetricsRoute(std::string_view path);

// The outcome label of a journal entry: proxied, fault (a replay a fault
// applied to), replayed, unmatched (a finding of no_match, request_mismatch,
// trace_exhausted or unknown_trace), refused (any other status of 400 or
// more), answered.
std::string_view MetricsOutcome(const JournalEntry& entry);

}  // namespace llmconform::mockllm
