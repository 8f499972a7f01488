// The SDK × provider compatibility page of `llmconform run --profile client
// --client NAME=CMD …` (several clients, one page): compatibility.md and
// compatibility.html, written beside the folder of each client's own reports.
//
//   summary   a table client × dialect per API surface (its dialects, as
//             `surfaces` names them; those it does not name in one table
//             after them): each cell the worst outcome of that client's
//             scenarios in that dialect, then scenarios passed / run. A client
//             none of whose scenarios ran in a surface's dialects (every one
//             skipped: its adapter does not speak the surface) has no row in
//             that table; a note after the tables says so once, client by
//             client, with the surfaces and the skipped checks' reasons
//             ("unsupported: this adapter speaks chat, not messages")
//   a client  its command, its dialect × feature grid (matrix_reporter.h's
//             BuildMatrix of its run) and a table of its failures: one row a
//             failed or erring check — the dialect, the scenario, the rule, the
//             message, what the client read (the check's evidence `actual`),
//             the deviations of the dialect that changed the replies, and
//             links to the evidence. The grid leaves out the dialects where
//             none of the client's scenarios ran (the note above names them),
//             then the features no remaining dialect has a scenario of
//
// Links are relative to the page's folder: a client's reports are in
// "<name>/" (report.html#s<index+1> for a scenario), its evidence in
// "<name>/evidence/<scenario>[@<dialect>]/" (sent.txt: the bytes mockllm
// sent; read.json: what the client wrote; harness/client_cmd.h). The
// Markdown holds nothing that changes between two runs of the same clients
// (no times, no dates, no version), so a checked-in page can be compared
// with a new one. Every text is escaped.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>

#include "reports/result.h"

namespace llmconform::reports {

struct ClientRun {
  std::string name;     // --client NAME: a folder name ([A-Za-z0-9._-])
  std::string command;  // its CMD
  RunResult run;
};

// The API surface of each dialect (protocols/wire/surface.h SurfaceName:
// "chat", "responses", "messages", "gemini"). The summary's tables come in
// that order, then other names sorted, then dialects not in the map.
using DialectSurfaces = std::map<std::string, std::string, std::less<>>;

std::string RenderCompatMarkdown(std::span<const ClientRun> clients,
                                 const DialectSurfaces& surfaces = {});
std::string RenderCompatHtml(std::span<const ClientRun> clients,
                             const DialectSurfaces& surfaces = {});

}  // namespace llmconform::reports
