// Uses llmconform as an installed library: mockllm's in-process server
// replaying a bundled trace to a plain HTTP client, and the harness running a
// bundled scenario against its own in-process mockllm.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness/runner.h"
#include "harness/scenario.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"
#include "reports/reporter.h"

namespace {

namespace fs = std::filesystem;
const fs::path kData = LLMCONFORM_DATA_DIR;

TEST(Consumer, MockllmServesABundledTraceInProcess) {
  auto trace = llmconform::mockllm::LoadTraceFile(
      kData / "fixtures/synthesized/multiturn-s1-standard-assembly.trace.jsonl");
  ASSERT_TRUE(trace) << trace.error().message;
  const std::string id = trace->id;
  // The recorded request, sent again, gets the recorded response.
  ASSERT_TRUE(trace->exchanges.at(0).request.body);
  const std::string request = trace->exchanges.at(0).request.body->dump();
  std::vector<llmconform::mockllm::Trace> traces;
  traces.push_back(std::move(*trace));
  auto server = llmconform::mockllm::Server::Start(std::move(traces), {});
  ASSERT_TRUE(server) << server.error().message;
  const std::string base = (*server)->TraceBaseUrl(id);  // http://127.0.0.1:PORT/t/<id>/v1
  const auto authority_end = base.find('/', std::string("http://").size());
  httplib::Client client(base.substr(0, authority_end));
  auto response =
      client.Post(base.substr(authority_end) + "/chat/completions", request, "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200) << response->body;
  EXPECT_NE(response->body.find("choices"), std::string::npos) << response->body;
  (*server)->Stop();
}

TEST(Consumer, HarnessRunsABundledScenario) {
  auto specs = llmconform::harness::LoadSpecs(kData / "specs");
  ASSERT_TRUE(specs) << specs.error().message;
  llmconform::harness::RunOptions options;
  options.source_root = kData;
  options.filter = "multiturn/s1-standard-assembly";
  llmconform::reports::Reporter silent;
  const auto run = llmconform::harness::RunScenarios(*specs, options, silent);
  ASSERT_EQ(run.scenarios.size(), 1u);
  EXPECT_EQ(run.ExitCode(), 0);
  EXPECT_GT(run.CheckTotals().pass, 0);
}

}  // namespace
