// BuildLLMMessages on 100 000 history messages (its result views the
// args' messages), beside assembling the same list as owned copies, as a
// client that copies its history does (target: not slower than copying).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/ratio_main.h"
#include "protocols/multiturn/multiturn.h"

namespace {

using llmconform::multiturn::BuildArgs;
using llmconform::multiturn::Message;

const BuildArgs& Args() {
  static const BuildArgs args = [] {
    BuildArgs a;
    a.system_prompt = std::string(400, 's');
    a.current_user_message = "他的性格？";
    const char* samples[] = {"介绍林默", "林默是28岁侦探，习惯独自思考。",
                             "What did the night guard see?",
                             "He saw smoke rising from the east wing shortly after midnight. 😀"};
    for (int i = 0; i < 100000; ++i)
      a.history.push_back({i % 2 ? "assistant" : "user", samples[i % 4]});
    a.max_token_budget = 1 << 30;  // everything fits: the whole history is walked and kept
    return a;
  }();
  return args;
}

void BM_BuildLLMMessages(benchmark::State& state) {
  const BuildArgs& args = Args();
  for (auto _ : state) {
    auto out = llmconform::multiturn::BuildLLMMessages(args);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * args.history.size()));
}
BENCHMARK(BM_BuildLLMMessages)->Unit(benchmark::kMicrosecond);

// For reference, not a target: assembling and then visiting every message of
// the result once, as a client serialising the request does.
void BM_BuildLLMMessagesAndVisit(benchmark::State& state) {
  const BuildArgs& args = Args();
  for (auto _ : state) {
    auto out = llmconform::multiturn::BuildLLMMessages(args);
    std::size_t total = 0;
    for (const auto m : out->messages) total += m.role.size() + m.content.size();
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * args.history.size()));
}
BENCHMARK(BM_BuildLLMMessagesAndVisit)->Unit(benchmark::kMicrosecond);

void BM_CopyMessages(benchmark::State& state) {
  const BuildArgs& args = Args();
  for (auto _ : state) {
    std::vector<Message> out;
    out.reserve(args.history.size() + 2);
    out.push_back({"system", args.system_prompt});
    out.insert(out.end(), args.history.begin(), args.history.end());
    out.push_back({"user", args.current_user_message});
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * args.history.size()));
}
BENCHMARK(BM_CopyMessages)->Unit(benchmark::kMicrosecond);

}  // namespace

LLMCONFORM_BENCH_MAIN({{"BM_BuildLLMMessages", "BM_CopyMessages", "real_time", 1.0, false}})
