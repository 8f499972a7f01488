// The skill suite's script: a scenario's "input" (harness/suites/skill_suite.h
// lists its fields) read into the session setup, the LLM options and the
// scripted terminal — the command outputs and user answers the session gets,
// in order.
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json_fields.h"
#include "protocols/skill/session.h"

namespace llmconform::harness::skill_suite {

struct ScriptedCommand {
  std::string command;  // informational
  bool skip = false;
  std::string output;
  int exit_code = 0;
};

struct ScriptedAnswer {
  bool skip = false;
  std::string text;
};

struct Script {
  skill::SessionSetup setup;
  std::string model = "CHEAP";
  std::chrono::milliseconds timeout{30000};
  bool has_knowledge = false;
  std::optional<std::string> project_knowledge;
  std::optional<std::string> home_knowledge;
  std::vector<ScriptedCommand> commands;
  std::vector<ScriptedAnswer> answers;

  // The server context the system prompt must carry, trimmed.
  std::string Context() const;
};

// `in` is the scenario's input, at `at` in the scenario document; errors are
// kInvalidInput and name the value ("/input/commands/0/skip: expected
// boolean, got string").
std::expected<Script, Error> ReadScript(const nlohmann::json& in, const JsonPointer& at);

// Writes the script's knowledge files where LocalKnowledgeSource looks for
// them, with `work_dir` as the working folder's parent and the home folder's,
// and returns the context it reads from them.
std::expected<std::string, Error> ReadKnowledge(const Script& s,
                                                const std::filesystem::path& work_dir);

}  // namespace llmconform::harness::skill_suite
