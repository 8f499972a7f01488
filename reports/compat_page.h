// The SDK × provider compatibility page of `llmconform run --profile client
// --client NAME=CMD …` (several clients, one page): compatibility.md and
// compatibility.html, written beside the folder of each client's own reports.
//
//   summary   a table client × dialect: each cell the worst outcome of that
//             client's scenarios in that dialect, then scenarios passed / run
//   a client  its command, its dialect × feature grid (matrix_reporter.h's
//             BuildMatrix of its run) and a table of its failures: one row a
//             failed or erring check — the dialect, the scenario, the rule, the
//             message, what the client read (the check's evidence `actual`),
//             the deviations of the dialect that changed the replies, and
//             links to the evidence
//
// Links are relative to the page's folder: a client's reports are in
// "<name>/" (report.html#s<index+1> for a scenario), its evidence in
// "<name>/evidence/<scenario>[@<dialect>]/" (sent.txt: the bytes mockllm
// sent; read.json: what the client wrote; harness/client_cmd.h). The
// Markdown holds nothing that changes between two runs of the same clients
// (no times, no dates, no version), so a checked-in page can be compared
// with a new one. Every text is escaped.
#pragma once

#include <span>
#include <string>

#include "reports/result.h"

namespace llmconform::reports {

struct ClientRun {
  std::string name;     // --client NAME: a folder name ([A-Za-z0-9._-])
  std::string command;  // its CMD
  RunResult run;
};

std::string RenderCompatMarkdown(std::span<const ClientRun> clients);
std::string RenderCompatHtml(std::span<const ClientRun> clients);

}  // namespace llmconform::reports
