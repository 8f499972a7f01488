// `llmconform dialect TRACE…`: the provider deviations (DIA-* ids of
// specs/wire/dialects.json, protocols/wire/dialect.h) each recorded exchange
// shows against its API surface's canonical wire format, located; `--markdown` renders the provider
// × deviation table (fixtures/recorded/DIALECTS.md is this output for the bundled corpus).
#pragma once

#include <CLI/CLI.hpp>
#include <expected>
#include <string>
#include <vector>

#include "mockllm/trace.h"
#include "protocols/wire/dialect.h"

namespace llmconform::harness {

struct ExchangeDialect {
  std::string trace_file;
  std::string trace_id;
  std::string provider;  // header `provider`, "unknown" when absent
  std::int64_t seq = 0;
  wire::Surface surface = wire::Surface::kChat;  // of the request path (Chat when unknown)
  bool streamed = false;
  std::vector<wire::Deviation> deviations;
};

// The deviations of every exchange of `trace`, each judged by the detector of
// its request path's surface (protocols/wire/dialect.h; a path of no known
// surface is judged as Chat Completions).
std::vector<ExchangeDialect> TraceDialects(const mockllm::Trace& trace, const std::string& file);

// The Markdown report: a provider × deviation table (counts of exchanges)
// followed by each deviation's locations. Deterministic for the same input.
std::string DialectMarkdown(const std::vector<ExchangeDialect>& rows);

struct DialectArgs {
  std::vector<std::string> traces;
  bool markdown = false;
  bool json = false;
  std::string out;
};
void SetupDialect(CLI::App& app, DialectArgs& a);

// `run --dialects`: "all" (every dialect built into mockllm, sorted) or
// "NAME,NAME,…" (in that order, duplicates dropped). Error: an unknown or
// empty name, with the known ones.
std::expected<std::vector<std::string>, Error> ParseDialectList(std::string_view list);
// 0 done; 2 a trace could not be read; 3 the output could not be written.
int RunDialect(const DialectArgs& a);

}  // namespace llmconform::harness
