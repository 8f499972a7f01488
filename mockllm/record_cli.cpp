#include "mockllm/record_cli.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "base/file.h"
#include "base/format.h"
#include "mockllm/cli.h"
#include "mockllm/cli_support.h"
#include "mockllm/recorder.h"

namespace llmconform::mockllm {

using llmconform::Format;
namespace fs = std::filesystem;

void AddRecord(CLI::App& cmd, RecordArgs& a) {
  cmd.add_option("--upstream", a.upstream, "Endpoint to forward to: http(s)://HOST[:PORT][/PREFIX]")
      ->required();
  cmd.add_option("--out", a.out,
                 "Trace file to write (each exchange appended and flushed as it ends)")
      ->required();
  cmd.add_option("--host", a.host, "Address to bind")->capture_default_str();
  cmd.add_option("--port", a.port, "Port to bind (0: an ephemeral port)")->capture_default_str();
  cmd.add_option("--redact-header", a.redact_headers,
                 "Header whose value is never written (besides the built-in ones)");
  cmd.add_option("--redact-json", a.redact_json,
                 "JSON pointer in request and response bodies whose value is never written");
  cmd.add_option("--id", a.id, "Trace id (default: the file name without .trace.jsonl)");
  cmd.add_option("--provider", a.provider, "Header field provider");
  cmd.add_option("--model", a.model, "Header field model");
  cmd.add_option("--notes", a.notes, "Header field notes");
  cmd.add_option("--upstream-timeout", a.upstream_timeout,
                 "Seconds to wait to connect and for the upstream's next bytes before giving up "
                 "(slow streams are never cut sooner)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option(
         "--upstream-ca", a.upstream_ca,
         "PEM file of CA certificates trusted for an https upstream (default: the system's)")
      ->check(CLI::ExistingFile);
  cmd.add_flag("--append", a.append, "Add to an existing trace instead of refusing to touch it");
  cmd.add_option("--max-body", a.max_body, "Largest request body in bytes (larger: 413)")
      ->capture_default_str();
  cmd.footer(R"(
Point a client's base URL at http://HOST:PORT/v1 (or wherever the upstream's API
lives under it). Requests are forwarded as they come, answers streamed back as
the bytes arrive, and every finished exchange appended to --out. Never written:
authorization, proxy-authorization, api-key, x-api-key, x-goog-api-key, cookie,
set-cookie values, --redact-header and --redact-json values, and sk-... keys or
Bearer tokens anywhere. Prints "listening on http://HOST:PORT" on stdout when
ready; stops on SIGINT or SIGTERM.)");
}

int RunRecord(const RecordArgs& a) {
  OJson header = OJson::object();
  if (!a.provider.empty()) header["provider"] = a.provider;
  if (!a.model.empty()) header["model"] = a.model;
  if (!a.notes.empty()) header["notes"] = a.notes;
  BlockStopSignals();
  auto recorder = Recorder::Start(RecorderOptions{
      .recording = {.upstream = a.upstream,
                    .out = a.out,
                    .append = a.append,
                    .redact_headers = a.redact_headers,
                    .redact_json = a.redact_json,
                    .trace_id = a.id,
                    .header_fields = header,
                    .upstream_timeout_seconds = a.upstream_timeout,
                    .upstream_ca_file = a.upstream_ca},
      .listen = {.host = a.host, .port = a.port, .threads = 16, .max_body_bytes = a.max_body}});
  if (!recorder) return Diagnose(recorder.error().message), kExitUsage;
  std::cerr << "mockllm: recording " << a.upstream << " to " << a.out << std::endl;
  AnnounceListening((*recorder)->base_url());
  WaitForStopSignal();
  (*recorder)->Stop();
  std::cerr << "mockllm: recorded " << (*recorder)->exchanges_written() << " exchange(s) to "
            << a.out << std::endl;
  return kExitOk;
}

}  // namespace llmconform::mockllm
