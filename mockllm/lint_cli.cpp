#include "mockllm/lint_cli.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "base/file.h"
#include "base/format.h"
#include "mockllm/cli.h"
#include "mockllm/cli_support.h"
#include "mockllm/lint.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {

using llmconform::Format;
namespace fs = std::filesystem;

void AddLint(CLI::App& cmd, LintArgs& a) {
  cmd.add_option("TRACE", a.traces, "Trace files, or directories searched for *.trace.jsonl")
      ->required();
  cmd.footer(R"(
Prints one problem a line on stdout, "FILE:LINE:COL: JSON-POINTER: what": format
errors of llmconform-trace/1, a trace id used by two files, and anything that
looks like a secret by the named rules of mockllm/secret_rules.json (sk-, Google
AIza, AWS, GitHub, Slack keys, bearer tokens, JWTs, PEM private keys, keys in
query strings, passwords in URLs; values of authorization, cookie,
Ocp-Apim-Subscription-Key, *-api-key, password, client_secret, token ...
headers or keys). The message names the rule. A format error includes a final
status outside 200-599, a response header name that is not an HTTP token and a
value with a control character. A response's framing headers (Content-Length,
Transfer-Encoding, Connection, ...) are warned about ("…: warning: a framing
header, not replayed"), as is a request path with a query, which no request
matches (the query belongs in request.query); warnings are not counted. Exit 0 when clean, 1 when only
secrets were found, 2 on an input error: a format error, a duplicate trace id,
a file that cannot be read. A Responses API, Gemini or Anthropic Messages
exchange (a model call: not count_tokens) is also read as a client reads it:
each contract rule it breaks (RESP-*, GEM-* and MSG-* of
specs/wire/rules.json) is a line "FILE:LINE:COL: POINTER: warning: RULE: …", which leaves the exit code
alone (a recording is evidence, not a fixture to correct).)");
}

int RunLint(const LintArgs& a) {
  auto files = TraceFiles(a.traces);
  if (!files) return Diagnose(files.error().message), kExitUsage;
  std::size_t problems = 0;
  std::size_t bad_files = 0;
  std::size_t format_errors = 0;
  std::size_t warnings = 0;
  std::map<std::string, std::string> ids;  // trace id → the file that has it
  for (const fs::path& f : *files) {
    auto text = ReadFile(f);
    if (!text) return Diagnose(text.error().message), kExitUsage;
    LintReport report = LintTraceReport(*text, f.string());
    if (!report.id.empty()) {
      if (auto [it, fresh] = ids.emplace(report.id, f.string()); !fresh) {
        report.problems.push_back(Format("{}:{}:1: /id: the trace id \"{}\" is also the id of {}",
                                         f.string(), report.id_line, report.id, it->second));
        ++report.format_errors;
      }
    }
    for (const std::string& p : report.problems) std::cout << p << '\n';
    for (const std::string& w : report.warnings) std::cout << w << '\n';
    warnings += report.warnings.size();
    problems += report.problems.size();
    format_errors += report.format_errors;
    bad_files += report.problems.empty() ? 0 : 1;
  }
  std::cout.flush();
  if (problems == 0) {
    std::cerr << "mockllm lint: " << files->size() << " trace(s) clean";
    if (warnings > 0) std::cerr << " (" << warnings << " warning(s))";
    std::cerr << std::endl;
    return kExitOk;
  }
  std::cerr << "mockllm lint: " << problems << " problem(s) in " << bad_files << " of "
            << files->size() << " trace(s)" << std::endl;
  return format_errors > 0 ? kExitUsage : kExitFail;
}

}  // namespace llmconform::mockllm
