// The HAR 1.2 reader of `mockllm import`. The document is parsed with
// simdjson (a HAR is mostly bodies: a DOM of string views costs one pass and
// no per-value allocation); the error path parses once more with ReadJson,
// which says where the text stops being JSON.
#include <simdjson.h>

#include <optional>
#include <string>
#include <utility>

#include "base/base64.h"
#include "base/format.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "mockllm/import.h"
#include "mockllm/import_entries.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using simdjson::dom::element;
using simdjson::dom::element_type;

// The JSON type names of ReadJson's errors ("expected string, got number").
std::string_view TypeName(element_type t) {
  switch (t) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "number";
  }
  return "value";
}

bool IsNumber(element_type t) {
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

// The string or the number of an element known to be one.
std::string_view Str(element e) {
  std::string_view out;
  if (e.get_string().get(out) != simdjson::SUCCESS) return {};
  return out;
}
double Num(element e) {
  double out = 0;
  if (e.get_double().get(out) != simdjson::SUCCESS) return 0;
  return out;
}

// The member `key` of `j` when `j` is an object that has it.
std::optional<element> Member(element j, std::string_view key) {
  element m;
  if (!j.is_object() || j.get_object().at_key(key).get(m) != simdjson::SUCCESS) return std::nullopt;
  return m;
}

std::optional<std::string_view> StringMember(element j, std::string_view key) {
  auto m = Member(j, key);
  if (!m || !m->is_string()) return std::nullopt;
  return Str(*m);
}

// The member `key` of `j`, of type `type` (any number for a number type).
std::expected<element, Error> Need(element j, const std::string& pointer, const char* key,
                                   element_type type) {
  auto m = Member(j, key);
  if (!m) return std::unexpected(Error::AtPointer(pointer, Format("missing `{}`", key)));
  const bool ok = IsNumber(type) ? IsNumber(m->type()) : m->type() == type;
  if (!ok) {
    return std::unexpected(Error::AtPointer(
        pointer + "/" + key,
        Format("expected {}, got {}", type == element_type::INT64 ? "integer" : TypeName(type),
               TypeName(m->type()))));
  }
  return *m;
}

std::expected<Headers, Error> HarHeaders(element parent, const std::string& pointer) {
  Headers out;
  auto h = Member(parent, "headers");
  if (!h) return out;
  simdjson::dom::array headers;
  if (h->get_array().get(headers) != simdjson::SUCCESS)
    return std::unexpected(Error::AtPointer(pointer + "/headers", "expected an array"));
  std::size_t i = 0;
  for (element e : headers) {
    auto n = StringMember(e, "name");
    auto v = StringMember(e, "value");
    if (!n || !v) {
      return std::unexpected(Error::AtPointer(Format("{}/headers/{}", pointer, i),
                                              "expected {\"name\": string, \"value\": string}"));
    }
    out.emplace_back(std::string(*n), std::string(*v));
    ++i;
  }
  return out;
}

std::int64_t Millis(std::optional<element> j) {
  if (!j || !IsNumber(j->type())) return 0;
  const double d = Num(*j);
  if (!(d > 0) || d > static_cast<double>(kMaxTraceMs)) return 0;
  return static_cast<std::int64_t>(d);
}

// The body `text` of a postData or content object at `pointer`, base64
// decoded when its `encoding` says so; nullopt when it has no `text`.
std::expected<std::optional<std::string>, Error> Body(element holder, const std::string& pointer) {
  auto text = Member(holder, "text");
  if (!text) return std::nullopt;
  if (!text->is_string())
    return std::unexpected(
        Error::AtPointer(pointer, Format("expected string, got {}", TypeName(text->type()))));
  const std::string_view bytes = Str(*text);
  if (StringMember(holder, "encoding") == std::optional<std::string_view>("base64")) {
    auto decoded = Base64Decode(bytes);
    if (!decoded) return std::unexpected(Error::AtPointer(pointer, "invalid base64"));
    return std::move(*decoded);
  }
  return std::string(bytes);
}

std::expected<RawEntry, Error> HarEntry(element entry, std::size_t i) {
  const std::string p = Format("/log/entries/{}", i);
  RawEntry e;
  e.where = Format("entry {}", i + 1);
  e.request_at.pointer = p + "/request/postData/text";
  e.response_at.pointer = p + "/response/content/text";
  auto req = Need(entry, p, "request", element_type::OBJECT);
  if (!req) return std::unexpected(req.error());
  auto res = Need(entry, p, "response", element_type::OBJECT);
  if (!res) return std::unexpected(res.error());
  auto method = Need(*req, p + "/request", "method", element_type::STRING);
  if (!method) return std::unexpected(method.error());
  e.method = std::string(Str(*method));
  auto url = Need(*req, p + "/request", "url", element_type::STRING);
  if (!url) return std::unexpected(url.error());
  e.url = std::string(Str(*url));
  auto rh = HarHeaders(*req, p + "/request");
  if (!rh) return std::unexpected(rh.error());
  e.request_headers = std::move(*rh);
  if (auto post = Member(*req, "postData")) {
    auto body = Body(*post, p + "/request/postData/text");
    if (!body) return std::unexpected(body.error());
    e.request_bytes = std::move(*body);
  }
  auto status = Need(*res, p + "/response", "status", element_type::INT64);
  if (!status) return std::unexpected(status.error());
  const double s = Num(*status);
  if (!(s >= 200 && s <= 599))
    return std::unexpected(
        Error::AtPointer(p + "/response/status", "expected a final HTTP status code 200-599"));
  e.status = static_cast<int>(s);
  auto sh = HarHeaders(*res, p + "/response");
  if (!sh) return std::unexpected(sh.error());
  e.response_headers = std::move(*sh);
  if (auto content = Member(*res, "content")) {
    auto body = Body(*content, p + "/response/content/text");
    if (!body) return std::unexpected(body.error());
    e.response_bytes = std::move(*body);
  }
  if (auto t = Member(entry, "timings")) {
    e.first_ms = Millis(Member(*t, "wait"));
    e.last_ms = e.first_ms + Millis(Member(*t, "receive"));
  }
  return e;
}

std::expected<std::vector<RawEntry>, Error> HarEntries(element root) {
  auto log = Need(root, "", "log", element_type::OBJECT);
  if (!log) return std::unexpected(log.error());
  auto entries = Need(*log, "/log", "entries", element_type::ARRAY);
  if (!entries) return std::unexpected(entries.error());
  simdjson::dom::array list;
  if (entries->get_array().get(list) != simdjson::SUCCESS)
    return std::unexpected(Error::AtPointer("/log/entries", "expected array"));  // Need checked it
  std::vector<RawEntry> out;
  out.reserve(list.size());
  for (element entry : list) {
    auto e = HarEntry(entry, out.size());
    if (!e) return std::unexpected(e.error());
    out.push_back(std::move(*e));
  }
  return out;
}

// Where an error in a HAR is placed: at the value its pointer names, found
// in the text. Past kMaxLocatedBytes the locator places every pointer at the
// text's first non-blank (base/json_locate.h), so a longer text is not
// needed for that: Drop frees it and keeps that one place.
class PlaceInHar {
 public:
  explicit PlaceInHar(std::string_view json) : json_(json) {}
  // Frees `owner`, which holds the text, when the text is too long to be
  // walked: the parsed document holds every string from then on.
  void Drop(std::string* owner) {
    if (owner == nullptr || json_.size() <= llmconform::kMaxLocatedBytes) return;
    first_ = llmconform::LineColumnOf(json_, llmconform::LocateNearestJsonPointer(json_, ""));
    json_ = {};
    std::string().swap(*owner);
  }
  llmconform::LineColumn At(std::string_view pointer) const {
    if (first_) return *first_;
    return llmconform::LineColumnOf(json_, llmconform::LocateNearestJsonPointer(json_, pointer));
  }

 private:
  std::string_view json_;
  std::optional<llmconform::LineColumn> first_;  // set by Drop
};

// `text` is followed by at least simdjson::SIMDJSON_PADDING readable bytes when
// `padded`; otherwise simdjson copies it. `owner`, when given, holds `text`,
// which is freed once parsed when it is longer than kMaxLocatedBytes.
std::expected<ImportResult, Error> ParseHarText(std::string_view text, bool padded,
                                                std::string_view name, const ImportOptions& options,
                                                std::string* owner = nullptr) {
  std::string_view json = text;
  if (json.starts_with("\xEF\xBB\xBF")) json.remove_prefix(3);  // as ReadJson allows
  PlaceInHar place(json);
  std::expected<std::vector<RawEntry>, Error> entries;
  {
    simdjson::dom::parser parser;
    element root;
    // ReadJson's depth: what one reader refuses for nesting, the other does too.
    // An empty text is no JSON (and simdjson would copy from a null pointer).
    if (json.empty() ||
        parser.allocate(json.size(), llmconform::kMaxJsonDepth) != simdjson::SUCCESS ||
        parser.parse(json.data(), json.size(), !padded).get(root) != simdjson::SUCCESS) {
      // Rare, and only to say where: ReadJson locates what simdjson refused.
      auto located = llmconform::ReadJson(name, text);
      if (!located) {
        return std::unexpected(Error::At(*located.error().position, std::nullopt,
                                         Format("not JSON: {}", located.error().what)));
      }
      return std::unexpected(
          Error{Format("{}:1:1: not JSON the HAR reader takes (a number out of range?)", name)});
    }
    place.Drop(owner);
    json = text = {};  // freed, or no longer needed
    entries = HarEntries(root);
  }
  if (!entries) {
    const llmconform::LineColumn at = place.At(entries.error().pointer.value_or(""));
    return std::unexpected(entries.error().Placed({std::string(name), at.line, at.column}));
  }
  // Located in the text after its byte order mark, which is no column.
  return Assemble(std::move(*entries), name, "har", options, [name, &place](const BodyAt& at) {
    const llmconform::LineColumn lc = place.At(at.pointer);
    return Format("{}:{}:{}", name, lc.line, lc.column);
  });
}

}  // namespace

std::expected<ImportResult, Error> ParseHar(std::string_view text, std::string_view name,
                                            const ImportOptions& options) {
  return ParseHarText(text, false, name, options);
}

std::expected<ImportResult, Error> ParseRecording(std::string&& text, std::string_view name,
                                                  const ImportOptions& options) {
  if (FirstNonBlank(text) != '{') return ParseCassette(text, name, options);
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  auto result = ParseHarText(text, true, name, options, &text);
  std::string().swap(text);
  return result;
}

}  // namespace llmconform::mockllm
