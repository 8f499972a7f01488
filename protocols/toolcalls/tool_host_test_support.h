// Shared by the ToolHost tests (tool_host_test.cpp and fs_<tool>_test.cpp):
// a package with a workflow graph, a workflow state at its first step, and a
// host over an in-memory filesystem with a fake clock.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "protocols/toolcalls/clock.h"
#include "protocols/toolcalls/memory_filesystem.h"
#include "protocols/toolcalls/sandbox.h"
#include "protocols/toolcalls/tool_host.h"

namespace llmconform::toolcalls {

// step-01 -> step-02 -> end-99, and step-01 -> side.
inline constexpr const char* kToolHostGraph =
    R"({"entryNodeId":"step-01","nodes":[{"id":"step-01"},{"id":"step-02"},
  {"id":"side"},{"id":"end-99","type":"end"}],"edges":[{"from":"step-01","to":"step-02"},
  {"from":"step-01","to":"side"},{"from":"step-02","to":"end-99"}]})";

// @state/workflow.md at step-01.
inline constexpr const char* kState =
    "---\nschemaVersion: \"1.1\"\ncurrentNodeId: \"step-01\"\nstepsCompleted: []\nvariables: {}\n"
    "decisionLog: []\nartifacts: []\n---\n# Workflow\n";

// @project is /p (artifacts/epics.md, README.md, .hidden, an empty
// artifacts/create-story/), @pkg is /k (workflow.graph.json, steps/step-01.md),
// @state is /s (workflow.md); the clock starts at 2025-12-25T00:00:00Z and
// moves 2 ms a reading; default limits.
class ToolHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.AddFile("/p/artifacts/epics.md", "# Epics\nline two\nline three\n");
    fs_.AddFile("/p/README.md", "hello\n");
    fs_.AddFile("/p/.hidden", "secret hello\n");
    fs_.AddDir("/p/artifacts/create-story");
    fs_.AddFile("/k/workflow.graph.json", kToolHostGraph);
    fs_.AddFile("/k/steps/step-01.md", "step one\n");
    fs_.AddFile("/s/workflow.md", kState);
  }
  // The ToolResult of one call with tool call id "tc".
  OJson Call(std::string_view tool, const OJson& args) {
    return host_.Run("tc", tool, args).result;
  }
  static std::string Code(const OJson& r) { return r.at("error").at("code").get<std::string>(); }
  static std::string Message(const OJson& r) {
    return r.at("error").at("message").get<std::string>();
  }

  MemoryFilesystem fs_;
  Sandbox sandbox_{fs_, {"/p", "/k", "/s"}};
  FakeClock clock_{std::chrono::system_clock::time_point{std::chrono::milliseconds(1766620800000)},
                   std::chrono::milliseconds(2)};
  ToolHost host_{sandbox_, clock_};
};

}  // namespace llmconform::toolcalls
