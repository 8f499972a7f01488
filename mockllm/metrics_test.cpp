#include "mockllm/metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace llmconform::mockllm {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.starts_with(line + "\n");
}

TEST(MetricsRoute, NamesTheRouteOfAPath) {
  EXPECT_EQ(MetricsRoute("/t/demo%2Fchat/v1/chat/completions"), "pinned");
  EXPECT_EQ(MetricsRoute("/t/x/v1/models"), "pinned");
  EXPECT_EQ(MetricsRoute("/v1/models"), "models");
  EXPECT_EQ(MetricsRoute("/v1/chat/completions"), "unpinned");
  EXPECT_EQ(MetricsRoute("/nope"), "other");
}

TEST(MetricsOutcome, ClassifiesJournalEntries) {
  JournalEntry e;
  e.status = 200;
  EXPECT_EQ(MetricsOutcome(e), "answered");
  e.replayed = true;
  EXPECT_EQ(MetricsOutcome(e), "replayed");
  e.fault = nlohmann::json{{"status", 429}};
  EXPECT_EQ(MetricsOutcome(e), "fault");
  JournalEntry miss;
  miss.status = 400;
  miss.findings.push_back({FindingKind::kRequestMismatch, "differs"});
  EXPECT_EQ(MetricsOutcome(miss), "unmatched");
  JournalEntry bad;
  bad.status = 415;
  bad.findings.push_back({FindingKind::kMalformedRequest, "not JSON"});
  EXPECT_EQ(MetricsOutcome(bad), "refused");
  JournalEntry proxied;
  proxied.proxied = "https://upstream";
  EXPECT_EQ(MetricsOutcome(proxied), "proxied");
}

TEST(Metrics, RendersCountersWithEscapedLabels) {
  Metrics m;
  m.Request("/t/a/v1/chat/completions", "a\"b\\c\nd", 200, "replayed");
  m.Request("/t/a/v1/chat/completions", "a\"b\\c\nd", 200, "replayed");
  m.Request("/v1/chat/completions", "", 404, "unmatched");
  m.Faults(nlohmann::json{{"status", 429}, {"times", 1}, {"retry_after", 1}, {"drop_done", false}});
  m.Faults(nlohmann::json{{"status", 500}, {"stall_ms", 5}});
  m.BytesSent(10);
  m.BytesSent(5);
  const std::string text = m.Render({.sessions = 3,
                                     .sessions_evicted = 1,
                                     .journal_entries = 3,
                                     .journal_dropped = 0,
                                     .connections_open = 2,
                                     .connections_refused = 4});
  EXPECT_TRUE(text.starts_with("# HELP mockllm_requests_total "));
  EXPECT_TRUE(Has(text, "# TYPE mockllm_requests_total counter")) << text;
  EXPECT_TRUE(Has(text,
                  "mockllm_requests_total{route=\"pinned\",trace=\"a\\\"b\\\\c\\nd\","
                  "status=\"200\",outcome=\"replayed\"} 2"))
      << text;
  EXPECT_TRUE(Has(text,
                  "mockllm_requests_total{route=\"unpinned\",trace=\"\",status=\"404\","
                  "outcome=\"unmatched\"} 1"))
      << text;
  EXPECT_TRUE(Has(text, "mockllm_faults_injected_total{kind=\"status\"} 2")) << text;
  EXPECT_TRUE(Has(text, "mockllm_faults_injected_total{kind=\"stall_ms\"} 1")) << text;
  EXPECT_EQ(text.find("kind=\"times\""), std::string::npos);
  EXPECT_EQ(text.find("kind=\"drop_done\""), std::string::npos);
  EXPECT_TRUE(Has(text, "mockllm_sent_bytes_total 15")) << text;
  EXPECT_TRUE(Has(text, "mockllm_sessions 3")) << text;
  EXPECT_TRUE(Has(text, "mockllm_connections_refused_total 4")) << text;
  EXPECT_TRUE(text.ends_with("\n"));
}

TEST(Metrics, HistogramsAreCumulativeAndCountEachReplayOnce) {
  Metrics m;
  m.ReplayStarted(1);
  m.FirstByte(1);
  m.FirstByte(1);  // once only
  m.ReplayEnded(1);
  m.ReplayEnded(1);  // once only
  m.ReplayStarted(2);
  m.ReplayEnded(2);  // no first byte seen: it left at once
  m.ReplayEnded(3);  // never started: not counted
  const std::string text = m.Render({});
  EXPECT_TRUE(Has(text, "mockllm_replay_duration_seconds_count 2")) << text;
  EXPECT_TRUE(Has(text, "mockllm_replay_first_byte_seconds_count 2")) << text;
  EXPECT_TRUE(Has(text, "mockllm_replay_duration_seconds_bucket{le=\"+Inf\"} 2")) << text;
  EXPECT_TRUE(Has(text, "# TYPE mockllm_replay_duration_seconds histogram")) << text;
  // Every bucket holds at least the ones before it.
  std::uint64_t previous = 0;
  for (std::size_t at = text.find("mockllm_replay_duration_seconds_bucket");
       at != std::string::npos; at = text.find("mockllm_replay_duration_seconds_bucket", at + 1)) {
    const std::uint64_t n = std::stoull(text.substr(text.find("} ", at) + 2));
    EXPECT_GE(n, previous);
    previous = n;
  }
  EXPECT_EQ(previous, 2u);
}

TEST(Metrics, ADisabledCounterCountsNothing) {
  Metrics m(false);
  EXPECT_FALSE(m.enabled());
  m.Request("/v1/chat/completions", "", 200, "replayed");
  m.ReplayStarted(1);
  m.FirstByte(1);
  m.ReplayEnded(1);
  m.BytesSent(10);
  const std::string text = m.Render({});
  EXPECT_EQ(text.find("mockllm_requests_total{"), std::string::npos) << text;
  EXPECT_TRUE(Has(text, "mockllm_sent_bytes_total 0")) << text;
  EXPECT_TRUE(Has(text, "mockllm_replay_duration_seconds_count 0")) << text;
}

TEST(Metrics, BoundsTheRequestSeries) {
  Metrics m;
  for (std::size_t i = 0; i < Metrics::kMaxRequestSeries + 5; ++i)
    m.Request("/t/x/v1/chat/completions", "trace-" + std::to_string(i), 200, "replayed");
  const std::string text = m.Render({});
  EXPECT_TRUE(Has(text,
                  "mockllm_requests_total{route=\"pinned\",trace=\"(other)\",status=\"200\","
                  "outcome=\"replayed\"} 5"))
      << text.substr(0, 400);
}

}  // namespace
}  // namespace llmconform::mockllm
