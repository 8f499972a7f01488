#include "mockllm/admin_api.h"

#include <algorithm>
#include <atomic>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "mockllm/http_message.h"
#include "mockllm/server.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using llmconform::wire::MakeErrorJson;

constexpr std::string_view kRoutes =
    "GET /__admin/health, GET /__admin/journal[?session=&trace=], GET /__admin/unmatched, "
    "GET /__admin/sessions, GET /__admin/metrics, POST /__admin/traces, "
    "DELETE /__admin/traces/{id}, "
    "POST /__admin/reset";

std::atomic<std::uint64_t> stub_count{0};

// One JSON value of a POST body as a trace: a trace object or a stub. Errors
// point into that value.
std::expected<Trace, Error> AsTrace(const OJson& j, std::string_view name) {
  if (!j.is_object()) {
    return std::unexpected(
        Error::AtPointer("", Format("expected a trace object or a stub, got {}", JsonTypeName(j))));
  }
  if (j.contains("request") && j.contains("response")) {
    const std::string id =
        j.contains("id") && j["id"].is_string()
            ? j["id"].get<std::string>()
            : Format("stub-{}", stub_count.fetch_add(1, std::memory_order_relaxed) + 1);
    OJson exchange = j;
    exchange.erase("id");
    auto trace = TraceFromJson({{"format", kTraceFormat}, {"id", id}, {"origin", "admin"}},
                               OJson::array({std::move(exchange)}), name);
    if (!trace) {
      // The stub is the trace's only exchange: point into the stub itself.
      const Error& e = trace.error();
      constexpr std::string_view kOnly = "/exchanges/0";
      if (!e.pointer || !e.pointer->starts_with(kOnly)) return std::unexpected(e);
      return std::unexpected(Error::AtPointer(e.pointer->substr(kOnly.size()), e.what, e.kind));
    }
    return trace;
  }
  static const OJson kNoExchanges;
  const auto exchanges = j.find("exchanges");
  OJson header = j;
  header.erase("exchanges");
  if (!header.contains("format")) header["format"] = kTraceFormat;
  return TraceFromJson(std::move(header), exchanges == j.end() ? kNoExchanges : *exchanges, name);
}

}  // namespace

bool Unmatched(const Json& entry) {
  const auto findings = entry.find("findings");
  if (findings == entry.end() || !findings->is_array()) return false;
  return std::any_of(findings->begin(), findings->end(), [](const Json& f) {
    const auto kind = FindingKindFromName(StringOf(f, "rule"));
    return kind && IsUnmatched(*kind);
  });
}

std::expected<std::vector<Trace>, Error> TracesFromAdminBody(std::string_view body,
                                                             std::string_view name) {
  if (auto problem = llmconform::PrescanJsonText(body)) {
    const llmconform::LineColumn at = llmconform::LineColumnOf(body, problem->offset);
    return std::unexpected(Error{Format("{}:{}:{}: {}", name, at.line, at.column, problem->what)});
  }
  const OJson j = ReadOrderedJsonOrDiscarded(body);
  if (j.is_discarded() || (j.is_object() && j.contains("format") && !j.contains("exchanges"))) {
    auto trace = ParseTrace(body, name);  // JSON Lines (a trace file)
    if (!trace) return std::unexpected(trace.error());
    return std::vector<Trace>{std::move(*trace)};
  }
  // JSON: one trace object or stub, or an array of them, read as it stands;
  // errors are located in the body.
  std::vector<Trace> traces;
  auto add = [&](const OJson& v, const std::string& pointer,
                 std::string_view label) -> std::expected<void, Error> {
    auto trace = AsTrace(v, label);
    if (!trace) {
      return std::unexpected(llmconform::PlacedInText(trace.error().Under(pointer), name, body));
    }
    traces.push_back(std::move(*trace));
    return {};
  };
  if (!j.is_array()) {
    if (auto added = add(j, "", name); !added) return std::unexpected(added.error());
    return traces;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string label = j.size() == 1 ? std::string(name) : Format("{} (trace {})", name, i);
    if (auto added = add(j[i], Format("/{}", i), label); !added)
      return std::unexpected(added.error());
  }
  return traces;
}

AdminAnswer HandleAdmin(ReplayBook& book, Journal& journal, const AdminRequest& r) {
  const std::string_view path = r.path;
  if (r.method == "GET" && path == "/__admin/health") {
    return {200,
            {{"status", "ok"},
             {"traces", book.TraceIds()},
             {"requests", journal.total()},
             {"journal_dropped", journal.dropped()},
             {"journal_bytes", journal.kept_bytes()},
             {"sessions", book.SessionCount()},
             {"sessions_evicted", book.SessionsEvicted()}}};
  }
  if (r.method == "GET" && path == "/__admin/sessions") return {200, book.Sessions()};
  if (r.method == "POST" && path == "/__admin/reset") {
    book.Reset();
    journal.Clear();
    return {200, {{"reset", true}}};
  }
  if (r.method == "POST" && path == "/__admin/traces") {
    auto traces = TracesFromAdminBody(r.body, "POST /__admin/traces");
    if (!traces) {
      return {400, MakeErrorJson(traces.error().message, "invalid_request_error", nullptr,
                                 "invalid_trace")};
    }
    Json ids = Json::array();
    for (const Trace& t : *traces) ids.push_back(t.id);
    auto added = book.Add(std::move(*traces));
    if (!added) {
      return {409, MakeErrorJson(added.error().message + " (DELETE /__admin/traces/{id} first)",
                                 "invalid_request_error", nullptr, "trace_exists")};
    }
    return {201, {{"loaded", std::move(ids)}, {"warnings", *added}}};
  }
  if (r.method == "DELETE" && path.starts_with("/__admin/traces/")) {
    const std::string id =
        DecodeUrl(path.substr(std::string_view("/__admin/traces/").size()), false);
    if (!book.Remove(id)) {
      return {404, MakeErrorJson(Format("no loaded trace has the id \"{}\"", id),
                                 "mockllm_unknown_trace")};
    }
    return {200, {{"removed", id}}};
  }
  return {404, MakeErrorJson(
                   Format("Invalid URL ({} {}): admin routes are {}", r.method, r.path, kRoutes),
                   "invalid_request_error")};
}

}  // namespace llmconform::mockllm
