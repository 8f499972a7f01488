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
//
// Unless the command line says otherwise, every benchmark runs 5 repetitions
// in random interleaving (so that a slow spell of the machine hits subject
// and baseline alike), the console shows the aggregates, and a ratio uses the
// medians. With --benchmark_repetitions=1 it uses the single measurement.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <set>
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
      // A median aggregate wins over single iterations of the same benchmark.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type != Run::RT_Iteration && !median) continue;
      const std::string name = run.run_name.str();
      if (!median && medians_.contains(name)) continue;
      if (median) medians_.insert(name);
      auto& counters = values_[name];
      for (const char* counter : {"bytes_per_second", "items_per_second"}) {
        if (auto it = run.counters.find(counter); it != run.counters.end()) {
          counters[counter] = it->second.value;
        }
      }
      counters["real_time"] = run.GetAdjustedRealTime();
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
      const bool medians =
          medians_.contains(Name(c.subject)) && medians_.contains(Name(c.baseline));
      std::printf("ratio %s vs %s (%s%s): %.3f (target >= %.3f) %s\n", c.subject.c_str(),
                  c.baseline.c_str(), medians ? "median " : "", c.counter.c_str(), ratio, c.target,
                  met ? "MET" : "MISSED");
    }
    return missed;
  }

 private:
  // The measured name that `prefix` matches ("BM_X" or "BM_X/arg"), or "".
  std::string Name(const std::string& prefix) const {
    for (const auto& [name, counters] : values_) {
      if (name == prefix || name.rfind(prefix + "/", 0) == 0) return name;
    }
    return "";
  }
  const double* Find(const std::string& prefix, const std::string& counter) const {
    auto it = values_.find(Name(prefix));
    if (it == values_.end()) return nullptr;
    auto c = it->second.find(counter);
    return c == it->second.end() ? nullptr : &c->second;
  }
  std::map<std::string, std::map<std::string, double>> values_;
  std::set<std::string> medians_;  // names measured by a median aggregate
};

// Adds the defaults above to argv for the flags the command line leaves out.
// The returned strings back the returned pointers; keep both alive.
inline std::vector<char*> WithDefaultFlags(int argc, char** argv, std::vector<std::string>& store) {
  const char* defaults[][2] = {{"--benchmark_repetitions", "=5"},
                               {"--benchmark_enable_random_interleaving", "=true"},
                               {"--benchmark_display_aggregates_only", "=true"}};
  std::vector<char*> args(argv, argv + argc);
  store.reserve(std::size(defaults));
  for (const auto& [flag, value] : defaults) {
    bool given = false;
    for (int i = 1; i < argc; ++i)
      given = given || std::strncmp(argv[i], flag, std::strlen(flag)) == 0;
    if (!given) args.push_back((store.emplace_back(std::string(flag) + value)).data());
  }
  return args;
}

}  // namespace llmconform::bench

#define LLMCONFORM_BENCH_MAIN(...)                                                     \
  int main(int argc, char** argv) {                                                    \
    std::vector<std::string> flag_store;                                               \
    auto args = llmconform::bench::WithDefaultFlags(argc, argv, flag_store);           \
    int args_count = static_cast<int>(args.size());                                    \
    benchmark::Initialize(&args_count, args.data());                                   \
    if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;     \
    llmconform::bench::RatioReporter reporter;                                         \
    benchmark::RunSpecifiedBenchmarks(&reporter);                                      \
    reporter.PrintComparisons(std::vector<llmconform::bench::Comparison> __VA_ARGS__); \
    benchmark::Shutdown();                                                             \
    return 0;                                                                          \
  }
