#include "mockllm/cli.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "base/format.h"
#include "mockllm/cli_support.h"
#include "mockllm/dialects_cli.h"
#include "mockllm/import_cli.h"
#include "mockllm/lint_cli.h"
#include "mockllm/record_cli.h"
#include "mockllm/serve_cli.h"

#ifndef MOCKLLM_VERSION
#define MOCKLLM_VERSION "0.0.0"
#endif

namespace llmconform::mockllm {

using llmconform::Format;

int RunCli(int argc, char** argv) {
  // A client that goes away mid-response must not end the process.
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "mockllm: replays recorded OpenAI-compatible chat traffic byte for byte, records it, breaks "
      "it on\n"
      "purpose, and journals every request.",
      "mockllm"};
  app.set_version_flag("--version", std::string("mockllm ") + MOCKLLM_VERSION);
  app.footer(R"(
Routes of `serve`: /t/{trace-id}/v1/... (pinned, one session per X-Mockllm-Session
header; without it every client shares the session "default"), /v1/... (unpinned),
and the admin API: GET /__admin/journal?session=&trace=, GET /__admin/unmatched,
POST /__admin/traces, DELETE /__admin/traces/{id}, GET /__admin/sessions,
GET /__admin/health, POST /__admin/reset. The header X-Mockllm-Dialect: NAME
rewrites a reply into a provider's dialect (`mockllm dialects`).
`mockllm serve --help` has the details;
the manual is docs/mockllm.md.)");
  app.require_subcommand(1);

  ServeArgs serve;
  LintArgs lint;
  RecordArgs record;
  ImportArgs import_args;
  ExportArgs export_args;
  DialectsArgs dialects;
  struct Command {
    const char* name;
    const char* description;
    std::function<void(CLI::App&)> add;
    std::function<int()> run;
  };
  const std::vector<Command> commands = {
      {"serve", "Replay traces as an OpenAI-compatible server",
       [&](CLI::App& c) { AddServe(c, serve); }, [&] { return RunServe(serve); }},
      {"lint", "Check traces for format errors and secrets", [&](CLI::App& c) { AddLint(c, lint); },
       [&] { return RunLint(lint); }},
      {"record", "Record a trace through a proxy to a real endpoint",
       [&](CLI::App& c) { AddRecord(c, record); }, [&] { return RunRecord(record); }},
      {"import", "Turn vcrpy cassettes and HAR files into traces",
       [&](CLI::App& c) { AddImport(c, import_args); }, [&] { return RunImport(import_args); }},
      {"export", "Write traces as HAR 1.2", [&](CLI::App& c) { AddExport(c, export_args); },
       [&] { return RunExport(export_args); }},
      {"dialects", "List the provider dialects replies can be rewritten into",
       [&](CLI::App& c) { AddDialects(c, dialects); }, [&] { return RunDialects(dialects); }},
  };
  std::vector<CLI::App*> subs;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    c.add(*sub);
    subs.push_back(sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  try {
    for (std::size_t i = 0; i < commands.size(); ++i) {
      if (subs[i]->parsed()) return commands[i].run();
    }
  } catch (const std::exception& e) {
    Diagnose(Format("internal error: {}", e.what()));
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace llmconform::mockllm
