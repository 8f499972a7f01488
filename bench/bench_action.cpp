// Throughput of the action protocol's reply parser on typical model replies,
// beside plain nlohmann::json::parse of the same JSON in the same run: the
// ratio says what the lenient reading (trim, fence, first "{" to last "}",
// depth check, field validation, ordered keys) costs over bare parsing.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bench/ratio_main.h"
#include "protocols/action/assistant_response.h"
#include "protocols/action/mcp_payload.h"

namespace {

using llmconform::action::ParseAssistantResponse;

constexpr std::string_view kSession = "session_1764210832.530743";

const std::string kPlainText =
    "Сейчас 10:30. Встреча с командой начнётся через полчаса, ссылка в календаре: "
    "https://calendar.example.com/event?id=42. Напомнить за пять минут до начала?";

const std::string kJsonAction = R"({
  "session_id": "session_1764210832.530743",
  "command": "open_app",
  "args": {
    "app_name": "Calculator"
  },
  "text": "Открываю калькулятор."
})";

const std::string kFencedWithProse =
    "Конечно! Вот ответ:\n```json\n" + kJsonAction + "\n```\nЕсли нужно что-то ещё, скажите.";

void Parse(benchmark::State& state, const std::string& reply) {
  for (auto _ : state) {
    auto r = ParseAssistantResponse(reply, kSession);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(reply.size()));
}

void BM_ParsePlainText(benchmark::State& state) { Parse(state, kPlainText); }
void BM_ParseJsonAction(benchmark::State& state) { Parse(state, kJsonAction); }
void BM_ParseFencedJsonWithProse(benchmark::State& state) { Parse(state, kFencedWithProse); }

// Parse and build the __MCP__ payload: what a server does per action reply.
void BM_ParseJsonActionAndBuildPayload(benchmark::State& state) {
  for (auto _ : state) {
    auto r = ParseAssistantResponse(kJsonAction, kSession);
    auto payload = llmconform::action::BuildMcpPayload(*r.command);
    benchmark::DoNotOptimize(payload);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kJsonAction.size()));
}

// Baseline: nlohmann::json::parse alone on the same JSON action.
void BM_BaselineNlohmannParse(benchmark::State& state) {
  for (auto _ : state) {
    auto j = nlohmann::json::parse(kJsonAction);
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kJsonAction.size()));
}

BENCHMARK(BM_ParsePlainText);
BENCHMARK(BM_ParseJsonAction);
BENCHMARK(BM_ParseFencedJsonWithProse);
BENCHMARK(BM_ParseJsonActionAndBuildPayload);
BENCHMARK(BM_BaselineNlohmannParse);

}  // namespace

// The full reading of a JSON action within 2x of bare parsing.
LLMCONFORM_BENCH_MAIN({{"BM_ParseJsonAction", "BM_BaselineNlohmannParse", "bytes_per_second", 0.5,
                        true}})
