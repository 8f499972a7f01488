#include "mockllm/metrics.h"

#include <algorithm>

#include "base/format.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

// The fault keys that are kinds of fault; the others modify one.
constexpr std::array<std::string_view, 12> kFaultKinds = {
    "status",    "delay_ms",        "cut_after_bytes", "cut_after_events",
    "drop_done", "malformed_event", "resplit",         "crlf",
    "bom",       "keepalive_ms",    "error_event",     "stall_ms"};

// A label value as the format quotes it: \ " and newline escaped.
std::string Quoted(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A float as the format writes it (Go's strconv 'g' would do; %.17g round-trips).
std::string Number(double v) { return Format("{}", v); }

void Family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += Format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string_view MetricsRoute(std::string_view path) {
  if (path.starts_with("/t/")) return "pinned";
  if (path.ends_with("/v1/models")) return "models";
  if (path.starts_with("/v1/") || path == "/v1") return "unpinned";
  return "other";
}

std::string_view MetricsOutcome(const JournalEntry& e) {
  if (e.proxied) return "proxied";
  if (e.replayed) return e.fault && !e.fault->empty() ? "fault" : "replayed";
  for (const auto& f : e.findings) {
    if (IsUnmatched(f.kind)) return "unmatched";
  }
  return e.status >= 400 ? "refused" : "answered";
}

void Metrics::Histogram::Observe(double seconds) {
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++counts[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

void Metrics::Request(std::string_view path, std::string_view trace, int status,
                      std::string_view outcome) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  auto key = std::make_tuple(std::string(MetricsRoute(path)), std::string(trace), status,
                             std::string(outcome));
  auto it = requests_.find(key);
  if (it == requests_.end() && requests_.size() >= kMaxRequestSeries) {
    std::get<1>(key) = "(other)";
    it = requests_.find(key);
  }
  if (it == requests_.end()) it = requests_.emplace(std::move(key), 0).first;
  ++it->second;
}

void Metrics::Faults(const nlohmann::json& fault) {
  if (!enabled_ || !fault.is_object()) return;
  std::lock_guard lock(mu_);
  for (std::string_view kind : kFaultKinds) {
    const auto it = fault.find(kind);
    if (it == fault.end() || it->is_null() || (it->is_boolean() && !it->get<bool>())) continue;
    ++faults_[std::string(kind)];
  }
}

void Metrics::ReplayStarted(std::uint64_t seq) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (in_flight_.size() < kMaxInFlight) in_flight_[seq] = InFlight{Clock::now(), false};
}

void Metrics::FirstByte(std::uint64_t seq) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  const auto it = in_flight_.find(seq);
  if (it == in_flight_.end() || it->second.first_byte) return;
  it->second.first_byte = true;
  first_byte_.Observe(std::chrono::duration<double>(Clock::now() - it->second.start).count());
}

void Metrics::ReplayEnded(std::uint64_t seq) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  const auto it = in_flight_.find(seq);
  if (it == in_flight_.end()) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
  if (!it->second.first_byte) first_byte_.Observe(seconds);  // it all left at once
  duration_.Observe(seconds);
  in_flight_.erase(it);
}

std::string Metrics::Render(const MetricsGauges& g) const {
  std::string out;
  std::lock_guard lock(mu_);
  Family(out, "mockllm_requests_total", "counter",
         "Requests journaled, by route, answering trace, HTTP status and outcome.");
  for (const auto& [key, n] : requests_) {
    const auto& [route, trace, status, outcome] = key;
    out += Format("mockllm_requests_total{{route={},trace={},status=\"{}\",outcome={}}} {}\n",
                  Quoted(route), Quoted(trace), status, Quoted(outcome), n);
  }
  const auto histogram = [&](std::string_view name, std::string_view help, const Histogram& h) {
    Family(out, name, "histogram", help);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.counts[i];
      out += Format("{}_bucket{{le=\"{}\"}} {}\n", name, Number(kBuckets[i]), cumulative);
    }
    out += Format("{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, h.count, name,
                  Number(h.sum), name, h.count);
  };
  histogram("mockllm_replay_duration_seconds",
            "Replayed answers, from their journal entry to their last byte.", duration_);
  histogram("mockllm_replay_first_byte_seconds",
            "Replayed answers, from their journal entry to their first byte.", first_byte_);
  Family(out, "mockllm_sent_bytes_total", "counter", "Replayed body bytes handed to connections.");
  out += Format("mockllm_sent_bytes_total {}\n", sent_bytes_.load(std::memory_order_relaxed));
  Family(out, "mockllm_faults_injected_total", "counter", "Faults applied to answers, by kind.");
  for (const auto& [kind, n] : faults_)
    out += Format("mockllm_faults_injected_total{{kind={}}} {}\n", Quoted(kind), n);
  const auto single = [&](std::string_view name, std::string_view type, std::string_view help,
                          std::uint64_t v) {
    Family(out, name, type, help);
    out += Format("{} {}\n", name, v);
  };
  single("mockllm_sessions", "gauge", "Replay sessions held.", g.sessions);
  single("mockllm_sessions_evicted_total", "counter",
         "Sessions forgotten for --max-sessions (least recently used first).", g.sessions_evicted);
  single("mockllm_journal_entries", "gauge", "Journal entries held.", g.journal_entries);
  single("mockllm_journal_dropped_total", "counter",
         "Journal entries dropped for --journal-limit or --journal-max-bytes.", g.journal_dropped);
  single("mockllm_connections_open", "gauge", "Connections open.", g.connections_open);
  single("mockllm_connections_refused_total", "counter",
         "Connections refused (503) for --max-connections.", g.connections_refused);
  return out;
}

}  // namespace llmconform::mockllm
