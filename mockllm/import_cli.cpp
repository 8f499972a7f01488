#include "mockllm/import_cli.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "base/atomic_file.h"
#include "base/file.h"
#include "base/format.h"
#include "mockllm/cli.h"
#include "mockllm/import.h"
#include "mockllm/lint.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
namespace fs = std::filesystem;

}  // namespace

void AddImport(CLI::App& cmd, ImportArgs& a) {
  cmd.add_option("FILE", a.files, "vcrpy/pytest-recording YAML cassettes or HAR 1.2 files")
      ->required();
  cmd.add_option("--out", a.out, "Folder to write FILE-STEM.trace.jsonl into")->required();
  cmd.add_option("--provider", a.provider,
                 "Header field provider (default: from the request host, e.g. api.groq.com: groq)");
  auto* only_chat = cmd.add_flag(
      "--only-chat", a.only_chat,
      "Import only Chat Completions exchanges (by default those of the Responses API, "
      "Gemini and Anthropic's Messages API are kept too), skipping and counting the rest");
  cmd.add_flag("--all-paths", a.all_paths,
               "Keep every exchange, whatever its path (by default only Chat Completions, "
               "Responses API, Gemini and Messages API exchanges are kept)")
      ->excludes(only_chat);
  cmd.footer(R"(
One trace per FILE, named after it (test_x[a].yaml: test_x-a-.trace.jsonl), with
header fields origin "imported", source (the file name), source_format (vcr or
har), surface (chat, responses, gemini or messages, when every exchange kept is
of that API),
provider, model, skipped (entries left out) and, when a response is a stream,
chunking "events": the recording does not say how the bytes arrived, so
each SSE event is one chunk. Bodies stored with content-encoding gzip, deflate
or br are decoded; one that cannot be decoded is kept as raw_b64 with a note.
Headers and bodies are redacted as by `mockllm record`, and each trace passes
`mockllm lint` before it is written (atomically: a temporary file renamed).
Errors name FILE:LINE:COL. Exit 0 when every file was imported, 2 when one could
not be read, was malformed, held no exchange to keep, or would replace
the trace of another input of this run (t[a].yaml and t(a).yaml both name
t-a-) (nothing is written for it; the other files still are), 3 when writing
failed.
See docs/trace-format.md.)");
}

int RunImport(const ImportArgs& a) {
  int status = kExitOk;
  std::map<fs::path, std::string> written;  // output → the input written there
  for (const std::string& file : a.files) {
    // Two inputs of one stem (t[a].yaml, t(a).yaml) name one output and one
    // trace id: the second would replace the first.
    const fs::path out = fs::path(a.out) / (TraceStem(file) + ".trace.jsonl");
    if (auto seen = written.find(out); seen != written.end()) {
      std::cerr << Format(
                       "mockllm: {}: would be written to {}, as {} was (the same trace id): "
                       "not written; import it on its own, or rename it",
                       file, out.string(), seen->second)
                << std::endl;
      status = std::max(status, kExitUsage);
      continue;
    }
    auto text = ReadFile(file);
    if (!text) {
      std::cerr << "mockllm: " << text.error().message << std::endl;
      status = std::max(status, kExitUsage);
      continue;
    }
    const ImportPaths paths = a.all_paths   ? ImportPaths::kAll
                              : a.only_chat ? ImportPaths::kChat
                                            : ImportPaths::kSurfaces;
    auto imported = ParseRecording(std::move(*text), file,
                                   ImportOptions{.provider = a.provider, .paths = paths});
    if (!imported) {
      std::cerr << "mockllm: " << imported.error().message << std::endl;
      status = std::max(status, kExitUsage);
      continue;
    }
    for (const std::string& note : imported->notes)
      std::cerr << "mockllm: " << file << ": " << note << std::endl;
    const std::size_t exchanges = imported->trace.exchanges.size();
    std::size_t streamed = 0;
    for (const Exchange& x : imported->trace.exchanges) streamed += x.response.streamed ? 1 : 0;
    auto report = WriteLintedTrace(imported->trace, out);
    if (!report) {
      std::cerr << "mockllm: " << report.error().message << std::endl;
      return kExitInternal;
    }
    if (!report->problems.empty()) {
      for (const std::string& p : report->problems) std::cerr << "mockllm: " << p << std::endl;
      std::cerr << "mockllm: " << file << ": the imported trace does not pass lint; not written"
                << std::endl;
      status = std::max(status, kExitUsage);
      continue;
    }
    written.emplace(out, file);
    std::cerr << Format("mockllm: {} -> {}: {} exchange(s), {} streamed, {} skipped", file,
                        out.string(), exchanges, streamed, imported->skipped)
              << std::endl;
  }
  return status;
}

void AddExport(CLI::App& cmd, ExportArgs& a) {
  cmd.add_option("TRACE", a.traces, "Trace files, or directories searched for *.trace.jsonl")
      ->required();
  cmd.add_flag("--har", a.har, "Write HAR 1.2 (the only format so far)")->required();
  cmd.add_option("--out", a.out, "File to write")->required();
  cmd.footer(R"(
Writes every exchange of the traces as one HAR 1.2 document, for a browser's
network panel or any HAR viewer: streamed bodies as their chunks joined, bytes
that are not UTF-8 as base64, chunk times as timings.wait (first chunk) and
timings.receive (first to last), faults named in each entry's comment.
`mockllm import` reads the file back.)");
}

int RunExport(const ExportArgs& a) {
  auto files = TraceFiles(a.traces);
  if (!files) return std::cerr << "mockllm: " << files.error().message << std::endl, kExitUsage;
  std::vector<Trace> traces;
  for (const fs::path& f : *files) {
    auto t = LoadTraceFile(f);
    if (!t) return std::cerr << "mockllm: " << t.error().message << std::endl, kExitUsage;
    traces.push_back(std::move(*t));
  }
  const std::string har = TracesToHar(traces, MOCKLLM_VERSION).dump(1) + "\n";
  if (auto w = WriteFileAtomically(a.out, har); !w) {
    std::cerr << "mockllm: " << w.error().message << std::endl;
    return kExitInternal;
  }
  std::size_t n = 0;
  for (const Trace& t : traces) n += t.exchanges.size();
  std::cerr << Format("mockllm: {} exchange(s) of {} trace(s) -> {}", n, traces.size(), a.out)
            << std::endl;
  return kExitOk;
}

}  // namespace llmconform::mockllm
