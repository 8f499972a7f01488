#include "harness/shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "base/format.h"
#include "base/hash.h"
#include "base/json_read.h"
#include "harness/scenario.h"
#include "reports/json_reporter.h"

namespace llmconform::harness {
namespace {

std::optional<int> ParseInt(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::expected<Shard, Error> ParseShard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash != std::string_view::npos) {
    auto k = ParseInt(text.substr(0, slash));
    auto n = ParseInt(text.substr(slash + 1));
    if (k && n && *k >= 1 && *k <= *n && *n <= 10000) return Shard{*k, *n};
  }
  return std::unexpected(
      Error{Format("--shard '{}': expected K/N with 1 <= K <= N <= 10000 (e.g. 1/4)", text)});
}

std::string FormatShard(const Shard& shard) { return Format("{}/{}", shard.index, shard.count); }

std::expected<Timings, Error> LoadTimings(const std::filesystem::path& report) {
  auto text = ReadFile(report);
  if (!text) return std::unexpected(text.error());
  auto doc = ReadJsonOrDiscarded(*text);
  if (doc.is_discarded()) return std::unexpected(Error{Format("{}: not JSON", report.string())});
  auto run = reports::ReportFromJson(doc);
  if (!run) return std::unexpected(Error{Format("{}: {}", report.string(), run.error().message)});
  Timings timings;
  for (const auto& s : run->scenarios) timings[s.info.Id()] = std::max(s.duration_ms, 0.0);
  return timings;
}

std::vector<int> AssignShards(const std::vector<std::string>& ids, int shard_count,
                              const Timings& timings) {
  const int n = std::max(shard_count, 1);
  std::vector<int> shard_of(ids.size(), 0);
  std::vector<std::size_t> order(ids.size());
  std::iota(order.begin(), order.end(), 0);
  bool any_known = false;
  double known_sum = 0;
  int known = 0;
  for (const auto& id : ids) {
    if (auto it = timings.find(id); it != timings.end()) {
      any_known = true;
      known_sum += it->second;
      ++known;
    }
  }
  if (!any_known) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const auto ha = Fnv1a64(ids[a]), hb = Fnv1a64(ids[b]);
      return ha != hb ? ha < hb : ids[a] < ids[b];
    });
    for (std::size_t i = 0; i < order.size(); ++i) shard_of[order[i]] = static_cast<int>(i % n);
    return shard_of;
  }
  const double mean = known_sum / known;
  std::vector<double> cost(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto it = timings.find(ids[i]);
    cost[i] = it != timings.end() ? it->second : mean;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cost[a] != cost[b] ? cost[a] > cost[b] : ids[a] < ids[b];
  });
  std::vector<double> load(n, 0.0);
  for (std::size_t i : order) {
    const int target = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[i] = target;
    load[target] += cost[i];
  }
  return shard_of;
}

std::vector<const Scenario*> SelectShard(const std::vector<const Scenario*>& scenarios,
                                         const Shard& shard, const Timings& timings) {
  std::vector<std::string> ids;
  ids.reserve(scenarios.size());
  for (const Scenario* s : scenarios) ids.push_back(s->protocol + "/" + s->name);
  const std::vector<int> shard_of = AssignShards(ids, shard.count, timings);
  std::vector<const Scenario*> out;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    if (shard_of[i] == shard.index - 1) out.push_back(scenarios[i]);
  }
  return out;
}

}  // namespace llmconform::harness
