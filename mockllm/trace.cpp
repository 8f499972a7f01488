#include "mockllm/trace.h"

#include <array>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/file.h"
#include "base/format.h"
#include "base/json.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "mockllm/canonical.h"
#include "mockllm/fault.h"
#include "protocols/wire/sse.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

std::unexpected<Error> Expected(std::string pointer, std::string_view what, const OJson& got) {
  return std::unexpected(
      Error::AtPointer(std::move(pointer), Format("expected {}, got {}", what, JsonTypeName(got))));
}

std::unexpected<Error> Problem(std::string pointer, std::string message) {
  return std::unexpected(Error::AtPointer(std::move(pointer), std::move(message)));
}

// `response`: the headers are replayed, so each must be one a response can
// carry (ResponseHeaderProblem).
std::expected<OJson, Error> HeadersFrom(const OJson& j, const std::string& pointer,
                                        bool response = false) {
  if (!j.is_object()) return Expected(pointer, "object", j);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string at = PointerAppend(pointer, it.key());
    if (!it->is_string()) return Expected(at, "string", *it);
    if (!response) continue;
    if (auto problem = ResponseHeaderProblem(it.key(), it->get_ref<const std::string&>()))
      return Problem(at, *problem);
  }
  return j;
}

std::expected<std::int64_t, Error> NonNegativeInt(const OJson& j, const std::string& pointer) {
  if (!j.is_number_integer()) return Expected(pointer, "integer", j);
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return Problem(pointer,
                   Format("expected an integer of at most {}, got {}",
                          std::numeric_limits<std::int64_t>::max(), j.get<std::uint64_t>()));
  }
  const auto v = j.get<std::int64_t>();
  if (v < 0) return Problem(pointer, Format("expected a non-negative integer, got {}", v));
  return v;
}

// A string field holding bytes: `raw` (text) or `raw_b64` (base64).
std::expected<std::optional<std::string>, Error> RawBytes(const OJson& j,
                                                          const std::string& pointer) {
  const bool has_raw = j.contains("raw");
  const bool has_b64 = j.contains("raw_b64");
  if (has_raw && has_b64) return Problem(pointer, "give one of raw and raw_b64, not both");
  if (has_raw) {
    if (!j["raw"].is_string()) return Expected(pointer + "/raw", "string", j["raw"]);
    return std::optional<std::string>(j["raw"].get<std::string>());
  }
  if (has_b64) {
    if (!j["raw_b64"].is_string()) return Expected(pointer + "/raw_b64", "string", j["raw_b64"]);
    auto bytes = Base64Decode(j["raw_b64"].get<std::string>());
    if (!bytes) return Problem(pointer + "/raw_b64", "invalid base64");
    return std::optional<std::string>(std::move(*bytes));
  }
  return std::optional<std::string>();
}

std::expected<std::vector<Chunk>, Error> ChunksFrom(const OJson& j) {
  const std::string base = "/response/chunks";
  if (!j.is_array()) return Expected(base, "array", j);
  std::vector<Chunk> chunks;
  std::int64_t last = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = Format("{}/{}", base, i);
    const OJson& c = j[i];
    if (!c.is_object()) return Expected(where, "object", c);
    if (!c.contains("t_ms")) return Problem(where, "missing field \"t_ms\"");
    auto t = NonNegativeInt(c["t_ms"], where + "/t_ms");
    if (!t) return std::unexpected(t.error());
    if (*t > kMaxTraceMs) {
      return Problem(where + "/t_ms",
                     Format("expected at most {} ms (about 31 years), got {}", kMaxTraceMs, *t));
    }
    if (*t < last)
      return Problem(where + "/t_ms", Format("t_ms goes backwards ({} after {})", *t, last));
    last = *t;
    auto raw = RawBytes(c, where);
    if (!raw) return std::unexpected(raw.error());
    if (!*raw) return Problem(where, "missing field \"raw\"");
    chunks.push_back(Chunk{*t, std::move(**raw)});
  }
  return chunks;
}

// The `events` shorthand: one chunk per event in standard SSE framing.
std::expected<std::vector<Chunk>, Error> EventsFrom(const OJson& j) {
  const std::string base = "/response/events";
  if (!j.is_array()) return Expected(base, "array", j);
  std::vector<Chunk> chunks;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = Format("{}/{}", base, i);
    const OJson& e = j[i];
    if (!e.is_object()) return Expected(where, "object", e);
    for (auto it = e.begin(); it != e.end(); ++it) {
      static constexpr std::array<std::string_view, 5> kKnown = {"data", "event", "id", "t_ms",
                                                                 "comment"};
      bool known = false;
      for (auto k : kKnown) known = known || it.key() == k;
      if (!known)
        return Problem(where + "/" + it.key(), Format("unknown event field \"{}\"", it.key()));
    }
    if (e.contains("t_ms")) {
      auto v = NonNegativeInt(e["t_ms"], where + "/t_ms");
      if (!v) return std::unexpected(v.error());
      if (*v > kMaxTraceMs) {
        return Problem(where + "/t_ms",
                       Format("expected at most {} ms (about 31 years), got {}", kMaxTraceMs, *v));
      }
      if (*v < t)
        return Problem(where + "/t_ms", Format("t_ms goes backwards ({} after {})", *v, t));
      t = *v;
    }
    if (e.contains("comment")) {
      if (!e["comment"].is_string()) return Expected(where + "/comment", "string", e["comment"]);
      if (e.contains("data")) return Problem(where, "an event has either data or comment");
      chunks.push_back(
          Chunk{t, llmconform::wire::WriteSseComment(e["comment"].get<std::string>()) + "\n"});
      continue;
    }
    if (!e.contains("data")) return Problem(where, "missing field \"data\"");
    llmconform::wire::SseEvent ev;
    ev.data = e["data"].is_string() ? e["data"].get<std::string>() : e["data"].dump();
    for (auto [key, field] : {std::pair{"event", &ev.event}, std::pair{"id", &ev.id}}) {
      if (!e.contains(key)) continue;
      if (!e[key].is_string()) return Expected(where + "/" + key, "string", e[key]);
      *field = e[key].get<std::string>();
    }
    chunks.push_back(Chunk{t, llmconform::wire::WriteSseEvent(ev)});
  }
  return chunks;
}

std::expected<RecordedRequest, Error> RequestFrom(const OJson& j) {
  if (!j.is_object()) return Expected("/request", "object", j);
  RecordedRequest r;
  if (j.contains("method")) {
    if (!j["method"].is_string()) return Expected("/request/method", "string", j["method"]);
    r.method = j["method"].get<std::string>();
  }
  if (!j.contains("path")) return Problem("/request", "missing field \"path\"");
  if (!j["path"].is_string()) return Expected("/request/path", "string", j["path"]);
  r.path = j["path"].get<std::string>();
  if (r.path.empty() || r.path.front() != '/') {
    return Problem("/request/path",
                   Format("expected a path starting with '/', got \"{}\"", r.path));
  }
  if (j.contains("headers")) {
    auto h = HeadersFrom(j["headers"], "/request/headers");
    if (!h) return std::unexpected(h.error());
    r.headers = *h;
  }
  if (j.contains("body")) r.body = j["body"];
  r.extra = JsonExtras(j, std::array<std::string_view, 4>{"method", "path", "headers", "body"});
  return r;
}

std::expected<RecordedResponse, Error> ResponseFrom(const OJson& j) {
  if (!j.is_object()) return Expected("/response", "object", j);
  RecordedResponse r;
  if (!j.contains("status")) return Problem("/response", "missing field \"status\"");
  if (!j["status"].is_number_integer()) return Expected("/response/status", "integer", j["status"]);
  // Compared before it is narrowed: 4294967496 read as an int is 200. A 1xx
  // is no final answer (a client would wait on, or take the next answer for
  // this one's).
  const bool in_range =
      j["status"].is_number_unsigned()
          ? j["status"].get<std::uint64_t>() - 200 <= 399
          : j["status"].get<std::int64_t>() >= 200 && j["status"].get<std::int64_t>() <= 599;
  if (!in_range) {
    return Problem("/response/status",
                   Format("expected a final HTTP status 200-599, got {}", j["status"].dump()));
  }
  r.status = j["status"].get<int>();
  if (j.contains("headers")) {
    auto h = HeadersFrom(j["headers"], "/response/headers", /*response=*/true);
    if (!h) return std::unexpected(h.error());
    r.headers = *h;
  }
  int bodies = 0;
  for (auto key : {"body", "raw", "raw_b64", "chunks", "events"}) bodies += j.contains(key) ? 1 : 0;
  if (bodies > 1) return Problem("/response", "give one of body, raw, raw_b64, chunks and events");
  if (j.contains("body")) r.body = j["body"];
  auto raw = RawBytes(j, "/response");
  if (!raw) return std::unexpected(raw.error());
  r.raw = std::move(*raw);
  if (j.contains("chunks")) {
    auto chunks = ChunksFrom(j["chunks"]);
    if (!chunks) return std::unexpected(chunks.error());
    r.chunks = std::move(*chunks);
    r.streamed = true;
  }
  if (j.contains("events")) {
    auto chunks = EventsFrom(j["events"]);
    if (!chunks) return std::unexpected(chunks.error());
    r.chunks = std::move(*chunks);
    r.streamed = true;
  }
  r.extra = JsonExtras(j, std::array<std::string_view, 7>{"status", "headers", "body", "raw",
                                                          "raw_b64", "chunks", "events"});
  return r;
}

// What a header line must hold: the format and a non-empty id.
std::expected<void, Error> HeaderCheck(const OJson& j) {
  if (!j.is_object()) return Expected("", "a header object", j);
  if (!j.contains("format"))
    return Problem("", "missing field \"format\" (not an llmconform trace?)");
  const OJson& format = j["format"];
  if (!format.is_string() || format.get<std::string>() != kTraceFormat) {
    return Problem("/format", Format("expected \"{}\", got {}", kTraceFormat, format.dump()));
  }
  if (!j.contains("id")) return Problem("", "missing field \"id\"");
  if (!j["id"].is_string()) return Expected("/id", "string", j["id"]);
  if (j["id"].get<std::string>().empty()) return Problem("/id", "expected a non-empty trace id");
  return {};
}

std::expected<Exchange, Error> ExchangeFrom(const OJson& j) {
  if (!j.is_object()) return Expected("", "object", j);
  Exchange x;
  if (j.contains("seq")) {
    if (!j["seq"].is_number_integer()) return Expected("/seq", "integer", j["seq"]);
    x.seq = j["seq"].get<std::int64_t>();
  }
  if (!j.contains("request")) return Problem("", "missing field \"request\"");
  auto req = RequestFrom(j["request"]);
  if (!req) return std::unexpected(req.error());
  x.request = std::move(*req);
  if (!j.contains("response")) return Problem("", "missing field \"response\"");
  auto res = ResponseFrom(j["response"]);
  if (!res) return std::unexpected(res.error());
  x.response = std::move(*res);
  if (j.contains("fault")) {
    auto fault = FaultFromJson(j["fault"]);
    if (!fault) return std::unexpected(fault.error().Under("/fault"));
    x.fault = j["fault"];
  }
  x.extra = JsonExtras(j, std::array<std::string_view, 4>{"seq", "request", "response", "fault"});
  return x;
}

// Parses one line as JSON; errors located at nlohmann's line and column.
std::expected<OJson, Error> ParseLine(std::string_view line, std::string_view name,
                                      std::size_t line_no) {
  // The parser reads a NUL byte as the end of its input; say what it is.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
    return std::unexpected(
        Error::At({std::string(name), line_no, nul + 1}, std::nullopt,
                  "a NUL byte (JSON text never holds one raw; escape it as \\u0000 in a string)"));
  }
  auto j = llmconform::ReadOrderedJson(name, line, {.first_line = line_no});
  if (!j) return std::unexpected(std::move(j.error()));
  return std::move(*j);
}

void AppendBytes(OJson& j, std::string_view key, std::string_view b64_key,
                 const std::string& bytes) {
  if (IsValidUtf8(bytes)) {
    j[std::string(key)] = bytes;
  } else {
    j[std::string(b64_key)] = Base64Encode(bytes);
  }
}

void MergeExtra(OJson& j, const OJson& extra) {
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
}

std::string Dump(const OJson& j) { return DumpJson(j); }

}  // namespace

std::optional<std::string> ResponseHeaderProblem(std::string_view name, std::string_view value) {
  // tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" /
  // "_" / "`" / "|" / "~" / DIGIT / ALPHA.
  const auto tchar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  };
  if (name.empty()) return "expected a header name, got an empty one";
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (tchar(name[i])) continue;
    return Format(
        "the header name {} is not an HTTP token (byte {} is {})",
        DumpJson(nlohmann::json(std::string(name.substr(0, 64)))), i,
        static_cast<unsigned char>(name[i]) < 0x21 || static_cast<unsigned char>(name[i]) >= 0x7f
            ? Format("0x{:02x}", static_cast<unsigned char>(name[i]))
            : Format("'{}'", name[i]));
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return Format("the header value holds a control character (0x{:02x} at byte {})", c, i);
  }
  return std::nullopt;
}

bool IsFramingHeader(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "content-length" || lower == "transfer-encoding" || lower == "connection" ||
         lower == "keep-alive" || lower == "te" || lower == "trailer" || lower == "upgrade" ||
         lower == "proxy-connection" || lower == "content-encoding";
}

std::string RecordedResponse::BodyBytes() const {
  if (raw) return *raw;
  if (body) return Dump(*body);
  return "";
}

std::string RecordedResponse::Header(std::string_view name) const {
  for (auto it = headers.begin(); it != headers.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < key.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(key[i])) ==
             std::tolower(static_cast<unsigned char>(name[i]));
    }
    if (same && it->is_string()) return it->get<std::string>();
  }
  return "";
}

std::expected<OJson, Error> ParseTraceHeader(std::string_view line, std::string_view name,
                                             std::size_t line_no) {
  auto j = ParseLine(line, name, line_no);
  if (!j) return std::unexpected(j.error());
  if (auto ok = HeaderCheck(*j); !ok)
    return std::unexpected(llmconform::PlacedInText(ok.error(), name, line, line_no));
  return j;
}

std::expected<Exchange, Error> ParseExchange(std::string_view line, std::string_view name,
                                             std::size_t line_no) {
  auto j = ParseLine(line, name, line_no);
  if (!j) return std::unexpected(j.error());
  auto x = ExchangeFrom(*j);
  if (!x) return std::unexpected(llmconform::PlacedInText(x.error(), name, line, line_no));
  x->line = line_no;
  return std::move(*x);
}

std::expected<OJson, Error> ParseTraceLine(std::string_view line, std::string_view name,
                                           std::size_t line_no) {
  return ParseLine(line, name, line_no);
}

std::expected<Exchange, Error> ExchangeFromJson(const OJson& j) { return ExchangeFrom(j); }

void ForEachTraceLine(std::string_view text,
                      const std::function<void(std::string_view line, std::size_t line_no)>& fn) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) fn(line, line_no);
  }
}

Error EmptyTraceError(std::string_view name) {
  return Error::At(
      {std::string(name), 1, 1}, std::nullopt,
      Format("empty trace: expected a header line {{\"format\":\"{}\",…}}", kTraceFormat));
}

std::expected<Trace, Error> ParseTrace(std::string_view text, std::string_view name) {
  Trace trace;
  trace.source = std::string(name);
  bool have_header = false;
  std::optional<Error> error;
  ForEachTraceLine(text, [&](std::string_view line, std::size_t line_no) {
    if (error) return;
    if (!have_header) {
      auto header = ParseTraceHeader(line, name, line_no);
      if (!header) {
        error = header.error();
        return;
      }
      trace.id = (*header)["id"].get<std::string>();
      trace.header = std::move(*header);
      have_header = true;
      return;
    }
    auto x = ParseExchange(line, name, line_no);
    if (!x) {
      error = x.error();
      return;
    }
    trace.exchanges.push_back(std::move(*x));
  });
  if (error) return std::unexpected(*error);
  if (!have_header) return std::unexpected(EmptyTraceError(name));
  return trace;
}

std::expected<Trace, Error> TraceFromJson(OJson header, const OJson& exchanges,
                                          std::string_view name) {
  if (auto ok = HeaderCheck(header); !ok) return std::unexpected(ok.error());
  if (!exchanges.is_null() && !exchanges.is_array())
    return Expected("/exchanges", "array", exchanges);
  Trace trace;
  trace.source = std::string(name);
  trace.id = header["id"].get<std::string>();
  trace.header = std::move(header);
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    auto x = ExchangeFrom(exchanges[i]);
    if (!x) return std::unexpected(x.error().Under(Format("/exchanges/{}", i)));
    trace.exchanges.push_back(std::move(*x));
  }
  return trace;
}

std::expected<Trace, Error> LoadTraceFile(const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text) return std::unexpected(text.error());
  return ParseTrace(*text, path.string());
}

std::string WriteTraceHeader(const OJson& header) { return Dump(header); }

std::string WriteExchange(const Exchange& x) {
  std::string out;
  AppendExchange(out, x);
  return out;
}

void AppendExchange(std::string& out, const Exchange& x) {
  OJson j = OJson::object();
  if (x.seq) j["seq"] = *x.seq;
  OJson req = OJson::object();
  req["method"] = x.request.method;
  req["path"] = x.request.path;
  req["headers"] = x.request.headers;
  if (x.request.body) req["body"] = *x.request.body;
  MergeExtra(req, x.request.extra);
  j["request"] = std::move(req);
  OJson res = OJson::object();
  res["status"] = x.response.status;
  res["headers"] = x.response.headers;
  if (x.response.streamed) {
    OJson chunks = OJson::array();
    for (const Chunk& c : x.response.chunks) {
      OJson cj = {{"t_ms", c.t_ms}};
      AppendBytes(cj, "raw", "raw_b64", c.raw);
      chunks.push_back(std::move(cj));
    }
    res["chunks"] = std::move(chunks);
  } else if (x.response.raw) {
    AppendBytes(res, "raw", "raw_b64", *x.response.raw);
  } else if (x.response.body) {
    res["body"] = *x.response.body;
  }
  MergeExtra(res, x.response.extra);
  j["response"] = std::move(res);
  if (x.fault) j["fault"] = *x.fault;
  MergeExtra(j, x.extra);
  llmconform::AppendJson(out, j);
}

std::string WriteTrace(const Trace& trace) {
  std::string out = WriteTraceHeader(trace.header);
  out.push_back('\n');
  for (const Exchange& x : trace.exchanges) {
    AppendExchange(out, x);
    out.push_back('\n');
  }
  return out;
}

}  // namespace llmconform::mockllm
