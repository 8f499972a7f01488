#include "mockllm/replay_book.h"

#include <algorithm>
#include <set>

#include "protocols/wire/chat.h"
#include "protocols/wire/format.h"

namespace mockllm {
namespace {

using llmconform::Finding;
using llmconform::Format;
using llmconform::wire::MakeErrorJson;

// FNV-1a, so a trace's fault seed depends on its id, not on load order.
std::uint64_t HashId(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string RequestLine(std::string_view method, std::string_view path) {
  return Format("{} {}", method, path);
}

}  // namespace

std::expected<std::unique_ptr<ReplayBook>, Error> ReplayBook::Build(std::vector<Trace> traces,
                                                                    const ReplayOptions& options) {
  std::unique_ptr<ReplayBook> book(new ReplayBook());
  auto ignore = IgnorePaths::Parse(options.ignore_paths);
  if (!ignore) return std::unexpected(ignore.error());
  book->ignore_ = std::move(*ignore);
  book->options_ = options;
  std::set<std::string> ids;
  for (const Trace& t : traces) {
    if (!ids.insert(t.id).second) {
      return std::unexpected(Error{Format("{}: trace id \"{}\" is loaded twice", t.source, t.id)});
    }
    std::vector<Loaded> loaded;
    for (std::size_t x = 0; x < t.exchanges.size(); ++x) {
      const Exchange& ex = t.exchanges[x];
      Loaded l;
      l.canonical_body =
          book->ignore_.Apply(ex.request.body ? Json(*ex.request.body) : Json(nullptr));
      l.fault = MergeFaults(options.fault, ex.fault.value_or(OJson::object()));
      auto fault = FaultFromJson(l.fault);
      if (!fault) {
        return std::unexpected(Error{Format("{}:{}: /fault{}: {}", t.source, ex.line,
                                            fault.error().pointer, fault.error().message)});
      }
      const std::uint64_t seed = options.seed ^ HashId(t.id) ^ (0x9E3779B97F4A7C15ULL * (x + 1));
      l.plan = PlanResponse(ex.response, *fault, seed);
      loaded.push_back(std::move(l));
    }
    book->loaded_.push_back(std::move(loaded));
  }
  book->traces_ = std::move(traces);
  return book;
}

std::optional<std::size_t> ReplayBook::FindTrace(std::string_view id) const {
  for (std::size_t i = 0; i < traces_.size(); ++i) {
    if (traces_[i].id == id) return i;
  }
  return std::nullopt;
}

std::vector<std::string> ReplayBook::Models(std::optional<std::size_t> trace) const {
  std::set<std::string> models;
  for (std::size_t i = 0; i < traces_.size(); ++i) {
    if (trace && *trace != i) continue;
    const Trace& t = traces_[i];
    if (auto m = t.header.find("model"); m != t.header.end() && m->is_string())
      models.insert(m->get<std::string>());
    for (const Exchange& x : t.exchanges) {
      if (!x.request.body || !x.request.body->is_object()) continue;
      if (auto m = x.request.body->find("model"); m != x.request.body->end() && m->is_string()) {
        models.insert(m->get<std::string>());
      }
    }
  }
  return {models.begin(), models.end()};
}

std::optional<Difference> ReplayBook::Compare(std::size_t t, std::size_t x, std::string_view method,
                                              std::string_view path, const Json& canonical) const {
  const RecordedRequest& rec = traces_[t].exchanges[x].request;
  if (rec.method != method || rec.path != path) {
    return Difference{"", Json(RequestLine(rec.method, rec.path)), Json(RequestLine(method, path))};
  }
  return FirstDifference(loaded_[t][x].canonical_body, canonical);
}

Verdict ReplayBook::Replay(std::size_t t, std::size_t x) const {
  Verdict v;
  v.trace = t;
  v.exchange = x;
  v.plan = &loaded_[t][x].plan;
  v.status = v.plan->status;
  v.fault = &loaded_[t][x].fault;
  return v;
}

Verdict ReplayBook::ReplayPinned(std::size_t t, const std::string& session, std::string_view method,
                                 std::string_view path, const Json& body) {
  const Trace& trace = traces_[t];
  std::size_t x = 0;
  {
    std::lock_guard lock(mu_);
    Session& s = sessions_[{t, session}];
    if (s.served.empty()) s.served.assign(trace.exchanges.size(), false);
    x = s.cursor++;
  }
  if (x >= trace.exchanges.size()) {
    Verdict v;
    v.trace = t;
    v.status = 400;
    const std::string message = Format(
        "trace \"{}\" is exhausted: request {} of session \"{}\", but the trace has {} exchange(s)",
        trace.id, x + 1, session, trace.exchanges.size());
    v.error_body = MakeErrorJson(message, "mockllm_trace_exhausted");
    v.error_body["error"]["trace"] = trace.id;
    v.error_body["error"]["session"] = session;
    v.findings.push_back(Finding{"trace_exhausted", message});
    return v;
  }
  Json stripped;
  if (!ignore_.empty()) stripped = ignore_.Apply(body);
  const auto diff = Compare(t, x, method, path, ignore_.empty() ? body : stripped);
  if (diff) {
    const std::string message = Format(
        "request {} of session \"{}\" does not match exchange {} of trace \"{}\" (line {}): {}",
        x + 1, session, x, trace.id, trace.exchanges[x].line, diff->Describe());
    if (options_.strict) {
      Verdict v;
      v.trace = t;
      v.exchange = x;
      v.status = 400;
      v.error_body = MakeErrorJson(message, "mockllm_request_mismatch", diff->pointer);
      Json& e = v.error_body["error"];
      e["pointer"] = diff->pointer;
      e["expected"] = diff->expected.value_or(nullptr);
      e["actual"] = diff->actual.value_or(nullptr);
      e["trace"] = trace.id;
      e["session"] = session;
      e["exchange"] = x;
      v.findings.push_back(Finding{"request_mismatch", message});
      return v;
    }
    Verdict v = Replay(t, x);
    v.findings.push_back(Finding{"request_mismatch", message});
    std::lock_guard lock(mu_);
    sessions_[{t, session}].served[x] = true;
    return v;
  }
  std::lock_guard lock(mu_);
  sessions_[{t, session}].served[x] = true;
  return Replay(t, x);
}

Verdict ReplayBook::ReplayUnpinned(std::string_view method, std::string_view path,
                                   const Json& body) const {
  Json stripped;
  if (!ignore_.empty()) stripped = ignore_.Apply(body);
  const Json& canonical = ignore_.empty() ? body : stripped;
  std::optional<std::pair<std::size_t, std::size_t>> nearest;
  for (std::size_t t = 0; t < traces_.size(); ++t) {
    for (std::size_t x = 0; x < traces_[t].exchanges.size(); ++x) {
      const RecordedRequest& rec = traces_[t].exchanges[x].request;
      if (rec.method != method || rec.path != path) continue;
      if (loaded_[t][x].canonical_body == canonical) return Replay(t, x);
      if (!nearest) nearest = {t, x};
    }
  }
  Verdict v;
  v.status = 404;
  std::size_t exchanges = 0;
  for (const Trace& t : traces_) exchanges += t.exchanges.size();
  std::string message =
      Format("no recorded exchange matches {} (compared with {} exchange(s) in {} trace(s))",
             RequestLine(method, path), exchanges, traces_.size());
  if (nearest) {
    const auto diff =
        FirstDifference(loaded_[nearest->first][nearest->second].canonical_body, canonical);
    message += Format("; the first with this path, exchange {} of trace \"{}\", differs at {}",
                      nearest->second, traces_[nearest->first].id, diff ? diff->Describe() : "?");
  }
  v.error_body = MakeErrorJson(message, "mockllm_no_match");
  v.findings.push_back(Finding{"no_match", message});
  return v;
}

Json ReplayBook::Sessions() const {
  std::lock_guard lock(mu_);
  Json out = Json::array();
  std::vector<bool> used(traces_.size(), false);
  for (const auto& [key, s] : sessions_) {
    const auto& [t, name] = key;
    used[t] = true;
    Json unused = Json::array();
    for (std::size_t x = 0; x < s.served.size(); ++x) {
      if (!s.served[x]) unused.push_back(x);
    }
    out.push_back({{"trace", traces_[t].id},
                   {"session", name},
                   {"cursor", s.cursor},
                   {"exchanges", traces_[t].exchanges.size()},
                   {"unused", std::move(unused)}});
  }
  for (std::size_t t = 0; t < traces_.size(); ++t) {
    if (used[t]) continue;
    Json unused = Json::array();
    for (std::size_t x = 0; x < traces_[t].exchanges.size(); ++x) unused.push_back(x);
    out.push_back({{"trace", traces_[t].id},
                   {"session", nullptr},
                   {"cursor", 0},
                   {"exchanges", traces_[t].exchanges.size()},
                   {"unused", std::move(unused)}});
  }
  return out;
}

void ReplayBook::Reset() {
  std::lock_guard lock(mu_);
  sessions_.clear();
}

}  // namespace mockllm
