#include "mockllm/import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <utility>

#include "base/format.h"
#include "base/json.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "mockllm/canonical.h"
#include "mockllm/content_coding.h"
#include "mockllm/redaction.h"
#include "mockllm/secrets.h"
#include "protocols/wire/gemini.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using Headers = std::vector<std::pair<std::string, std::string>>;

// Where a body is in the recording, for an error about it: a YAML node's
// line and column (0-based, as yaml-cpp marks them), or a JSON pointer into
// a HAR document.
struct BodyAt {
  int line = -1, column = -1;
  std::string pointer;
};

// One request/response pair as a recording holds it, before it becomes an
// Exchange.
struct RawEntry {
  std::string where;  // "interaction 3", "entry 7"
  std::string method = "POST";
  std::string url;
  Headers request_headers;
  std::optional<std::string> request_bytes;
  std::optional<OJson> request_json;  // a parsed-body variant
  int status = 200;
  Headers response_headers;
  std::optional<std::string> response_bytes;
  std::optional<OJson> response_json;  // a parsed-body variant
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  BodyAt request_at, response_at;
};

// "file:line:col" of a body, as the reader of its recording finds it.
using LocateBody = std::function<std::string(const BodyAt&)>;

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

// Joins the entries into a trace: chat filter, decoding (within the file's
// budgets), redaction. An error about a body is located by `locate`.
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
  std::optional<wire::Surface> trace_surface;  // of every exchange kept, when they share one
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
    if (result.trace.exchanges.empty()) {
      trace_surface = surface;
    } else if (trace_surface != surface) {
      trace_surface.reset();
    }
    if (provider.empty()) provider = ProviderOfUrl(e.url);
    HeaderObject request_headers;
    for (const auto& [n, v] : e.request_headers) {
      std::string lower = Lower(n);
      if (lower.starts_with(':') || HopByHop(lower)) continue;
      request_headers.Set(lower, redactor.HeaderValue(lower, v));
    }
    x.request.headers = std::move(request_headers).Take();
    if (e.request_json) {
      x.request.body = redactor.Body(std::move(*e.request_json));
    } else if (e.request_bytes && !e.request_bytes->empty()) {
      auto decoded =
          Decoded(std::move(*e.request_bytes), HeaderOf(e.request_headers, "content-encoding"),
                  "request", e.where, result.notes, budget);
      if (!decoded)
        return std::unexpected(Error{Format("{}: {}", locate(e.request_at), decoded.error())});
      std::string bytes = std::move(*decoded);
      if (IsValidUtf8(bytes)) {
        x.request.body = redactor.RequestBody(bytes);
      } else {
        x.request.body = OJson(Base64Encode(bytes));
        x.extra["note"] = "the request body was not UTF-8: `body` holds its base64";
        result.notes.push_back(Format("{}: request body is not UTF-8, kept as base64", e.where));
      }
    }
    if (model.empty() && x.request.body && x.request.body->is_object() &&
        x.request.body->contains("model") && (*x.request.body)["model"].is_string()) {
      model = (*x.request.body)["model"].get<std::string>();
    }
    if (model.empty()) model = wire::GeminiModelOfPath(x.request.path);  // Gemini: in the path
    x.response.status = e.status;
    HeaderObject response_headers;
    for (const auto& [n, v] : e.response_headers) {
      std::string lower = Lower(n);
      // Framing is the replaying server's; a header no response can carry
      // (a name that is no token, a control character) would not load.
      if (lower.starts_with(':') || HopByHop(lower) || ResponseHeaderProblem(lower, v)) continue;
      response_headers.Set(lower, redactor.HeaderValue(lower, v));
    }
    x.response.headers = std::move(response_headers).Take();
    if (e.response_json) {
      x.response.body = redactor.Body(std::move(*e.response_json));
    } else if (e.response_bytes) {
      const std::size_t notes_before = result.notes.size();
      auto decoded =
          Decoded(std::move(*e.response_bytes), HeaderOf(e.response_headers, "content-encoding"),
                  "response", e.where, result.notes, budget);
      if (!decoded)
        return std::unexpected(Error{Format("{}: {}", locate(e.response_at), decoded.error())});
      std::string bytes = std::move(*decoded);
      if (result.notes.size() != notes_before) x.extra["note"] = result.notes.back();
      const bool sse =
          Lower(HeaderOf(e.response_headers, "content-type")).find("text/event-stream") !=
          std::string::npos;
      if (sse && IsValidUtf8(bytes)) {
        x.response.streamed = true;
        any_streamed = true;
        x.response.chunks = EventChunks(bytes, e.first_ms, e.last_ms);
        events += x.response.chunks.size();
        if (events > options.max_events) {
          return std::unexpected(Error{Format(
              "{}: {}: response body: the file's streams hold more than {} SSE events in all",
              locate(e.response_at), e.where, options.max_events)});
        }
        RedactChunks(x.response.chunks);
      } else if (IsValidUtf8(bytes)) {
        redactor.SetResponseBody(x.response, bytes);
      } else if (!bytes.empty()) {
        x.response.raw = std::move(bytes);
      }
    }
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
  if (trace_surface) h["surface"] = wire::SurfaceName(*trace_surface);
  if (!provider.empty()) h["provider"] = provider;
  if (!model.empty()) h["model"] = model;
  if (any_streamed) h["chunking"] = "events";
  if (result.skipped > 0) h["skipped"] = result.skipped;
  result.trace.header = std::move(h);
  result.trace.source = std::string(name);
  return result;
}

// --- YAML cassettes ---------------------------------------------------------

Error YamlError(std::string_view name, const YAML::Mark& mark, std::string_view what) {
  if (mark.is_null()) return Error{Format("{}: {}", name, what)};
  return Error{Format("{}:{}:{}: {}", name, mark.line + 1, mark.column + 1, what)};
}

struct YamlProblem {
  YAML::Mark mark;
  std::string what;
};

std::string RemoveBlanks(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') out += c;
  }
  return out;
}

constexpr std::string_view kBinaryTag = "tag:yaml.org,2002:binary";

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  const OJson j = ReadOrderedJsonOrDiscarded(s);
  return !j.is_discarded() && j.is_number();
}

// What one body may expand to: aliases make a YAML text of a few hundred
// bytes name a billion values ("billion laughs"). Counted as 64 bytes a value
// plus the bytes of its text.
constexpr std::size_t kMaxYamlExpansion = std::size_t{16} << 20;

// A YAML node as JSON (YAML 1.2 core schema for plain scalars). Depth-limited,
// and bounded by `budget` (kMaxYamlExpansion for a body), which it spends.
std::expected<OJson, YamlProblem> YamlToJson(const YAML::Node& n, std::size_t depth,
                                             std::size_t& budget) {
  if (depth > llmconform::kMaxJsonDepth)
    return std::unexpected(YamlProblem{n.Mark(), "nests too deep"});
  const std::size_t cost = 64 + (n.IsScalar() ? n.Scalar().size() : 0);
  if (cost > budget) {
    return std::unexpected(YamlProblem{
        n.Mark(), Format("expands to more than {} bytes of values (aliases of aliases?)",
                         kMaxYamlExpansion)});
  }
  budget -= cost;
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return OJson(nullptr);
    case YAML::NodeType::Sequence: {
      OJson a = OJson::array();
      for (const auto& e : n) {
        auto v = YamlToJson(e, depth + 1, budget);
        if (!v) return v;
        a.push_back(std::move(*v));
      }
      return a;
    }
    case YAML::NodeType::Map: {
      OJson o = OJson::object();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          return std::unexpected(YamlProblem{kv.first.Mark(), "a key that is not a scalar"});
        auto v = YamlToJson(kv.second, depth + 1, budget);
        if (!v) return v;
        o[kv.first.Scalar()] = std::move(*v);
      }
      return o;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == kBinaryTag) {
        auto bytes = Base64Decode(RemoveBlanks(s));
        if (!bytes) return std::unexpected(YamlProblem{n.Mark(), "!!binary value is not base64"});
        return OJson(IsValidUtf8(*bytes) ? *bytes : s);
      }
      if (n.Tag() != "?") return OJson(s);  // quoted or explicitly tagged: text
      if (s == "~" || s == "null" || s == "Null" || s == "NULL") return OJson(nullptr);
      if (s == "true" || s == "True" || s == "TRUE") return OJson(true);
      if (s == "false" || s == "False" || s == "FALSE") return OJson(false);
      if (IsNumber(s)) return OJson::parse(s);
      return OJson(s);
    }
  }
  return OJson(nullptr);
}

// A scalar's bytes: `!!binary` decoded, anything else as written.
std::expected<std::string, YamlProblem> ScalarBytes(const YAML::Node& n) {
  if (n.Tag() == kBinaryTag) {
    auto bytes = Base64Decode(RemoveBlanks(n.Scalar()));
    if (!bytes) return std::unexpected(YamlProblem{n.Mark(), "!!binary value is not base64"});
    return *bytes;
  }
  return n.Scalar();
}

struct YamlBody {
  std::optional<std::string> bytes;
  std::optional<OJson> json;
};

// `body` in any of the shapes cassettes use: a scalar (maybe !!binary),
// {string: …}, {type: json|text, content: …}, the parsed JSON mapping itself;
// or a sibling `parsed_body`.
std::expected<YamlBody, YamlProblem> BodyOf(const YAML::Node& parent) {
  YamlBody out;
  std::size_t budget = kMaxYamlExpansion;
  const YAML::Node parsed = parent["parsed_body"];
  if (parsed && !parsed.IsNull()) {
    if (parsed.IsScalar() && parsed.Tag() != "?") {
      out.bytes = parsed.Scalar();
      return out;
    }
    auto j = YamlToJson(parsed, 0, budget);
    if (!j) return std::unexpected(j.error());
    out.json = std::move(*j);
    return out;
  }
  YAML::Node body = parent["body"];
  if (!body || body.IsNull()) return out;
  if (body.IsMap()) {
    if (body["string"]) {
      body = body["string"];
    } else if (body["content"]) {
      const YAML::Node content = body["content"];
      const std::string type = body["type"] && body["type"].IsScalar() ? body["type"].Scalar() : "";
      if (content.IsScalar() && (type != "json" || content.Tag() != "?")) {
        auto bytes = ScalarBytes(content);
        if (!bytes) return std::unexpected(bytes.error());
        out.bytes = std::move(*bytes);
        return out;
      }
      auto j = YamlToJson(content, 0, budget);
      if (!j) return std::unexpected(j.error());
      out.json = std::move(*j);
      return out;
    } else {
      // The body itself as the parsed JSON mapping (pydantic-ai's Hugging Face
      // cassettes store request bodies this way).
      auto j = YamlToJson(body, 0, budget);
      if (!j) return std::unexpected(j.error());
      out.json = std::move(*j);
      return out;
    }
    if (body.IsNull()) return out;
  }
  if (!body.IsScalar()) return std::unexpected(YamlProblem{body.Mark(), "body: expected a string"});
  auto bytes = ScalarBytes(body);
  if (!bytes) return std::unexpected(bytes.error());
  out.bytes = std::move(*bytes);
  return out;
}

std::expected<Headers, YamlProblem> HeadersOf(const YAML::Node& n) {
  Headers out;
  if (!n || n.IsNull()) return out;
  if (!n.IsMap()) return std::unexpected(YamlProblem{n.Mark(), "headers: expected a mapping"});
  for (const auto& kv : n) {
    if (!kv.first.IsScalar())
      return std::unexpected(YamlProblem{kv.first.Mark(), "headers: a name that is not a string"});
    std::string value;
    if (kv.second.IsSequence()) {
      for (const auto& v : kv.second) {
        if (!v.IsScalar())
          return std::unexpected(YamlProblem{v.Mark(), "headers: expected string values"});
        if (!value.empty()) value += ", ";
        value += v.Scalar();
      }
    } else if (kv.second.IsScalar()) {
      value = kv.second.Scalar();
    } else if (!kv.second.IsNull()) {
      return std::unexpected(
          YamlProblem{kv.second.Mark(), "headers: expected a string or a list of strings"});
    }
    out.emplace_back(kv.first.Scalar(), std::move(value));
  }
  return out;
}

std::expected<std::string, YamlProblem> ScalarField(const YAML::Node& parent, const char* key,
                                                    std::string_view what) {
  const YAML::Node n = parent[key];
  if (!n) return std::unexpected(YamlProblem{parent.Mark(), Format("{}: missing `{}`", what, key)});
  if (!n.IsScalar())
    return std::unexpected(YamlProblem{n.Mark(), Format("{}.{}: expected a string", what, key)});
  return n.Scalar();
}

std::expected<int, YamlProblem> StatusOf(const YAML::Node& response) {
  YAML::Node s = response["status"];
  if (s && s.IsMap()) s = s["code"];
  if (!s && response["status_code"]) s = response["status_code"];
  if (!s) return std::unexpected(YamlProblem{response.Mark(), "response: missing `status`"});
  if (!s.IsScalar())
    return std::unexpected(YamlProblem{s.Mark(), "response.status: expected a number"});
  int code = 0;
  const std::string& t = s.Scalar();
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), code);
  // 200-599, the range a trace holds (docs/trace-format.md): an import must
  // write a trace its own reader takes.
  if (ec != std::errc() || p != t.data() + t.size() || code < 200 || code > 599) {
    return std::unexpected(YamlProblem{
        s.Mark(),
        Format("response.status: expected a final HTTP status code 200-599, got \"{}\"", t)});
  }
  return code;
}

// Where the body of a request or response mapping is: its `parsed_body` or
// `body` node, else the mapping.
BodyAt BodyMark(const YAML::Node& parent) {
  YAML::Mark mark = parent.Mark();
  for (const char* key : {"parsed_body", "body"}) {
    if (const YAML::Node n = parent[key]; n && !n.IsNull()) {
      mark = n.Mark();
      break;
    }
  }
  if (mark.is_null()) return {};
  return {mark.line, mark.column, ""};
}

std::expected<std::vector<RawEntry>, YamlProblem> CassetteEntries(const YAML::Node& root) {
  if (!root.IsMap())
    return std::unexpected(
        YamlProblem{root.Mark(), "expected a cassette (a mapping with `interactions`)"});
  const YAML::Node interactions = root["interactions"];
  if (!interactions) return std::unexpected(YamlProblem{root.Mark(), "missing `interactions`"});
  if (!interactions.IsSequence())
    return std::unexpected(YamlProblem{interactions.Mark(), "interactions: expected a list"});
  std::vector<RawEntry> out;
  std::size_t i = 0;
  for (const auto& it : interactions) {
    ++i;
    RawEntry e;
    e.where = Format("interaction {}", i);
    if (!it.IsMap())
      return std::unexpected(YamlProblem{it.Mark(), Format("{}: expected a mapping", e.where)});
    const YAML::Node req = it["request"];
    const YAML::Node res = it["response"];
    if (!req || !req.IsMap())
      return std::unexpected(
          YamlProblem{it.Mark(), Format("{}: missing `request` mapping", e.where)});
    if (!res || !res.IsMap())
      return std::unexpected(
          YamlProblem{it.Mark(), Format("{}: missing `response` mapping", e.where)});
    auto method = ScalarField(req, "method", "request");
    if (!method) return std::unexpected(method.error());
    e.method = *method;
    auto uri = ScalarField(req, "uri", "request");
    if (!uri) return std::unexpected(uri.error());
    e.url = *uri;
    auto rh = HeadersOf(req["headers"]);
    if (!rh) return std::unexpected(rh.error());
    e.request_headers = std::move(*rh);
    e.request_at = BodyMark(req);
    auto rb = BodyOf(req);
    if (!rb) return std::unexpected(rb.error());
    e.request_bytes = std::move(rb->bytes);
    e.request_json = std::move(rb->json);
    auto status = StatusOf(res);
    if (!status) return std::unexpected(status.error());
    e.status = *status;
    auto sh = HeadersOf(res["headers"]);
    if (!sh) return std::unexpected(sh.error());
    e.response_headers = std::move(*sh);
    e.response_at = BodyMark(res);
    auto sb = BodyOf(res);
    if (!sb) return std::unexpected(sb.error());
    e.response_bytes = std::move(sb->bytes);
    e.response_json = std::move(sb->json);
    out.push_back(std::move(e));
  }
  return out;
}

// --- HAR ---------------------------------------------------------------------

struct HarProblem {
  std::string pointer;
  std::string what;
};

const Json* Member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::expected<const Json*, HarProblem> Need(const Json& j, const std::string& pointer,
                                            const char* key, Json::value_t type,
                                            std::string_view type_name) {
  const Json* m = Member(j, key);
  if (!m) return std::unexpected(HarProblem{pointer, Format("missing `{}`", key)});
  const bool ok = type == Json::value_t::number_integer ? m->is_number() : m->type() == type;
  if (!ok) {
    return std::unexpected(
        HarProblem{pointer + "/" + key, Format("expected {}, got {}", type_name, m->type_name())});
  }
  return m;
}

std::expected<Headers, HarProblem> HarHeaders(const Json& parent, const std::string& pointer) {
  Headers out;
  const Json* h = Member(parent, "headers");
  if (!h) return out;
  if (!h->is_array()) return std::unexpected(HarProblem{pointer + "/headers", "expected an array"});
  for (std::size_t i = 0; i < h->size(); ++i) {
    const Json& e = (*h)[i];
    const Json* n = Member(e, "name");
    const Json* v = Member(e, "value");
    if (!n || !n->is_string() || !v || !v->is_string()) {
      return std::unexpected(HarProblem{Format("{}/headers/{}", pointer, i),
                                        "expected {\"name\": string, \"value\": string}"});
    }
    out.emplace_back(n->get<std::string>(), v->get<std::string>());
  }
  return out;
}

std::int64_t Millis(const Json* j) {
  if (!j || !j->is_number()) return 0;
  const double d = j->get<double>();
  if (!(d > 0) || d > static_cast<double>(kMaxTraceMs)) return 0;
  return static_cast<std::int64_t>(d);
}

// Moves a string out of the parsed HAR: bodies are most of the file, and a copy
// would hold them twice. `j` is a member of the caller's mutable document.
std::string TakeString(const Json& j) {
  return std::move(const_cast<Json&>(j).get_ref<std::string&>());
}

// Reads the entries of a HAR document, moving the bodies out of `root`.
std::expected<std::vector<RawEntry>, HarProblem> HarEntries(Json& root) {
  auto log = Need(root, "", "log", Json::value_t::object, "object");
  if (!log) return std::unexpected(log.error());
  auto entries = Need(**log, "/log", "entries", Json::value_t::array, "array");
  if (!entries) return std::unexpected(entries.error());
  std::vector<RawEntry> out;
  out.reserve((*entries)->size());
  for (std::size_t i = 0; i < (*entries)->size(); ++i) {
    const Json& entry = (**entries)[i];
    const std::string p = Format("/log/entries/{}", i);
    RawEntry e;
    e.where = Format("entry {}", i + 1);
    e.request_at.pointer = p + "/request/postData/text";
    e.response_at.pointer = p + "/response/content/text";
    auto req = Need(entry, p, "request", Json::value_t::object, "object");
    if (!req) return std::unexpected(req.error());
    auto res = Need(entry, p, "response", Json::value_t::object, "object");
    if (!res) return std::unexpected(res.error());
    auto method = Need(**req, p + "/request", "method", Json::value_t::string, "string");
    if (!method) return std::unexpected(method.error());
    e.method = (*method)->get<std::string>();
    auto url = Need(**req, p + "/request", "url", Json::value_t::string, "string");
    if (!url) return std::unexpected(url.error());
    e.url = (*url)->get<std::string>();
    auto rh = HarHeaders(**req, p + "/request");
    if (!rh) return std::unexpected(rh.error());
    e.request_headers = std::move(*rh);
    if (const Json* post = Member(**req, "postData")) {
      if (const Json* text = Member(*post, "text")) {
        if (!text->is_string())
          return std::unexpected(HarProblem{p + "/request/postData/text",
                                            Format("expected string, got {}", text->type_name())});
        e.request_bytes = TakeString(*text);
        const Json* enc = Member(*post, "encoding");
        if (enc && enc->is_string() && enc->get<std::string>() == "base64") {
          auto bytes = Base64Decode(*e.request_bytes);
          if (!bytes)
            return std::unexpected(HarProblem{p + "/request/postData/text", "invalid base64"});
          e.request_bytes = std::move(*bytes);
        }
      }
    }
    auto status = Need(**res, p + "/response", "status", Json::value_t::number_integer, "integer");
    if (!status) return std::unexpected(status.error());
    const double s = (*status)->get<double>();
    if (!(s >= 200 && s <= 599))
      return std::unexpected(
          HarProblem{p + "/response/status", "expected a final HTTP status code 200-599"});
    e.status = static_cast<int>(s);
    auto sh = HarHeaders(**res, p + "/response");
    if (!sh) return std::unexpected(sh.error());
    e.response_headers = std::move(*sh);
    if (const Json* content = Member(**res, "content")) {
      if (const Json* text = Member(*content, "text")) {
        if (!text->is_string())
          return std::unexpected(HarProblem{p + "/response/content/text",
                                            Format("expected string, got {}", text->type_name())});
        const Json* enc = Member(*content, "encoding");
        if (enc && enc->is_string() && enc->get<std::string>() == "base64") {
          auto bytes = Base64Decode(text->get_ref<const std::string&>());
          if (!bytes)
            return std::unexpected(HarProblem{p + "/response/content/text", "invalid base64"});
          e.response_bytes = std::move(*bytes);
        } else {
          e.response_bytes = TakeString(*text);
        }
      }
    }
    if (const Json* t = Member(entry, "timings")) {
      e.first_ms = Millis(Member(*t, "wait"));
      e.last_ms = e.first_ms + Millis(Member(*t, "receive"));
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

std::expected<ImportResult, Error> ParseCassette(std::string_view text, std::string_view name,
                                                 const ImportOptions& options) {
  std::vector<RawEntry> entries;
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    auto got = CassetteEntries(root);
    if (!got) return std::unexpected(YamlError(name, got.error().mark, got.error().what));
    entries = std::move(*got);
  } catch (const YAML::Exception& e) {
    return std::unexpected(YamlError(name, e.mark, e.msg));
  }
  return Assemble(std::move(entries), name, "vcr", options, [name](const BodyAt& at) {
    if (at.line < 0) return std::string(name);
    return Format("{}:{}:{}", name, at.line + 1, at.column + 1);
  });
}

std::expected<ImportResult, Error> ParseHar(std::string_view text, std::string_view name,
                                            const ImportOptions& options) {
  auto parsed = llmconform::ReadJson(name, text);
  if (!parsed) {
    return std::unexpected(Error{Format("{}:{}:{}: not JSON: {}", name, parsed.error().where.line,
                                        parsed.error().where.column, parsed.error().what)});
  }
  Json root = std::move(*parsed);
  auto entries = HarEntries(root);
  root = Json();
  if (!entries) {
    const auto at = llmconform::LineColumnOf(
        text, llmconform::LocateNearestJsonPointer(text, entries.error().pointer));
    const std::string ptr = entries.error().pointer.empty() ? "" : entries.error().pointer + ": ";
    return std::unexpected(
        Error{Format("{}:{}:{}: {}{}", name, at.line, at.column, ptr, entries.error().what)});
  }
  return Assemble(std::move(*entries), name, "har", options, [name, text](const BodyAt& at) {
    const auto lc =
        llmconform::LineColumnOf(text, llmconform::LocateNearestJsonPointer(text, at.pointer));
    return Format("{}:{}:{}", name, lc.line, lc.column);
  });
}

std::expected<ImportResult, Error> ParseRecording(std::string_view text, std::string_view name,
                                                  const ImportOptions& options) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '{') return ParseHar(text, name, options);
    break;
  }
  return ParseCassette(text, name, options);
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
