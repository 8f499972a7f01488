#include "harness/suites/skill_script.h"

#include <fstream>

#include "base/format.h"
#include "base/json.h"
#include "protocols/skill/json_input.h"
#include "protocols/skill/knowledge.h"
#include "protocols/skill/text.h"

namespace llmconform::harness::skill_suite {
namespace {

namespace fs = std::filesystem;
namespace sk = skill;

// Reads the optional array `key` of objects with `read`.
template <typename T, typename Read>
std::expected<std::vector<T>, Error> ReadList(const Json& in, const JsonPointer& at,
                                              std::string_view key, Read read) {
  std::vector<T> out;
  auto it = in.find(key);
  if (it == in.end() || it->is_null()) return out;
  const JsonPointer list = at / std::string(key);
  if (!it->is_array())
    return std::unexpected(ErrorAt(list, Format("expected array, got {}", JsonTypeName(*it))));
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (auto ok = RequireObjectAt((*it)[i], list / i); !ok) return std::unexpected(ok.error());
    std::expected<T, Error> item = read((*it)[i], list / i);
    if (!item) return std::unexpected(item.error());
    out.push_back(std::move(*item));
  }
  return out;
}

std::expected<ScriptedCommand, Error> ReadCommand(const Json& c, const JsonPointer& at) {
  ScriptedCommand cmd;
  auto command = OptionalString(c, at, "command");
  if (!command) return std::unexpected(command.error());
  auto skip = OptionalBool(c, at, "skip");
  if (!skip) return std::unexpected(skip.error());
  auto exit_code = OptionalInt(c, at, "exitCode");
  if (!exit_code) return std::unexpected(exit_code.error());
  cmd.command = command->value_or("");
  cmd.skip = skip->value_or(false);
  cmd.exit_code = static_cast<int>(exit_code->value_or(0));
  if (!cmd.skip) {
    auto output = RequireString(c, at, "output");
    if (!output) return std::unexpected(output.error());
    cmd.output = std::move(*output);
  }
  return cmd;
}

std::expected<ScriptedAnswer, Error> ReadAnswer(const Json& a, const JsonPointer& at) {
  auto skip = OptionalBool(a, at, "skip");
  if (!skip) return std::unexpected(skip.error());
  ScriptedAnswer answer{skip->value_or(false), ""};
  if (!answer.skip) {
    auto text = RequireString(a, at, "text");
    if (!text) return std::unexpected(text.error());
    answer.text = std::move(*text);
  }
  return answer;
}

}  // namespace

std::string Script::Context() const {
  if (!has_knowledge) return std::string(sk::Trim(setup.server_context));
  if (project_knowledge) return std::string(sk::Trim(*project_knowledge));
  return std::string(sk::Trim(home_knowledge.value_or("")));
}

std::expected<Script, Error> ReadScript(const Json& in, const JsonPointer& at) {
  Script s;
  auto setup = sk::SessionSetupFromJson(in, at);
  if (!setup) return std::unexpected(setup.error());
  s.setup = std::move(*setup);
  auto model = OptionalString(in, at, "model");
  if (!model) return std::unexpected(model.error());
  if (*model) s.model = **model;
  auto timeout = OptionalInt(in, at, "timeoutMs");
  if (!timeout) return std::unexpected(timeout.error());
  if (*timeout) {
    if (**timeout < 1)
      return std::unexpected(
          ErrorAt(at / "timeoutMs", Format("expected at least 1, got {}", **timeout)));
    s.timeout = std::chrono::milliseconds(**timeout);
  }
  if (auto k = in.find("knowledge"); k != in.end() && !k->is_null()) {
    const JsonPointer knowledge = at / "knowledge";
    if (auto ok = RequireObjectAt(*k, knowledge); !ok) return std::unexpected(ok.error());
    s.has_knowledge = true;
    auto project = OptionalString(*k, knowledge, "project");
    if (!project) return std::unexpected(project.error());
    auto home = OptionalString(*k, knowledge, "home");
    if (!home) return std::unexpected(home.error());
    s.project_knowledge = *project;
    s.home_knowledge = *home;
  }
  auto commands = ReadList<ScriptedCommand>(in, at, "commands", ReadCommand);
  if (!commands) return std::unexpected(commands.error());
  s.commands = std::move(*commands);
  auto answers = ReadList<ScriptedAnswer>(in, at, "answers", ReadAnswer);
  if (!answers) return std::unexpected(answers.error());
  s.answers = std::move(*answers);
  return s;
}

std::expected<std::string, Error> ReadKnowledge(const Script& s, const fs::path& work_dir) {
  const fs::path project = work_dir / "project";
  const fs::path home = work_dir / "home";
  auto write = [](const fs::path& dir,
                  const std::optional<std::string>& text) -> std::expected<void, Error> {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      return std::unexpected(Error{Format("{}: cannot create: {}", dir.string(), ec.message())});
    if (!text) return {};
    std::ofstream f(dir / "ai_system_promt.md", std::ios::binary);
    f << *text;
    if (!f)
      return std::unexpected(Error{Format("{}: cannot write ai_system_promt.md", dir.string())});
    return {};
  };
  if (auto ok = write(project / ".kosmos-panel", s.project_knowledge); !ok)
    return std::unexpected(ok.error());
  if (auto ok = write(home / ".config" / "kosmos-panel", s.home_knowledge); !ok)
    return std::unexpected(ok.error());
  return sk::LocalKnowledgeSource(project, home).Read();
}

}  // namespace llmconform::harness::skill_suite
