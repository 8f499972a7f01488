#include <yaml-cpp/yaml.h>

#include <charconv>
#include <optional>
#include <utility>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "mockllm/import.h"
#include "mockllm/import_entries.h"
#include "mockllm/yaml_scalar.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

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

}  // namespace

std::string SingleQuotedScalar(const YAML::Node& n, std::string_view source) {
  const std::string& value = n.Scalar();
  const int at = n.Mark().pos;
  if (at < 0 || static_cast<std::size_t>(at) >= source.size() || source[at] != '\'') return value;
  std::size_t close = static_cast<std::size_t>(at) + 1;
  while (close < source.size()) {
    if (source[close] == '\'') {
      if (close + 1 < source.size() && source[close + 1] == '\'') {
        close += 2;
        continue;
      }
      break;
    }
    ++close;
  }
  if (close >= source.size()) return value;
  // The line breaks between the last content and the closing quote: the
  // first is folded away, each one after it ends an empty line (YAML 1.2 §6.5).
  std::size_t breaks = 0;
  std::size_t i = close;
  while (i > static_cast<std::size_t>(at) + 1) {
    const char c = source[i - 1];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') break;
    if (c == '\n') ++breaks;
    --i;
  }
  if (breaks < 2) return value;
  std::string out = value;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  out.append(breaks - 1, '\n');
  return out;
}

namespace {

// A scalar's bytes: `!!binary` decoded, a single-quoted one as YAML reads it
// (SingleQuotedScalar), anything else as written.
std::expected<std::string, YamlProblem> ScalarBytes(const YAML::Node& n, std::string_view source) {
  if (n.Tag() == kBinaryTag) {
    auto bytes = Base64Decode(RemoveBlanks(n.Scalar()));
    if (!bytes) return std::unexpected(YamlProblem{n.Mark(), "!!binary value is not base64"});
    return *bytes;
  }
  return SingleQuotedScalar(n, source);
}

struct YamlBody {
  std::optional<std::string> bytes;
  std::optional<OJson> json;
};

// `body` in any of the shapes cassettes use: a scalar (maybe !!binary),
// {string: …}, {type: json|text, content: …}, the parsed JSON mapping itself;
// or a sibling `parsed_body`.
std::expected<YamlBody, YamlProblem> BodyOf(const YAML::Node& parent, std::string_view source) {
  YamlBody out;
  std::size_t budget = kMaxYamlExpansion;
  const YAML::Node parsed = parent["parsed_body"];
  if (parsed && !parsed.IsNull()) {
    if (parsed.IsScalar() && parsed.Tag() != "?") {
      out.bytes = SingleQuotedScalar(parsed, source);
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
        auto bytes = ScalarBytes(content, source);
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
  auto bytes = ScalarBytes(body, source);
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

std::expected<std::vector<RawEntry>, YamlProblem> CassetteEntries(const YAML::Node& root,
                                                                  std::string_view source) {
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
    auto rb = BodyOf(req, source);
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
    auto sb = BodyOf(res, source);
    if (!sb) return std::unexpected(sb.error());
    e.response_bytes = std::move(sb->bytes);
    e.response_json = std::move(sb->json);
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
    auto got = CassetteEntries(root, text);
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

}  // namespace llmconform::mockllm
