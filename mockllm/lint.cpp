#include "mockllm/lint.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "base/format.h"
#include "base/json_locate.h"
#include "mockllm/canonical.h"
#include "mockllm/secrets.h"
#include "mockllm/surface_lint.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

// The offsets of a line's values, found once when its first problem is placed
// (a line may have thousands of problems; placing each by parsing the line
// again was quadratic).
class LineOffsets {
 public:
  explicit LineOffsets(std::string_view line) : line_(line) {}
  std::size_t Nearest(const std::string& pointer) const {
    if (!offsets_) offsets_.emplace(line_);
    return offsets_->Nearest(pointer);
  }
  const llmconform::JsonOffsets& All() const {
    if (!offsets_) offsets_.emplace(line_);
    return *offsets_;
  }

 private:
  std::string_view line_;
  mutable std::optional<llmconform::JsonOffsets> offsets_;
};

struct LineContext {
  std::string_view line;
  std::string_view name;
  std::size_t line_no;
  std::vector<std::string>& problems;
  const LineOffsets& offsets;

  std::string At(const std::string& pointer, const std::string& message) const {
    const std::size_t column = offsets.Nearest(pointer) + 1;
    return Format("{}:{}:{}: {}: {}", name, line_no, column, pointer.empty() ? "/" : pointer,
                  message);
  }
  void Report(const std::string& pointer, const std::string& message) const {
    problems.push_back(At(pointer, message));
  }
};

// The framing headers a response of the exchange line `j` carries: replay
// leaves them out (IsFramingHeader).
void WarnFramingHeaders(const OJson& j, const LineContext& ctx, std::vector<std::string>& out) {
  if (!j.is_object() || !j.contains("response") || !j["response"].is_object()) return;
  const OJson& r = j["response"];
  if (!r.contains("headers") || !r["headers"].is_object()) return;
  for (auto it = r["headers"].begin(); it != r["headers"].end(); ++it) {
    if (!IsFramingHeader(it.key())) continue;
    out.push_back(ctx.At(PointerAppend("/response/headers", it.key()),
                         "warning: a framing header, not replayed (the server frames the answer "
                         "itself)"));
  }
}

// A request path with a query: mockllm matches the path alone and import
// keeps the query in `request.query`, so this exchange is never served.
void WarnQueryInPath(const OJson& j, const LineContext& ctx, std::vector<std::string>& out) {
  if (!j.is_object() || !j.contains("request") || !j["request"].is_object()) return;
  const OJson& r = j["request"];
  if (!r.contains("path") || !r["path"].is_string()) return;
  if (r["path"].get_ref<const std::string&>().find('?') == std::string::npos) return;
  out.push_back(ctx.At("/request/path",
                       "warning: the path has a query, so no request matches it (mockllm matches "
                       "the path alone); put the query in request.query"));
}

void ScanText(std::string_view text, const std::string& pointer, const LineContext& ctx) {
  for (const SecretMatch& m : FindSecretsInText(text)) {
    ctx.Report(pointer, Format("holds a secret ({}; rule {}); redact it", m.kind, m.rule));
  }
}

void ScanValue(const OJson& j, const std::string& pointer, const LineContext& ctx);

// A stream's chunks are one text, as the client reads it: their bytes (`raw`
// or decoded `raw_b64`) are joined and searched together, so a secret split
// across reads is found; it is reported at the chunk where it starts.
void ScanChunks(const OJson& chunks, const std::string& pointer, const LineContext& ctx) {
  struct Start {
    std::size_t offset;  // of the chunk's first byte in `joined`
    std::size_t index;
    std::string pointer;  // of its bytes
  };
  std::string joined;
  std::vector<Start> starts;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::string at = Format("{}/{}", pointer, i);
    const OJson& c = chunks[i];
    if (!c.is_object()) {
      ScanValue(c, at, ctx);
      continue;
    }
    for (auto it = c.begin(); it != c.end(); ++it) {
      const std::string field = PointerAppend(at, it.key());
      std::optional<std::string> bytes;
      if (it->is_string() && it.key() == "raw") bytes = it->get<std::string>();
      if (it->is_string() && it.key() == "raw_b64")
        bytes = Base64Decode(it->get_ref<const std::string&>());
      if (!bytes) {
        ScanValue(*it, field, ctx);
        continue;
      }
      starts.push_back({joined.size(), i, field});
      joined += *bytes;
    }
  }
  auto chunk_of = [&](std::size_t pos) {
    return std::prev(std::upper_bound(starts.begin(), starts.end(), pos,
                                      [](std::size_t p, const Start& s) { return p < s.offset; }));
  };
  for (const SecretMatch& m : FindSecretsInText(joined)) {
    const auto first = chunk_of(m.pos);
    const auto last = chunk_of(m.pos + m.len - 1);
    const std::string split =
        first == last ? "" : Format(", split across chunks {} to {}", first->index, last->index);
    ctx.Report(first->pointer,
               Format("holds a secret ({}; rule {}{}); redact it", m.kind, m.rule, split));
  }
}

void ScanValue(const OJson& j, const std::string& pointer, const LineContext& ctx) {
  if (j.is_string()) {
    ScanText(j.get_ref<const std::string&>(), pointer, ctx);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) ScanValue(j[i], Format("{}/{}", pointer, i), ctx);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string at = PointerAppend(pointer, it.key());
      if (it->is_string() && !IsRedactedValue(it->get_ref<const std::string&>())) {
        if (const SecretRule* rule = SecretFieldRule(it.key(), it->get_ref<const std::string&>())) {
          ctx.Report(at, Format("holds a secret ({} \"{}\"; rule {}); redact it", rule->kind,
                                it.key(), rule->name));
          continue;
        }
      }
      if (at == "/response/chunks" && it->is_array()) {
        ScanChunks(*it, at, ctx);
        continue;
      }
      if (it.key() == "raw_b64" && it->is_string()) {
        if (auto bytes = Base64Decode(it->get_ref<const std::string&>())) ScanText(*bytes, at, ctx);
        continue;
      }
      ScanValue(*it, at, ctx);
    }
  }
}

// Every format problem of an exchange line, not only the first: the parts of
// the line (seq, request, response without its stream, each chunk or event,
// each fault key) are checked one by one, each next to valid stand-ins for
// the others, and what they report is kept once.
// `exchange` is set to the line's exchange when the line has no problem.
std::vector<std::string> ExchangeProblems(const std::expected<OJson, Error>& parsed,
                                          std::string_view line, std::string_view name,
                                          std::size_t line_no, const LineOffsets& offsets,
                                          std::optional<Exchange>& exchange) {
  if (!parsed) return {parsed.error().message};
  const OJson& j = *parsed;
  auto whole = ExchangeFromJson(j);
  if (whole) {
    exchange = std::move(*whole);
    return {};
  }
  std::vector<std::string> out{
      llmconform::PlacedInText(whole.error(), name, line, line_no, &offsets.All()).message};
  std::unordered_set<std::string> said(out.begin(), out.end());
  if (!j.is_object()) return out;
  const OJson request = {{"method", "POST"}, {"path", "/v1/x"}};
  const OJson response = {{"status", 200}};
  auto check = [&](OJson part, std::string_view from = "", std::string_view to = "") {
    if (!part.contains("request")) part["request"] = request;
    if (!part.contains("response")) part["response"] = response;
    auto x = ExchangeFromJson(part);
    if (x) return;
    Error e = x.error();
    if (!from.empty() && e.pointer && e.pointer->starts_with(from)) {
      e = Error::AtPointer(std::string(to) + e.pointer->substr(from.size()), e.what, e.kind);
    }
    std::string message = llmconform::PlacedInText(e, name, line, line_no, &offsets.All()).message;
    if (said.insert(message).second) out.push_back(std::move(message));
  };
  if (j.contains("seq")) check({{"seq", j["seq"]}});
  if (j.contains("request")) check({{"request", j["request"]}});
  if (j.contains("response")) {
    const OJson& r = j["response"];
    if (r.is_object()) {
      OJson rest = r;
      for (const char* key : {"chunks", "events"}) {
        if (!r.contains(key)) continue;
        rest[key] = OJson::array();
        if (!r[key].is_array()) continue;
        for (std::size_t i = 0; i < r[key].size(); ++i) {
          const std::string at = Format("/response/{}/", key);
          check({{"response", {{"status", 200}, {key, OJson::array({r[key][i]})}}}}, at + "0",
                at + std::to_string(i));
        }
      }
      // Each header on its own (a bad status stops the whole check first).
      if (r.contains("headers") && r["headers"].is_object()) {
        for (auto it = r["headers"].begin(); it != r["headers"].end(); ++it)
          check({{"response", {{"status", 200}, {"headers", {{it.key(), *it}}}}}});
      }
      check({{"response", rest}});
    }
    check({{"response", r}});
  }
  if (j.contains("fault")) {
    const OJson& f = j["fault"];
    if (f.is_object()) {
      for (auto it = f.begin(); it != f.end(); ++it) check({{"fault", {{it.key(), *it}}}});
    } else {
      check({{"fault", f}});
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> LintTrace(std::string_view text, std::string_view name) {
  return LintTraceReport(text, name).problems;
}

LintReport LintTraceReport(std::string_view text, std::string_view name) {
  TraceLinter linter(name);
  ForEachTraceLine(text,
                   [&](std::string_view line, std::size_t line_no) { linter.Line(line, line_no); });
  return std::move(linter).Finish();
}

void TraceLinter::Line(std::string_view line, std::size_t line_no) {
  std::vector<std::string>& problems = report_.problems;
  const std::string_view name = name_;
  const LineOffsets offsets(line);
  const LineContext ctx{line, name, line_no, problems, offsets};
  const auto parsed = ParseTraceLine(line, name, line_no);  // each line is parsed once
  if (!have_header_) {
    have_header_ = true;
    if (auto h = ParseTraceHeader(line, name, line_no); !h) {
      problems.push_back(h.error().message);
      ++report_.format_errors;
    } else {
      report_.id = (*h)["id"].get<std::string>();
      report_.id_line = line_no;
    }
  } else {
    std::optional<Exchange> x;
    for (std::string& p : ExchangeProblems(parsed, line, name, line_no, offsets, x)) {
      problems.push_back(std::move(p));
      ++report_.format_errors;
    }
    if (parsed) {
      WarnFramingHeaders(*parsed, ctx, report_.warnings);
      WarnQueryInPath(*parsed, ctx, report_.warnings);
      if (x) {
        for (const SurfaceWarning& w : SurfaceWarnings(*x)) {
          report_.warnings.push_back(Error::At({name_, line_no, offsets.Nearest(w.pointer) + 1},
                                               w.pointer, "warning: " + w.message)
                                         .message);
        }
      }
    }
  }
  if (parsed) {
    ScanValue(*parsed, "", ctx);
  } else {
    ScanText(line, "", ctx);  // unparseable: look at the text itself
  }
}

LintReport TraceLinter::Finish() && {
  if (!have_header_) {
    report_.problems.push_back(EmptyTraceError(name_).message);
    ++report_.format_errors;
  }
  return std::move(report_);
}

}  // namespace llmconform::mockllm
