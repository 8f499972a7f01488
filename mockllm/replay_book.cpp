#include "mockllm/replay_book.h"

#include <algorithm>
#include <set>

#include "base/format.h"
#include "base/hash.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "mockllm/redaction.h"
#include "mockllm/request_path.h"
#include "mockllm/response_chain.h"
#include "mockllm/sdk_match.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using llmconform::wire::MakeErrorJson;

std::string RequestLine(std::string_view method, std::string_view path) {
  return Format("{} {}", method, path);
}

// What a session remembers of its last faulted request, to know a retry.
std::uint64_t RequestHash(std::string_view method, std::string_view path, const Json& body) {
  return Fnv1a64(Format("{} {}\n{}", method, path, DumpJson(body)));
}

const OJson& NoFault() {
  static const OJson empty = OJson::object();
  return empty;
}

// Where an exchange came from: "source:line" for one read from a trace file,
// "source" for one built from JSON (line 0: the admin API's posted traces).
std::string Where(const Trace& t, const Exchange& x) {
  return x.line == 0 ? t.source : Format("{}:{}", t.source, x.line);
}

}  // namespace

Json QuotedValue(const Json& value) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    return s.size() <= kMaxQuotedBytes ? value : Json(CapText(s, kMaxQuotedBytes));
  }
  if (!value.is_structured()) return value;
  std::string text = DumpJson(value);
  return text.size() <= kMaxQuotedBytes ? value : Json(CapText(text, kMaxQuotedBytes));
}

Json DifferencesJson(const std::vector<Difference>& differences) {
  Json out = Json::array();
  for (const Difference& d : differences) {
    Json one = {{"pointer", CapText(d.pointer, kMaxQuotedBytes)}};
    if (d.expected) one["expected"] = QuotedValue(*d.expected);
    if (d.actual) one["actual"] = QuotedValue(*d.actual);
    out.push_back(std::move(one));
  }
  return out;
}

std::string DescribeDifferences(const std::vector<Difference>& differences) {
  std::string out;
  for (const Difference& d : differences) {
    if (!out.empty()) out += "; ";
    out += d.Describe();
  }
  if (differences.size() >= kMaxDifferences) out += Format("; (first {} shown)", kMaxDifferences);
  return out;
}

std::expected<std::unique_ptr<ReplayBook>, Error> ReplayBook::Build(std::vector<Trace> traces,
                                                                    const ReplayOptions& options) {
  std::unique_ptr<ReplayBook> book(new ReplayBook());
  auto ignore = IgnorePaths::Parse(options.ignore_paths);
  if (!ignore) return std::unexpected(ignore.error());
  book->ignore_ = std::move(*ignore);
  book->options_ = options;
  book->catalog_ = std::make_shared<const Catalog>();
  auto warnings = book->Add(std::move(traces));
  if (!warnings) return std::unexpected(warnings.error());
  return book;
}

Json ReplayBook::Canonical(Json body, MatchMode mode, std::string_view path) const {
  if (!ignore_.empty()) body = ignore_.Apply(std::move(body));
  if (mode == MatchMode::kSdk) body = SdkNormalize(std::move(body), path);
  return body;
}

const Json& ReplayBook::CanonicalOf(const Json& body, MatchMode mode, std::string_view path,
                                    Json& holder) const {
  if (ignore_.empty() && mode != MatchMode::kSdk) return body;
  holder = Canonical(body, mode, path);
  return holder;
}

const Json& ReplayBook::Recorded(const LoadedExchange& x, MatchMode mode) {
  return mode == MatchMode::kSdk ? x.sdk_body : x.strict_body;
}

std::expected<std::shared_ptr<const LoadedTrace>, Error> ReplayBook::Load(Trace t) const {
  auto loaded = std::make_shared<LoadedTrace>();
  for (std::size_t x = 0; x < t.exchanges.size(); ++x) {
    const Exchange& ex = t.exchanges[x];
    LoadedExchange l;
    Json recorded = ex.request.body ? Json(*ex.request.body) : Json(nullptr);
    RedactSecrets(recorded);
    l.strict_body = Canonical(std::move(recorded), MatchMode::kStrict, ex.request.path);
    l.sdk_body = SdkNormalize(l.strict_body, ex.request.path);
    l.fault = MergeFaults(options_.fault, ex.fault.value_or(OJson::object()));
    auto fault = FaultFromJson(l.fault);
    if (!fault) {
      return std::unexpected(fault.error().Under("/fault").Within(Where(t, ex)));
    }
    const std::uint64_t seed = options_.seed ^ Fnv1a64(t.id) ^ (0x9E3779B97F4A7C15ULL * (x + 1));
    l.seed = seed;
    const auto surface = wire::SurfaceOfPath(ex.request.path).value_or(wire::Surface::kChat);
    l.plan = PlanResponse(ex.response, *fault, seed, surface);
    l.faulted = !fault->Empty();
    l.times = fault->times;
    if (l.faulted && l.times) l.clean = PlanResponse(ex.response, Fault{}, seed);
    loaded->exchanges.push_back(std::move(l));
  }
  loaded->trace = std::move(t);
  NoteResponseChain(*loaded);
  return loaded;
}

void ReplayBook::Catalog::Index(MatchMode unpinned) {
  by_id.clear();
  by_body.clear();
  for (std::size_t ti = 0; ti < traces.size(); ++ti) {
    const LoadedTrace& t = *traces[ti];
    by_id.emplace(t.trace.id, ti);
    for (std::size_t x = 0; x < t.exchanges.size(); ++x)
      by_body[CanonicalHash(Recorded(t.exchanges[x], unpinned))].emplace_back(ti, x);
  }
}

std::expected<std::vector<std::string>, Error> ReplayBook::Add(std::vector<Trace> traces) {
  Traces added;
  std::set<std::string> ids;
  for (Trace& t : traces) {
    if (!ids.insert(t.id).second) {
      return std::unexpected(Error{Format("{}: trace id \"{}\" is loaded twice", t.source, t.id)});
    }
    auto loaded = Load(std::move(t));
    if (!loaded) return std::unexpected(loaded.error());
    added.push_back(std::move(*loaded));
  }
  std::lock_guard lock(mu_);
  for (const auto& t : added) {
    if (catalog_->by_id.contains(t->trace.id)) {
      return std::unexpected(
          Error{Format("{}: trace id \"{}\" is loaded twice", t->trace.source, t->trace.id)});
    }
  }
  std::vector<std::string> warnings = DuplicateWarnings(catalog_->traces, added);
  auto next = std::make_shared<Catalog>();
  next->traces = catalog_->traces;
  next->traces.insert(next->traces.end(), added.begin(), added.end());
  next->Index(options_.unpinned_match);
  catalog_ = std::move(next);
  warnings_.insert(warnings_.end(), warnings.begin(), warnings.end());
  return warnings;
}

std::vector<std::string> ReplayBook::DuplicateWarnings(const Traces& before,
                                                       const Traces& added) const {
  // The request as unpinned replay compares it, spelled out.
  auto key = [&](const LoadedTrace& t, std::size_t x) {
    const RecordedRequest& r = t.trace.exchanges[x].request;
    return RequestLine(r.method, r.path) + " " +
           Recorded(t.exchanges[x], options_.unpinned_match).dump();
  };
  std::map<std::string, std::pair<const LoadedTrace*, std::size_t>> first;
  std::vector<std::string> out;
  std::set<std::pair<const LoadedTrace*, const LoadedTrace*>> reported;
  for (const Traces* c : {&before, &added}) {
    for (const auto& t : *c) {
      for (std::size_t x = 0; x < t->exchanges.size(); ++x) {
        const auto [it, inserted] = first.try_emplace(key(*t, x), t.get(), x);
        const LoadedTrace* other = it->second.first;
        if (inserted || other == t.get() || c == &before) continue;
        if (!reported.insert({other, t.get()}).second) continue;
        const std::size_t ox = it->second.second;
        out.push_back(
            Format("traces \"{}\" ({}, exchange {}) and \"{}\" ({}, exchange {}) record identical "
                   "requests; unpinned /v1 answers it from \"{}\"",
                   other->trace.id, Where(other->trace, other->trace.exchanges[ox]), ox,
                   t->trace.id, Where(t->trace, t->trace.exchanges[x]), x, other->trace.id));
      }
    }
  }
  return out;
}

bool ReplayBook::Remove(std::string_view id) {
  std::lock_guard lock(mu_);
  if (!catalog_->by_id.contains(std::string(id))) return false;
  auto next = std::make_shared<Catalog>();
  next->traces = catalog_->traces;
  std::erase_if(next->traces, [&](const auto& t) { return t->trace.id == id; });
  next->Index(options_.unpinned_match);
  catalog_ = std::move(next);
  std::erase_if(sessions_, [&](const auto& s) {
    if (s.first.first != id) return false;
    lru_.erase(s.second.lru);  // or a later eviction would take a live session for it
    return true;
  });
  unpinned_served_.erase(std::string(id));
  std::erase_if(unpinned_attempts_, [&](const auto& a) { return std::get<0>(a.first) == id; });
  return true;
}

std::shared_ptr<const ReplayBook::Catalog> ReplayBook::Snapshot() const {
  std::lock_guard lock(mu_);
  return catalog_;
}

std::vector<std::string> ReplayBook::TraceIds() const {
  std::vector<std::string> out;
  for (const auto& t : Snapshot()->traces) out.push_back(t->trace.id);
  return out;
}

bool ReplayBook::HasTrace(std::string_view id) const {
  return Snapshot()->by_id.contains(std::string(id));
}

std::vector<std::string> ReplayBook::Models(const std::optional<std::string>& trace) const {
  std::set<std::string> models;
  for (const auto& lt : Snapshot()->traces) {
    const Trace& t = lt->trace;
    if (trace && *trace != t.id) continue;
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

bool ReplayBook::KnownPath(std::string_view method, std::string_view path) const {
  if (path.starts_with("/v1/")) return true;
  for (const auto& t : Snapshot()->traces) {
    for (const Exchange& x : t->trace.exchanges) {
      if (x.request.method == method &&
          SamePath(x.request.path, path, options_.unpinned_match == MatchMode::kSdk))
        return true;
    }
  }
  return false;
}

std::vector<Difference> ReplayBook::Compare(const LoadedTrace& t, std::size_t x,
                                            std::string_view method, std::string_view path,
                                            const Json& canonical, MatchMode mode,
                                            std::size_t limit) {
  const RecordedRequest& rec = t.trace.exchanges[x].request;
  if (rec.method != method || !SamePath(rec.path, path, mode == MatchMode::kSdk)) {
    return {
        Difference{"", Json(RequestLine(rec.method, rec.path)), Json(RequestLine(method, path))}};
  }
  return Differences(Recorded(t.exchanges[x], mode), canonical, limit);
}

Verdict ReplayBook::Replay(const std::shared_ptr<const LoadedTrace>& t, std::size_t x,
                           std::int64_t attempt) {
  const LoadedExchange& l = t->exchanges[x];
  const bool faulted = l.faulted && (!l.times || attempt <= *l.times);
  Verdict v;
  v.trace = t->trace.id;
  v.exchange = x;
  v.keep = t;
  v.plan = faulted || !l.faulted ? &l.plan : &l.clean;
  v.status = v.plan->status;
  v.fault = faulted ? &l.fault : &NoFault();
  v.attempt = static_cast<std::size_t>(attempt);
  return v;
}

Verdict ReplayBook::ReplayPinned(const std::string& trace_id, const std::string& session,
                                 std::string_view method, std::string_view path, const Json& body) {
  std::shared_ptr<const LoadedTrace> lt;
  const auto catalog = Snapshot();
  if (auto it = catalog->by_id.find(trace_id); it != catalog->by_id.end())
    lt = catalog->traces[it->second];
  if (!lt) {
    Verdict v;
    v.status = 404;
    const std::string message =
        Format("no loaded trace has the id \"{}\"", CapText(trace_id, kMaxQuotedBytes));
    v.error_body = MakeErrorJson(message, "mockllm_unknown_trace");
    v.findings.push_back(JournalFinding{FindingKind::kUnknownTrace, message});
    v.mismatch = true;
    return v;
  }
  const Trace& trace = lt->trace;
  const MatchMode mode = options_.pinned_match;
  Json holder;
  const Json& canonical = CanonicalOf(body, mode, path, holder);
  const std::size_t n = trace.exchanges.size();
  std::size_t x = 0;
  bool retry = false;
  {
    std::lock_guard lock(mu_);
    Session& s = TouchSession({trace_id, session});
    if (s.served.size() != n) s.served.assign(n, false);
    if (const auto& last = s.last_faulted;
        last && last->request == RequestHash(method, path, canonical)) {
      const bool next_matches =
          s.cursor < n && Compare(*lt, s.cursor, method, path, canonical, mode, 1).empty();
      if (!next_matches) {
        retry = true;
        x = last->exchange;
      }
    }
    if (!retry) x = s.cursor++;
    s.last_faulted.reset();
  }
  // The session name as answers quote it (it comes from a request header).
  const auto shown_session = [&session] { return CapText(session, kMaxQuotedBytes); };
  if (x >= n) {
    Verdict v;
    v.trace = trace.id;
    v.status = 400;
    v.mismatch = true;
    const std::string message = Format(
        "trace \"{}\" is exhausted: request {} of session \"{}\", but the trace has {} exchange(s)",
        trace.id, x + 1, shown_session(), n);
    v.error_body = MakeErrorJson(message, "mockllm_trace_exhausted");
    v.error_body["error"]["trace"] = trace.id;
    v.error_body["error"]["session"] = shown_session();
    v.findings.push_back(JournalFinding{FindingKind::kTraceExhausted, message});
    return v;
  }
  std::optional<JournalFinding> mismatch;
  if (!retry) {
    const auto diffs = Compare(*lt, x, method, path, canonical, mode);
    if (!diffs.empty()) {
      const std::string message = Format(
          "request {} of session \"{}\" does not match exchange {} of trace \"{}\" (line {}): {}",
          x + 1, shown_session(), x, trace.id, trace.exchanges[x].line, DescribeDifferences(diffs));
      if (options_.strict) {
        Verdict v;
        v.trace = trace.id;
        v.exchange = x;
        v.status = 400;
        v.mismatch = true;
        const Difference& first = diffs.front();
        const std::string pointer = CapText(first.pointer, kMaxQuotedBytes);
        v.error_body = MakeErrorJson(message, "mockllm_request_mismatch", pointer);
        Json& e = v.error_body["error"];
        e["pointer"] = pointer;
        e["expected"] = first.expected ? QuotedValue(*first.expected) : nullptr;
        e["actual"] = first.actual ? QuotedValue(*first.actual) : nullptr;
        e["differences"] = DifferencesJson(diffs);
        e["trace"] = trace.id;
        e["session"] = shown_session();
        e["exchange"] = x;
        v.findings.push_back(JournalFinding{FindingKind::kRequestMismatch, message});
        return v;
      }
      mismatch = JournalFinding{FindingKind::kRequestMismatch, message};
    }
  }
  std::int64_t attempt = 0;
  {
    std::lock_guard lock(mu_);
    Session& s = TouchSession({trace_id, session});
    if (s.served.size() != n) s.served.assign(n, false);
    s.served[x] = true;
    const LoadedExchange& l = lt->exchanges[x];
    // Without a fault an exchange is answered once a session: only faulted
    // ones count attempts (for `times` and retries).
    attempt = l.faulted ? ++s.attempts[x] : 1;
    if (l.faulted && (!l.times || attempt <= *l.times)) {
      s.last_faulted = Session::Last{x, RequestHash(method, path, canonical)};
    }
  }
  Verdict v = Replay(lt, x, attempt);
  v.retry = retry;
  if (mismatch) {
    v.findings.push_back(std::move(*mismatch));
    v.mismatch = true;
  }
  return v;
}

ReplayBook::Session& ReplayBook::TouchSession(const SessionKey& key) {
  if (auto it = sessions_.find(key); it != sessions_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second;
  }
  while (!lru_.empty() && sessions_.size() >= std::max<std::size_t>(options_.max_sessions, 1)) {
    const SessionKey& old = lru_.back();
    std::erase_if(unpinned_attempts_,
                  [&](const auto& a) { return std::get<2>(a.first) == old.second; });
    sessions_.erase(old);
    lru_.pop_back();
    ++sessions_evicted_;
  }
  lru_.push_front(key);
  Session& s = sessions_[key];
  s.lru = lru_.begin();
  return s;
}

std::size_t ReplayBook::SessionCount() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

std::uint64_t ReplayBook::SessionsEvicted() const {
  std::lock_guard lock(mu_);
  return sessions_evicted_;
}

std::optional<Verdict> ReplayBook::MatchUnpinned(std::string_view method, std::string_view path,
                                                 const Json& body, const std::string& session) {
  const MatchMode mode = options_.unpinned_match;
  Json holder;
  const Json& canonical = CanonicalOf(body, mode, path, holder);
  const auto catalog = Snapshot();
  // The first exchange in load order that records this request: among those
  // whose recorded body hashes alike.
  const auto candidates = catalog->by_body.find(CanonicalHash(canonical));
  if (candidates == catalog->by_body.end()) return std::nullopt;
  for (const auto& [ti, x] : candidates->second) {
    const std::shared_ptr<const LoadedTrace>& t = catalog->traces[ti];
    const RecordedRequest& rec = t->trace.exchanges[x].request;
    if (rec.method != method || !SamePath(rec.path, path, mode == MatchMode::kSdk)) continue;
    if (Recorded(t->exchanges[x], mode) != canonical) continue;
    std::int64_t attempt = 1;
    std::lock_guard lock(mu_);
    auto& served = unpinned_served_[t->trace.id];
    served.resize(t->exchanges.size(), false);
    served[x] = true;
    if (t->exchanges[x].times) {
      // Held as a session (of no trace), so that max_sessions bounds these counts too.
      TouchSession({"", session});
      attempt = ++unpinned_attempts_[{t->trace.id, x, session}];
    }
    return Replay(t, x, attempt);
  }
  return std::nullopt;
}

Verdict ReplayBook::NoMatchUnpinned(std::string_view method, std::string_view path,
                                    const Json& body) const {
  const MatchMode mode = options_.unpinned_match;
  Json holder;
  const Json& canonical = CanonicalOf(body, mode, path, holder);
  const auto catalog = Snapshot();
  // The nearest recorded request, for the error: the fewest differences,
  // counted (not built) with a shared budget of values walked, each exchange
  // compared only as far as it could still be the nearest.
  struct Nearest {
    const LoadedTrace* trace;
    std::size_t exchange;
    std::size_t count;
  };
  std::optional<Nearest> nearest;
  std::size_t exchanges = 0, compared = 0;
  std::size_t budget = kNearestBudget;
  bool spent = false;
  for (const auto& t : catalog->traces) {
    exchanges += t->exchanges.size();
    for (std::size_t x = 0; x < t->exchanges.size() && !spent; ++x) {
      const RecordedRequest& rec = t->trace.exchanges[x].request;
      if (rec.method != method || !SamePath(rec.path, path, mode == MatchMode::kSdk)) continue;
      const std::size_t limit = nearest ? nearest->count : kMaxDifferences;
      const auto count =
          CountDifferences(Recorded(t->exchanges[x], mode), canonical, limit, budget);
      if (!count) {
        spent = true;
        break;
      }
      ++compared;
      if (!nearest || *count < nearest->count) nearest = Nearest{t.get(), x, *count};
    }
  }
  Verdict v;
  v.status = 404;
  v.mismatch = true;
  std::string message =
      Format("no recorded exchange matches {} (compared with {} exchange(s) in {} trace(s))",
             RequestLine(method, path), exchanges, catalog->traces.size());
  if (nearest) {
    const Trace& t = nearest->trace->trace;
    // The winner's walk, again with the differences built: no longer than
    // its count took.
    const auto differences =
        Differences(Recorded(nearest->trace->exchanges[nearest->exchange], mode), canonical);
    message += Format(
        "; the nearest is exchange {} of trace \"{}\" (line {}), which differs at {} pointer(s): "
        "{}",
        nearest->exchange, t.id, t.exchanges[nearest->exchange].line, differences.size(),
        DescribeDifferences(differences));
    v.nearest = {{"trace", t.id},
                 {"exchange", nearest->exchange},
                 {"line", t.exchanges[nearest->exchange].line},
                 {"differences", DifferencesJson(differences)}};
  }
  if (spent) {
    message += Format(
        "; the search for the nearest stopped after {} exchange(s) with this method and path "
        "(it walks at most {} JSON values)",
        compared, kNearestBudget);
    if (!v.nearest.is_null()) v.nearest["searched"] = compared;
  }
  v.error_body = MakeErrorJson(message, "mockllm_no_match");
  if (!v.nearest.is_null()) v.error_body["error"]["nearest"] = v.nearest;
  v.findings.push_back(JournalFinding{FindingKind::kNoMatch, message});
  return v;
}

Verdict ReplayBook::ReplayUnpinned(std::string_view method, std::string_view path, const Json& body,
                                   const std::string& session) {
  if (auto hit = MatchUnpinned(method, path, body, session)) return std::move(*hit);
  return NoMatchUnpinned(method, path, body);
}

Json ReplayBook::SessionsPage(SessionsCursor& c, std::size_t limit) const {
  const auto catalog = Snapshot();
  std::lock_guard lock(mu_);
  Json out = Json::array();
  auto row = [](const std::string& id, const Json& session, std::size_t cursor, std::size_t n,
                const std::vector<bool>& served, bool touched) {
    Json unused = Json::array();
    for (std::size_t x = 0; x < n; ++x) {
      if (x >= served.size() || !served[x]) unused.push_back(x);
    }
    return Json{{"trace", id},    {"session", session},          {"cursor", cursor},
                {"exchanges", n}, {"unused", std::move(unused)}, {"touched", touched}};
  };
  while (c.trace < catalog->traces.size()) {
    const auto& t = catalog->traces[c.trace];
    const std::string& id = t->trace.id;
    const std::size_t n = t->exchanges.size();
    if (c.part == 0) {
      auto it = c.after ? sessions_.upper_bound({id, *c.after}) : sessions_.lower_bound({id, ""});
      for (; it != sessions_.end() && it->first.first == id; ++it) {
        if (out.size() >= limit) return out;
        out.push_back(row(id, it->first.second, it->second.cursor, n, it->second.served, true));
        c.after = it->first.second;
        c.touched = true;
      }
      c.part = 1;
    }
    if (c.part == 1) {
      if (out.size() >= limit) return out;
      if (auto it = unpinned_served_.find(id); it != unpinned_served_.end()) {
        Json r = row(id, nullptr, 0, n, it->second, true);
        r["unpinned"] = true;
        out.push_back(std::move(r));
        c.touched = true;
      }
      c.part = 2;
    }
    if (out.size() >= limit) return out;
    if (!c.touched) out.push_back(row(id, nullptr, 0, n, {}, false));
    c = SessionsCursor{.trace = c.trace + 1};
  }
  return out;
}

Json ReplayBook::Sessions() const {
  Json out = Json::array();
  SessionsCursor cursor;
  for (Json page; !(page = SessionsPage(cursor, 256)).empty();) {
    for (Json& r : page) out.push_back(std::move(r));
  }
  return out;
}

void ReplayBook::Reset() {
  std::lock_guard lock(mu_);
  sessions_.clear();
  lru_.clear();
  unpinned_served_.clear();
  unpinned_attempts_.clear();
  replayed_ids_.clear();
}

std::vector<std::string> ReplayBook::Warnings() const {
  std::lock_guard lock(mu_);
  return warnings_;
}

}  // namespace llmconform::mockllm
