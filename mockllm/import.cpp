#include "mockllm/import.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/atomic_file.h"
#include "base/format.h"
#include "base/utf8.h"
#include "mockllm/canonical.h"
#include "mockllm/content_coding.h"
#include "mockllm/import_entries.h"
#include "mockllm/redaction.h"
#include "mockllm/secrets.h"
#include "protocols/wire/gemini.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

// What one body may decode to, as a multiple of its encoded size
// (gzip(gzip(256 MiB)) is 1.7 KB: each layer alone stays under the cap of one
// body, the whole does not); a body may always decode to kDecodeFloorBytes.
// The file's total is ImportOptions::max_decoded_bytes.
struct DecodeBudget {
  std::size_t total;  // ImportOptions::max_decoded_bytes
  std::size_t left;
};
constexpr std::size_t kMaxDecodeRatio = 100;
constexpr std::size_t kDecodeFloorBytes = std::size_t{1} << 20;

std::string HeaderOf(const Headers& headers, std::string_view name) {
  for (const auto& [n, v] : headers) {
    if (Lower(n) == name) return v;
  }
  return "";
}

std::string PathOfUrl(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos)
    return url.starts_with('/') ? std::string(url) : "/" + std::string(url);
  const auto slash = url.find('/', scheme + 3);
  if (slash == std::string_view::npos) return "/";
  return std::string(url.substr(slash));
}

bool Kept(std::string_view path, ImportPaths paths) {
  const auto surface = wire::SurfaceOfPath(path);
  switch (paths) {
    case ImportPaths::kAll:
      return true;
    case ImportPaths::kChat:
      return surface == wire::Surface::kChat;
    case ImportPaths::kSurfaces:
      break;
  }
  return surface.has_value();
}

// Undoes the codings of `coding` ("gzip", "gzip, br") in reverse order. A
// body that claims a coding but does not decode and is valid UTF-8 was stored
// decoded already (vcrpy's decode_compressed_response, every HAR): kept as is.
// The decoded bytes are taken off `budget` (the file's); a body that would
// decode past kMaxDecodeRatio times its encoded size (or kDecodeFloorBytes),
// or past what is left of `budget`, is refused: the message says why.
std::expected<std::string, std::string> Decoded(std::string bytes, std::string_view coding,
                                                std::string_view what, const std::string& where,
                                                std::vector<std::string>& notes,
                                                DecodeBudget& budget) {
  std::vector<std::string> codings;
  std::size_t start = 0;
  while (start <= coding.size()) {
    auto comma = coding.find(',', start);
    if (comma == std::string_view::npos) comma = coding.size();
    std::string c(coding.substr(start, comma - start));
    while (!c.empty() && c.front() == ' ') c.erase(c.begin());
    while (!c.empty() && c.back() == ' ') c.pop_back();
    if (!c.empty()) codings.push_back(c);
    start = comma + 1;
  }
  const std::size_t encoded = bytes.size();
  const std::size_t by_ratio =
      std::max(kDecodeFloorBytes, encoded > kMaxDecodedBodyBytes / kMaxDecodeRatio
                                      ? kMaxDecodedBodyBytes
                                      : encoded * kMaxDecodeRatio);
  const std::size_t cap = std::min({by_ratio, budget.left, kMaxDecodedBodyBytes});
  bool decoded = false;
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    auto out = DecodeContent(*it, bytes, cap);
    if (out) {
      bytes = std::move(*out);
      if (Lower(*it) != "identity") decoded = true;
      continue;
    }
    if (out.error().kind == DecodeError::Kind::kTooLarge) {
      const std::string why =
          cap == by_ratio
              ? Format("more than {} times its {} encoded bytes (a decompression bomb?)",
                       kMaxDecodeRatio, encoded)
              : Format(
                    "more than is left of the {} bytes all the bodies of one file may "
                    "decode to",
                    budget.total);
      return std::unexpected(Format("{}: {} body: content-encoding \"{}\" decodes to {}", where,
                                    what, CapText(std::string(coding), 200), why));
    }
    if (!IsValidUtf8(bytes)) {
      notes.push_back(Format("{}: {} body kept as raw_b64: content-encoding {}: {}", where, what,
                             *it, out.error().message));
    }
    break;
  }
  if (decoded) budget.left -= std::min(budget.left, bytes.size());
  return bytes;
}

// One chunk per SSE event: each ends after the blank line that closes it;
// bytes after the last blank line make a last chunk. Joined, the chunks are
// `body` exactly.
std::vector<Chunk> EventChunks(std::string_view body, std::int64_t first_ms, std::int64_t last_ms) {
  std::vector<Chunk> out;
  std::size_t start = 0;
  std::size_t i = 0;
  bool content = false;  // a non-empty line since `start`
  while (i < body.size()) {
    std::size_t end = i;
    while (end < body.size() && body[end] != '\n' && body[end] != '\r') ++end;
    const bool empty = end == i;
    std::size_t next = end;
    if (next < body.size()) {
      next += (body[next] == '\r' && next + 1 < body.size() && body[next + 1] == '\n') ? 2 : 1;
    }
    if (empty && content && end < body.size()) {
      out.push_back(Chunk{first_ms, std::string(body.substr(start, next - start))});
      start = next;
      content = false;
    } else if (!empty) {
      content = true;
    }
    i = next;
  }
  if (start < body.size()) out.push_back(Chunk{first_ms, std::string(body.substr(start))});
  if (!out.empty()) out.back().t_ms = last_ms;
  return out;
}

// The headers a trace keeps of a recorded message, names lower-cased, values
// redacted: without HTTP/2 pseudo-headers and hop-by-hop ones (framing is the
// replaying server's) and, of a response, without a header no response can
// carry (a name that is no token, a control character), which would not load.
OJson KeptHeaders(const Headers& headers, const Redactor& redactor, bool response) {
  HeaderObject kept;
  for (const auto& [n, v] : headers) {
    std::string lower = Lower(n);
    if (lower.starts_with(':') || HopByHop(lower)) continue;
    if (response && ResponseHeaderProblem(lower, v)) continue;
    kept.Set(lower, redactor.HeaderValue(lower, v));
  }
  return std::move(kept).Take();
}

// Sets x.request's headers and body from `e`, redacted; a body that is not
// UTF-8 is kept as base64, with a note. Errors: a body that does not decode,
// located by `locate`.
std::expected<void, Error> ImportRequest(RawEntry& e, Exchange& x, const Redactor& redactor,
                                         DecodeBudget& budget, std::vector<std::string>& notes,
                                         const LocateBody& locate) {
  x.request.headers = KeptHeaders(e.request_headers, redactor, /*response=*/false);
  if (e.request_json) {
    x.request.body = redactor.Body(std::move(*e.request_json));
  } else if (e.request_bytes && !e.request_bytes->empty()) {
    auto decoded =
        Decoded(std::move(*e.request_bytes), HeaderOf(e.request_headers, "content-encoding"),
                "request", e.where, notes, budget);
    if (!decoded)
      return std::unexpected(Error{Format("{}: {}", locate(e.request_at), decoded.error())});
    std::string bytes = std::move(*decoded);
    if (IsValidUtf8(bytes)) {
      x.request.body = redactor.RequestBody(bytes);
    } else {
      x.request.body = OJson(Base64Encode(bytes));
      x.extra["note"] = "the request body was not UTF-8: `body` holds its base64";
      notes.push_back(Format("{}: request body is not UTF-8, kept as base64", e.where));
    }
  }
  return {};
}

// Sets x.response from `e`: its status, its headers (redacted, without the
// ones no replay can carry), and its body as JSON, SSE events (added to
// `events`, at most `max_events` in all), text, or raw bytes. Errors: a body
// that does not decode, or too many events, located by `locate`.
std::expected<void, Error> ImportResponse(RawEntry& e, Exchange& x, const Redactor& redactor,
                                          DecodeBudget& budget, std::vector<std::string>& notes,
                                          std::size_t& events, std::size_t max_events,
                                          const LocateBody& locate) {
  x.response.status = e.status;
  x.response.headers = KeptHeaders(e.response_headers, redactor, /*response=*/true);
  if (e.response_json) {
    x.response.body = redactor.Body(std::move(*e.response_json));
    return {};
  }
  if (!e.response_bytes) return {};
  const std::size_t notes_before = notes.size();
  auto decoded =
      Decoded(std::move(*e.response_bytes), HeaderOf(e.response_headers, "content-encoding"),
              "response", e.where, notes, budget);
  if (!decoded)
    return std::unexpected(Error{Format("{}: {}", locate(e.response_at), decoded.error())});
  std::string bytes = std::move(*decoded);
  if (notes.size() != notes_before) x.extra["note"] = notes.back();
  const bool sse = Lower(HeaderOf(e.response_headers, "content-type")).find("text/event-stream") !=
                   std::string::npos;
  if (sse && IsValidUtf8(bytes)) {
    x.response.streamed = true;
    x.response.chunks = EventChunks(bytes, e.first_ms, e.last_ms);
    events += x.response.chunks.size();
    if (events > max_events) {
      return std::unexpected(Error{
          Format("{}: {}: response body: the file's streams hold more than {} SSE events in all",
                 locate(e.response_at), e.where, max_events)});
    }
    RedactChunks(x.response.chunks, bytes);  // EventChunks: joined, the chunks are `bytes`
  } else if (IsValidUtf8(bytes)) {
    redactor.SetResponseBody(x.response, bytes);
  } else if (!bytes.empty()) {
    x.response.raw = std::move(bytes);
  }
  return {};
}

}  // namespace

std::expected<ImportResult, Error> Assemble(std::vector<RawEntry> entries, std::string_view name,
                                            std::string_view format, const ImportOptions& options,
                                            const LocateBody& locate) {
  ImportResult result;
  DecodeBudget budget{options.max_decoded_bytes, options.max_decoded_bytes};
  std::size_t events = 0;
  const Redactor redactor;
  std::string provider = options.provider;
  std::string model;
  bool any_streamed = false;
  // The surface of every exchange kept ("" for one of none), unless they differ.
  std::string_view trace_surface;
  bool surfaces_differ = false;
  for (RawEntry& e : entries) {
    Exchange x;
    x.request.method = e.method;
    x.request.path = PathOfUrl(e.url);
    if (const auto q = x.request.path.find('?'); q != std::string::npos) {
      // Like the recorder (and the server's matching), the path without its
      // query; the query is kept beside it.
      x.request.extra["query"] = RedactText(x.request.path.substr(q + 1));
      x.request.path.resize(q);
    }
    if (const auto f = x.request.path.find('#'); f != std::string::npos) x.request.path.resize(f);
    if (!Kept(x.request.path, options.paths)) {
      ++result.skipped;
      continue;
    }
    const auto surface = wire::SurfaceOfPath(x.request.path);
    const std::string_view surface_name = surface ? wire::SurfaceName(*surface) : "";
    if (result.trace.exchanges.empty()) {
      trace_surface = surface_name;
    } else if (trace_surface != surface_name) {
      surfaces_differ = true;
    }
    if (provider.empty()) provider = ProviderOfUrl(e.url);
    if (auto r = ImportRequest(e, x, redactor, budget, result.notes, locate); !r) {
      return std::unexpected(r.error());
    }
    if (model.empty() && x.request.body && x.request.body->is_object() &&
        x.request.body->contains("model") && (*x.request.body)["model"].is_string()) {
      model = (*x.request.body)["model"].get<std::string>();
    }
    if (model.empty()) model = wire::GeminiModelOfPath(x.request.path);  // Gemini: in the path
    if (auto r = ImportResponse(e, x, redactor, budget, result.notes, events, options.max_events,
                                locate);
        !r) {
      return std::unexpected(r.error());
    }
    any_streamed = any_streamed || x.response.streamed;
    x.seq = static_cast<std::int64_t>(result.trace.exchanges.size()) + 1;
    result.trace.exchanges.push_back(std::move(x));
  }
  if (result.trace.exchanges.empty()) {
    return std::unexpected(Error{Format("{}: no exchange to import ({} {} skipped: not {})", name,
                                        result.skipped, result.skipped == 1 ? "entry" : "entries",
                                        options.paths == ImportPaths::kChat
                                            ? "a /chat/completions path"
                                            : "a /chat/completions, /responses, /messages or "
                                              "Gemini /models/{model}:generateContent path")});
  }
  const std::string stem = TraceStem(name);
  result.trace.id = !options.trace_id.empty() ? options.trace_id
                    : provider.empty()        ? stem
                                              : provider + "/" + stem;
  std::string source(name);
  if (const auto slash = source.rfind('/'); slash != std::string::npos) source.erase(0, slash + 1);
  OJson h = OJson::object();
  h["format"] = kTraceFormat;
  h["id"] = result.trace.id;
  h["origin"] = "imported";
  h["source"] = RedactText(source);
  h["source_format"] = format;
  if (!surfaces_differ && !trace_surface.empty()) h["surface"] = trace_surface;
  if (!provider.empty()) h["provider"] = provider;
  if (!model.empty()) h["model"] = model;
  if (any_streamed) h["chunking"] = "events";
  if (result.skipped > 0) h["skipped"] = result.skipped;
  result.trace.header = std::move(h);
  result.trace.source = std::string(name);
  return result;
}

std::expected<ImportResult, Error> ParseRecording(std::string_view text, std::string_view name,
                                                  const ImportOptions& options) {
  return ParseRecording(std::string(text), name, options);
}

std::expected<LintReport, Error> WriteLintedTrace(Trace& trace, const std::filesystem::path& path) {
  TraceLinter linter(path.string());
  std::optional<llmconform::AtomicFile> sink;  // made at the first line that passes
  std::optional<Error> failed;                 // the first write error
  std::size_t line_no = 0;
  std::string line = WriteTraceHeader(trace.header);
  auto put = [&] {
    linter.Line(line, ++line_no);
    if (linter.problem_count() > 0 || failed) return;  // not written: lint the rest, to list it all
    if (!sink) {
      auto made = llmconform::AtomicFile::Create(path);
      if (!made) {
        failed = made.error();
        return;
      }
      sink.emplace(std::move(*made));
    }
    line.push_back('\n');
    if (auto w = sink->Write(line); !w) failed = w.error();
  };
  put();
  for (Exchange& x : trace.exchanges) {
    line.clear();
    AppendExchange(line, x);
    x = Exchange{};
    put();
  }
  LintReport report = std::move(linter).Finish();
  if (!report.problems.empty()) return report;  // the temporary file goes with `sink`
  if (failed) return std::unexpected(*failed);
  if (auto c = sink->Commit(); !c) return std::unexpected(c.error());
  return report;
}

std::string TraceStem(std::string_view source) {
  std::string s(source);
  if (const auto slash = s.rfind('/'); slash != std::string::npos) s.erase(0, slash + 1);
  for (std::string_view suffix : {".yaml", ".yml", ".har", ".json"}) {
    if (s.size() > suffix.size() && s.ends_with(suffix)) {
      s.resize(s.size() - suffix.size());
      break;
    }
  }
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '-';
  }
  if (s.empty() || s == "." || s == "..") s = "recording";
  return s;
}

std::string ProviderOfUrl(std::string_view url) {
  auto scheme = url.find("://");
  std::string_view host = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?"));
  const std::string h = Lower(std::string(host));
  static constexpr std::pair<std::string_view, std::string_view> kHosts[] = {
      {"api.openai.com", "openai"},
      {"api.anthropic.com", "anthropic"},
      {".openai.azure.com", "azure"},
      {".azure.com", "azure"},
      {"api.deepseek.com", "deepseek"},
      {"api.groq.com", "groq"},
      {"api.mistral.ai", "mistral"},
      {"openrouter.ai", "openrouter"},
      {"api.cerebras.ai", "cerebras"},
      {"api.together.xyz", "together"},
      {"api.fireworks.ai", "fireworks"},
      {"generativelanguage.googleapis.com", "gemini"},
      {"api.x.ai", "xai"},
      {"huggingface.co", "huggingface"},
      {"api.moonshot.ai", "moonshot"},
      {"api.perplexity.ai", "perplexity"},
      {"api.heroku.com", "heroku"},
      {"inference.heroku.com", "heroku"},
      {"localhost:11434", "ollama"},
      {"127.0.0.1:11434", "ollama"},
      {"api.githubcopilot.com", "github"},
      {"models.github.ai", "github"},
      {"api.vercel.com", "vercel"},
      {"nebius", "nebius"},
      {"ovh.net", "ovhcloud"},
      {"litellm", "litellm"},
  };
  for (const auto& [suffix, name] : kHosts) {
    if (h == suffix || h.ends_with(suffix) ||
        (suffix.front() != '.' && h.find(suffix) != std::string::npos))
      return std::string(name);
  }
  return "";
}

}  // namespace llmconform::mockllm
