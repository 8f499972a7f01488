// mockllm's per-request work beside a baseline in the same run: matching a
// request against a loaded trace (canonical comparison, ignore paths, session
// bookkeeping aside) must cost no more than parsing the request body, which
// every server does anyway (target ratio >= 1). Also shown, without targets:
// matching as the number of loaded traces grows, and planning a 200-chunk
// stream with and without faults (plans are built once, at load).
#include <benchmark/benchmark.h>

#include "bench/ratio_main.h"
#include "mockllm/replay_book.h"
#include "mockllm/replay_plan.h"

namespace llmconform::mockllm {
namespace {

OJson Request(int i) {
  return {
      {"model", "gpt-4o-mini"},
      {"messages",
       OJson::array({{{"role", "system"}, {"content", "You are a benchmark."}},
                     {{"role", "user"}, {"content", "Question number " + std::to_string(i)}}})}};
}

Trace MakeTrace(int i) {
  Trace t;
  t.id = "bench/" + std::to_string(i);
  t.header = {{"format", "llmconform-trace/1"}, {"id", t.id}};
  Exchange x;
  x.request.path = "/v1/chat/completions";
  x.request.body = Request(i);
  x.response.body = OJson{{"id", "chatcmpl-" + std::to_string(i)}, {"choices", OJson::array()}};
  t.exchanges.push_back(std::move(x));
  return t;
}

RecordedResponse Stream200() {
  RecordedResponse r;
  r.streamed = true;
  for (int i = 0; i < 199; ++i) {
    r.chunks.push_back(
        Chunk{i * 20, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token" +
                          std::to_string(i) + " \"},\"finish_reason\":null}]}\n\n"});
  }
  r.chunks.push_back(Chunk{4000, "data: [DONE]\n\n"});
  return r;
}

// Matching the last trace's request, so every loaded exchange is compared.
// The body holds no secret, so it is as the server hands it over after
// redacting it on arrival (mockllm/replay_book.h).
void BM_ReplayUnpinned(benchmark::State& state) {
  std::vector<Trace> traces;
  for (int i = 0; i < state.range(0); ++i) traces.push_back(MakeTrace(i));
  auto book = ReplayBook::Build(std::move(traces), {});
  const Json body(Request(static_cast<int>(state.range(0)) - 1));  // ordered to plain, directly
  for (auto _ : state) {
    Verdict v = (*book)->ReplayUnpinned("POST", "/v1/chat/completions", body);
    benchmark::DoNotOptimize(v.plan);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReplayUnpinned)->Arg(1)->Arg(10)->Arg(100);

// The baseline: parsing the same request body.
void BM_ParseRequestBody(benchmark::State& state) {
  const std::string text = Request(0).dump();
  for (auto _ : state) benchmark::DoNotOptimize(Json::parse(text));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseRequestBody);

void BM_PlanStream(benchmark::State& state, Fault fault) {
  const RecordedResponse r = Stream200();
  for (auto _ : state) benchmark::DoNotOptimize(PlanResponse(r, fault, 7));
}
BENCHMARK_CAPTURE(BM_PlanStream, no_fault, Fault{});
BENCHMARK_CAPTURE(BM_PlanStream, resplit, Fault{.resplit = true});
BENCHMARK_CAPTURE(BM_PlanStream, crlf_keepalive_drop_done,
                  Fault{.drop_done = true, .crlf = true, .keepalive_ms = 100});

}  // namespace
}  // namespace llmconform::mockllm

LLMCONFORM_BENCH_MAIN({{"BM_ReplayUnpinned/1", "BM_ParseRequestBody", "items_per_second", 1.0,
                        true}})
