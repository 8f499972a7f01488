// A main() for benchmark programs that compare a hot path with a baseline
// measured in the same run, and print the ratio against the target.
//
//   LLMCONFORM_BENCH_MAIN({{"BM_SseParse", "BM_MemchrLineSplit", "bytes_per_second", 0.25, true}})
//
// Each comparison divides the counter of the first benchmark by that of the
// second (for bytes_per_second and items_per_second, higher is better; with
// higher_is_better false, e.g. for real_time, the ratio is inverted so that
// a value >= target always means "met"). Absolute times on a noisy 2-core
// machine mean little; the ratio of two measurements in one run does.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace llmconform::bench {

struct Comparison {
  std::string subject;   // benchmark name prefix (matches "BM_X" and "BM_X/arg")
  std::string baseline;  // benchmark name prefix
  std::string counter;   // "bytes_per_second", "items_per_second" or "real_time"
  double target;         // the ratio to reach
  bool higher_is_better = true;
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      const std::string name = run.benchmark_name();
      if (auto it = run.counters.find("bytes_per_second"); it != run.counters.end()) {
        values_[name]["bytes_per_second"] = it->second.value;
      }
      if (auto it = run.counters.find("items_per_second"); it != run.counters.end()) {
        values_[name]["items_per_second"] = it->second.value;
      }
      values_[name]["real_time"] = run.GetAdjustedRealTime();
    }
  }

  // Prints one line per comparison; returns how many missed their target.
  int PrintComparisons(const std::vector<Comparison>& comparisons) const {
    int missed = 0;
    std::printf("\n");
    for (const auto& c : comparisons) {
      const double* a = Find(c.subject, c.counter);
      const double* b = Find(c.baseline, c.counter);
      if (!a || !b || *b == 0 || *a == 0) {
        std::printf("ratio %s / %s (%s): not measured in this run\n", c.subject.c_str(),
                    c.baseline.c_str(), c.counter.c_str());
        continue;
      }
      const double ratio = c.higher_is_better ? *a / *b : *b / *a;
      const bool met = ratio >= c.target;
      missed += met ? 0 : 1;
      std::printf("ratio %s vs %s (%s): %.3f (target >= %.3f) %s\n", c.subject.c_str(),
                  c.baseline.c_str(), c.counter.c_str(), ratio, c.target, met ? "MET" : "MISSED");
    }
    return missed;
  }

 private:
  const double* Find(const std::string& prefix, const std::string& counter) const {
    for (const auto& [name, counters] : values_) {
      if (name == prefix || name.rfind(prefix + "/", 0) == 0) {
        if (auto it = counters.find(counter); it != counters.end()) return &it->second;
      }
    }
    return nullptr;
  }
  std::map<std::string, std::map<std::string, double>> values_;
};

}  // namespace llmconform::bench

#define LLMCONFORM_BENCH_MAIN(...)                                                     \
  int main(int argc, char** argv) {                                                    \
    benchmark::Initialize(&argc, argv);                                                \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;                  \
    llmconform::bench::RatioReporter reporter;                                         \
    benchmark::RunSpecifiedBenchmarks(&reporter);                                      \
    reporter.PrintComparisons(std::vector<llmconform::bench::Comparison> __VA_ARGS__); \
    benchmark::Shutdown();                                                             \
    return 0;                                                                          \
  }
