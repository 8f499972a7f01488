#include "mockllm/journal_entry.h"

#include <array>

#include "base/format.h"
#include "base/json.h"
#include "base/json_locate.h"
#include "base/json_quote.h"
#include "base/json_read.h"

namespace llmconform::mockllm {

namespace {

constexpr std::array<std::string_view, std::size(kFindingKinds)> kFindingKindNames = {
    "request_mismatch", "trace_exhausted",     "no_match",
    "unknown_trace",    "malformed_request",   "admin_request",
    "proxy_failed",     "client_disconnected", "dialect_other_surface"};

// A body the journal packed into text, as JSON again (the text itself, should
// it not parse).
Json Unpacked(const std::string& text) {
  Json j = ReadJsonOrDiscarded(text);
  return j.is_discarded() ? Json(text) : j;
}

// Reads the fields of one entry, keeping the first error: every later read
// is skipped once one failed, so the error is the first in reading order.
class FieldReader {
 public:
  bool ok() const { return !error_; }
  Error TakeError() { return std::move(*error_); }

  // `T` from a located json_fields reader's result; nullopt after an error.
  template <typename T>
  std::optional<T> Take(std::expected<std::optional<T>, Error> r) {
    if (!ok()) return std::nullopt;
    if (!r) {
      error_ = std::move(r.error());
      return std::nullopt;
    }
    return std::move(*r);
  }
  // An integer of `j`'s `key` of at least `min`, or nullopt (absent, null, an error).
  std::optional<std::int64_t> AtLeast(const Json& j, const JsonPointer& at, std::string_view key,
                                      std::int64_t min) {
    auto n = Take(OptionalInt(j, at, key));
    if (n && *n < min) Fail(ErrorAt(at / std::string(key), Format("expected at least {}", min)));
    return ok() ? n : std::nullopt;
  }
  // `j`'s member `key` when it is an object; nullptr when absent or null
  // (or after an error), and an error when it is of another type.
  const Json* Object(const Json& j, const JsonPointer& at, std::string_view key) {
    const auto it = j.find(key);
    if (!ok() || it == j.end() || it->is_null()) return nullptr;
    if (!it->is_object()) {
      Fail(ErrorAt(at / std::string(key), Format("expected object, got {}", JsonTypeName(*it))));
      return nullptr;
    }
    return &*it;
  }
  void Fail(Error e) {
    if (ok()) error_ = std::move(e);
  }

 private:
  std::optional<Error> error_;
};

void ReadRequest(FieldReader& r, const Json& request, const JsonPointer& at, JournalEntry& e) {
  if (const Json* headers = r.Object(request, at, "headers")) {
    for (const auto& [name, value] : headers->items()) {
      if (!value.is_string()) {
        r.Fail(
            ErrorAt(at / "headers" / name, Format("expected string, got {}", JsonTypeName(value))));
        return;
      }
      e.headers.emplace_back(name, value.get<std::string>());
    }
  }
  e.body_cut = r.Take(OptionalBool(request, at, "body_cut")).value_or(false);
  if (r.ok() && request.contains("body")) e.body = request["body"];
}

void ReadResponse(FieldReader& r, const Json& response, const JsonPointer& at, JournalEntry& e) {
  if (auto status = r.AtLeast(response, at, "status", 0)) {
    if (*status != 0 && (*status < 100 || *status > 599))
      r.Fail(ErrorAt(at / "status", "expected an HTTP status (100-599), or 0 for none"));
    else
      e.status = static_cast<int>(*status);
  }
  if (auto exchange = r.AtLeast(response, at, "exchange", 0))
    e.exchange = static_cast<std::size_t>(*exchange);
  const auto bytes = r.AtLeast(response, at, "bytes", 0);
  const auto stream = r.Take(OptionalBool(response, at, "stream"));
  const auto cut = r.Take(OptionalBool(response, at, "cut"));
  auto outcome = r.Take(OptionalString(response, at, "outcome"));
  e.replayed = bytes || stream || cut || outcome;
  e.bytes = static_cast<std::size_t>(bytes.value_or(0));
  e.stream = stream.value_or(false);
  e.cut = cut.value_or(false);
  e.outcome = std::move(outcome).value_or("");
}

void ReadFindings(FieldReader& r, const Json& j, const JsonPointer& at, JournalEntry& e) {
  const auto findings = j.find("findings");
  if (findings == j.end() || findings->is_null()) return;
  if (!findings->is_array()) {
    r.Fail(ErrorAt(at / "findings", Format("expected array, got {}", JsonTypeName(*findings))));
    return;
  }
  for (std::size_t i = 0; i < findings->size() && r.ok(); ++i) {
    const Json& f = (*findings)[i];
    const JsonPointer fat = at / "findings" / i;
    if (auto object = RequireObjectAt(f, fat); !object) return r.Fail(std::move(object.error()));
    auto rule = RequireString(f, fat, "rule");
    auto message = RequireString(f, fat, "message");
    if (!rule) return r.Fail(std::move(rule.error()));
    if (!message) return r.Fail(std::move(message.error()));
    const auto kind = FindingKindFromName(*rule);
    if (!kind) {
      return r.Fail(ErrorAt(fat / "rule", Format("unknown finding {} (mockllm writes {})",
                                                 QuoteJson(*rule), FindingKindNames())));
    }
    e.findings.push_back({*kind, std::move(*message)});
  }
}

}  // namespace

std::string_view FindingKindName(FindingKind kind) {
  return kFindingKindNames[static_cast<std::size_t>(kind)];
}

std::optional<FindingKind> FindingKindFromName(std::string_view name) {
  for (FindingKind kind : kFindingKinds)
    if (FindingKindName(kind) == name) return kind;
  return std::nullopt;
}

std::string FindingKindNames() {
  std::string out;
  for (FindingKind kind : kFindingKinds) {
    if (!out.empty()) out += ", ";
    out += FindingKindName(kind);
  }
  return out;
}

bool IsUnmatched(FindingKind kind) {
  return kind == FindingKind::kNoMatch || kind == FindingKind::kRequestMismatch ||
         kind == FindingKind::kTraceExhausted || kind == FindingKind::kUnknownTrace;
}

Json JournalEntry::ToJson(std::uint64_t seq) const {
  Json headers_json = Json::object();
  for (const auto& [name, value] : headers) headers_json[name] = value;
  Json response = {{"status", status}, {"exchange", exchange ? Json(*exchange) : Json(nullptr)}};
  if (replayed) {
    response["stream"] = stream;
    response["bytes"] = bytes;
    response["cut"] = cut;
    response["outcome"] = outcome;
  }
  Json findings_json = Json::array();
  for (const auto& f : findings)
    findings_json.push_back({{"rule", FindingKindName(f.kind)}, {"message", f.message}});
  Json out = {{"seq", seq},
              {"session", session ? Json(*session) : Json(nullptr)},
              {"trace", trace ? Json(*trace) : Json(nullptr)},
              {"method", method},
              {"path", path},
              {"request",
               {{"headers", std::move(headers_json)},
                {"body", body_json.empty() ? body : Unpacked(body_json)}}},
              {"response", std::move(response)},
              {"findings", std::move(findings_json)}};
  if (body_cut) out["request"]["body_cut"] = true;
  if (fault) out["fault"] = *fault;
  if (!nearest_json.empty())
    out["nearest"] = Unpacked(nearest_json);
  else if (!nearest.is_null())
    out["nearest"] = nearest;
  if (proxied) out["proxied"] = *proxied;
  if (dialect) out["dialect"] = *dialect;
  if (at_ms) out["at_ms"] = *at_ms;
  return out;
}

std::expected<JournalRecord, Error> JournalRecordFromJson(const Json& j, const JsonPointer& at) {
  if (auto object = RequireObjectAt(j, at); !object) return std::unexpected(object.error());
  FieldReader r;
  JournalRecord out;
  JournalEntry& e = out.entry;
  if (auto seq = r.AtLeast(j, at, "seq", 0)) out.seq = static_cast<std::uint64_t>(*seq);
  if (auto n = r.AtLeast(j, at, "dropped_before", 1))
    out.dropped_before = static_cast<std::uint64_t>(*n);
  e.session = r.Take(OptionalString(j, at, "session"));
  e.trace = r.Take(OptionalString(j, at, "trace"));
  e.method = r.Take(OptionalString(j, at, "method")).value_or("");
  e.path = r.Take(OptionalString(j, at, "path")).value_or("");
  e.proxied = r.Take(OptionalString(j, at, "proxied"));
  e.dialect = r.Take(OptionalString(j, at, "dialect"));
  e.at_ms = r.AtLeast(j, at, "at_ms", 0);
  if (const Json* request = r.Object(j, at, "request")) ReadRequest(r, *request, at / "request", e);
  if (const Json* response = r.Object(j, at, "response"))
    ReadResponse(r, *response, at / "response", e);
  ReadFindings(r, j, at, e);
  if (!r.ok()) return std::unexpected(r.TakeError());
  if (const auto fault = j.find("fault"); fault != j.end() && !fault->is_null()) e.fault = *fault;
  if (const auto nearest = j.find("nearest"); nearest != j.end()) e.nearest = *nearest;
  return out;
}

namespace {

// An entry of a journal as `judge` reads one: JournalRecordFromJson's entry,
// with a "request" object.
std::expected<void, Error> CheckEntry(const Json& e, const JsonPointer& at) {
  if (auto r = JournalRecordFromJson(e, at); !r) return std::unexpected(std::move(r.error()));
  if (const auto request = e.find("request"); request == e.end() || request->is_null()) {
    if (auto r = RequireObject(e, at, "request"); !r) return std::unexpected(std::move(r.error()));
  }
  return {};
}

}  // namespace

std::expected<Json, Error> ParseJournal(std::string_view name, std::string_view text) {
  // A byte order mark (PowerShell's Out-File writes one) is not JSON.
  std::string_view body = text;
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  const auto located = [&](std::size_t offset, const Error& e) {
    // Counted after the mark, as the parser's own errors are.
    const LineColumn lc = LineColumnOf(body, offset);
    return std::unexpected(e.Placed({std::string(name), lc.line, lc.column}));
  };
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return Json::array();

  // One JSON document: an array of entries, an object with "entries", or one
  // entry; else JSON Lines of entries.
  const bool array = body[first] == '[';
  auto whole = ReadJson(name, body);
  if (!whole && array) return std::unexpected(std::move(whole.error()));
  if (whole) {
    JsonPointer list;
    Json entries;
    const bool single = whole->is_object() && !whole->contains("entries");
    if (whole->is_array()) {
      entries = std::move(*whole);
    } else if (whole->is_object() && whole->contains("entries")) {
      list = JsonPointer("/entries");
      entries = std::move((*whole)["entries"]);
      if (!entries.is_array())
        return located(LocateNearestJsonPointer(body, "/entries"),
                       ErrorAt(list, Format("expected array, got {}", JsonTypeName(entries))));
    } else if (single) {
      entries = Json::array({std::move(*whole)});
    } else {
      return located(first, Error{Format("expected a journal (an array of entries, an object with "
                                         "\"entries\", or JSON Lines of entries), got {}",
                                         JsonTypeName(*whole))});
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const JsonPointer at = single ? JsonPointer() : list / i;
      if (auto r = CheckEntry(entries[i], at); !r) {
        // The error names the value by its pointer; found in the text.
        return std::unexpected(
            PlacedInText(single ? r.error().Within("entry 1") : r.error(), name, body));
      }
    }
    return entries;
  }
  Json entries = Json::array();
  std::size_t line_no = 0, at = 0;
  while (at < body.size()) {
    const auto nl = body.find('\n', at);
    const std::string_view line =
        body.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    ++line_no;
    at = nl == std::string_view::npos ? body.size() : nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto entry = ReadJson(name, line, {.first_line = line_no});
    if (!entry) return std::unexpected(std::move(entry.error()));
    if (auto r = CheckEntry(*entry, JsonPointer()); !r) {
      return std::unexpected(PlacedInText(r.error().Within(Format("entry {}", entries.size() + 1)),
                                          name, line, line_no));
    }
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace llmconform::mockllm
