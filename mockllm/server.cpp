#include "mockllm/server.h"

#include <httplib.h>
#include <malloc.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <limits>
#include <mutex>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "mockllm/admin_api.h"
#include "mockllm/cors.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/http_listener.h"
#include "mockllm/journal.h"
#include "mockllm/metrics.h"
#include "mockllm/proxy.h"
#include "mockllm/redaction.h"
#include "mockllm/replay_book.h"
#include "mockllm/replay_writer.h"
#include "mockllm/secrets.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Finding;
using llmconform::Format;
using llmconform::wire::MakeErrorJson;

std::string Lower(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The media type of a Content-Type value, lower-cased, parameters and
// surrounding blanks left out.
std::string MediaType(std::string_view ct) {
  std::string type = Lower(ct.substr(0, ct.find(';')));
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!type.empty() && blank(type.back())) type.pop_back();
  while (!type.empty() && blank(type.front())) type.erase(0, 1);
  return type;
}

bool IsJsonContentType(std::string_view ct) {
  const std::string type = MediaType(ct);
  return type == "application/json" ||
         (type.starts_with("application/") && type.ends_with("+json"));
}

// What an admin write may be sent as: JSON, or a trace file's JSON Lines.
bool IsAdminContentType(std::string_view ct) {
  const std::string type = MediaType(ct);
  return IsJsonContentType(ct) || type == "application/x-ndjson" || type == "application/jsonl";
}

// The name of a Host header value: "[::1]:8080" -> "::1", "a.example:80" ->
// "a.example", lower-cased.
std::string HostName(std::string_view host) {
  if (host.starts_with('[')) {
    const auto close = host.find(']');
    return Lower(host.substr(1, close == std::string_view::npos ? close : close - 1));
  }
  return Lower(host.substr(0, host.rfind(':')));
}

// Request headers for the journal, secrets redacted.
std::vector<std::pair<std::string, std::string>> JournalHeaders(const httplib::Headers& headers) {
  auto out = RequestHeaders(headers);
  for (auto& [name, value] : out) {
    if (IsSecretField(name, value))
      value = kRedacted;
    else
      RedactTextInPlace(value);
  }
  return out;
}

// Where a request goes, from its raw target.
struct Route {
  enum class Kind { kAdmin, kPinned, kUnpinned, kUnknownTrace } kind = Kind::kUnpinned;
  std::string path;      // the raw path (no query)
  std::string rest;      // the replay path: "/v1/…" (pinned: after the pin)
  std::string trace_id;  // pinned: the trace; unknown trace: as the client named it
};

}  // namespace

struct Server::Impl {
  ServerOptions options;
  std::unique_ptr<ReplayBook> book;
  std::unique_ptr<Proxy> proxy;
  mockllm::Journal journal;
  std::atomic<std::uint64_t> mismatches = 0;
  Metrics metrics;
  HttpListener http;
  int port = 0;

  std::mutex stop_mu;
  bool stopping = false;
  bool stopped = false;

  explicit Impl(ServerOptions opts)
      : options(std::move(opts)),
        journal(options.journal_limit, options.journal_max_bytes, options.journal_whole_bodies),
        metrics(options.collect_metrics) {}

  Route Resolve(const std::string& target) const {
    Route r;
    r.path = target.substr(0, target.find('?'));
    if (r.path.starts_with("/__admin/") || r.path == "/__admin") {
      r.kind = Route::Kind::kAdmin;
      r.rest = r.path;
      return r;
    }
    if (!r.path.starts_with("/t/")) {
      r.rest = UrlDecode(r.path);
      return r;
    }
    const auto seg_end = r.path.find('/', 3);
    r.trace_id =
        UrlDecode(r.path.substr(3, seg_end == std::string::npos ? std::string::npos : seg_end - 3));
    if (seg_end != std::string::npos && book->HasTrace(r.trace_id)) {
      r.kind = Route::Kind::kPinned;
      r.rest = UrlDecode(r.path.substr(seg_end));
      return r;
    }
    // An id with an unencoded '/': the longest loaded id the path starts with.
    const std::string decoded = UrlDecode(r.path.substr(3));
    std::string best;
    for (const std::string& id : book->TraceIds()) {
      if (decoded.starts_with(id + "/") && id.size() > best.size()) best = id;
    }
    if (!best.empty()) {
      r.kind = Route::Kind::kPinned;
      r.trace_id = best;
      r.rest = decoded.substr(best.size());
      return r;
    }
    r.kind = Route::Kind::kUnknownTrace;
    return r;
  }

  // Journals `entry` and counts it in the metrics; returns its seq.
  std::uint64_t Journaled(JournalEntry entry) {
    metrics.Request(entry.path, entry.trace.value_or(""), entry.status, MetricsOutcome(entry));
    if (entry.fault) metrics.Faults(*entry.fault);
    return journal.Append(std::move(entry));
  }

  // GET /__admin/metrics (and /metrics with ServerOptions::metrics).
  void ServeMetrics(httplib::Response& res) {
    if (!metrics.enabled()) {
      return Answer(res, 404,
                    MakeErrorJson("metrics are off (serve --no-metrics)", "invalid_request_error",
                                  nullptr, "mockllm_metrics_off"));
    }
    res.status = 200;
    res.set_content(metrics.Render(MetricsGauges{.sessions = book->SessionCount(),
                                                 .sessions_evicted = book->SessionsEvicted(),
                                                 .journal_entries = journal.size(),
                                                 .journal_dropped = journal.dropped(),
                                                 .connections_open = http.OpenConnections(),
                                                 .connections_refused = http.RefusedConnections()}),
                    std::string(kMetricsContentType));
  }

  void Answer(httplib::Response& res, int status, const Json& body) {
    AnswerJson(res, status, body);
  }

  void HandleAdmin(const httplib::Request& req, httplib::Response& res, const Route& route) {
    if (req.method == "GET" && route.path == "/__admin/journal") {
      if (!req.has_param("session") && !req.has_param("trace")) return StreamJournal(req, res, {});
      // Entries whose fields equal every given parameter.
      return StreamJournal(req, res, [params = req.params](const Json& e) {
        for (const char* key : {"session", "trace"}) {
          auto [lo, hi] = params.equal_range(key);
          for (auto it = lo; it != hi; ++it) {
            const auto v = e.find(key);
            if (v == e.end() || !v->is_string() || v->get_ref<const std::string&>() != it->second)
              return false;
          }
        }
        return true;
      });
    }
    if (req.method == "GET" && route.path == "/__admin/metrics") return ServeMetrics(res);
    if (req.method == "GET" && route.path == "/__admin/unmatched") {
      return StreamJournal(req, res, [](const Json& e) { return Unmatched(e); });
    }
    if (req.method == "POST" && route.path == "/__admin/reset") {
      ResetAll();
      return Answer(res, 200, {{"reset", true}});
    }
    if (req.method == "GET" && route.path == "/__admin/sessions") return StreamSessions(req, res);
    AdminRequest admin{.method = req.method, .path = route.path, .params = {}, .body = req.body};
    for (const auto& [key, value] : req.params) admin.params.emplace(key, value);
    AdminAnswer answer = mockllm::HandleAdmin(*book, journal, admin);
    Answer(res, answer.status, answer.body);
  }

  // The admin guard (server.h): the status and error body refusing `req`, or
  // nullopt when it may use the admin API.
  std::optional<std::pair<int, Json>> AdminGuard(const httplib::Request& req) const {
    if (req.has_header("Host")) {
      const std::string host = req.get_header_value("Host");
      const std::string name = HostName(host);
      const std::string listening =
          options.host.starts_with('[') ? HostName(options.host) : Lower(options.host);
      bool allowed =
          name == "localhost" || name == "127.0.0.1" || name == "::1" || name == listening;
      for (const std::string& h : options.allow_hosts) allowed = allowed || name == Lower(h);
      if (!allowed) {
        return std::pair{
            403, MakeErrorJson(Format("Host \"{}\" is not this server's address: the admin API "
                                      "answers {} and loopback names (allow another with "
                                      "--allow-host NAME)",
                                      CapText(host, kMaxQuotedBytes), options.host),
                               "mockllm_admin_refused", nullptr, "host_not_allowed")};
      }
    }
    if (const std::string origin = req.get_header_value("Origin");
        !OriginAllowed(options.cors, origin)) {
      return std::pair{403, MakeErrorJson(Format("Origin \"{}\" may not use the admin API ({})",
                                                 CapText(origin, kMaxQuotedBytes),
                                                 options.cors.empty()
                                                     ? std::string("no --cors origin is allowed")
                                                     : Format("--cors allows {}", options.cors)),
                                          "mockllm_admin_refused", nullptr, "origin_not_allowed")};
    }
    // A POST is what a page can send without a preflight (as text/plain, a
    // form); another method always has one, so only a body it carries is held
    // to the same types.
    const bool write = req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS";
    if (write && (req.method == "POST" || !req.body.empty() || req.has_header("Content-Type")) &&
        !IsAdminContentType(req.get_header_value("Content-Type"))) {
      return std::pair{
          415, MakeErrorJson(
                   Format("{} {}: an admin write must be sent with Content-Type: application/json "
                          "(got \"{}\")",
                          CapText(req.method, kMaxQuotedBytes), CapText(req.path, kMaxQuotedBytes),
                          CapText(req.get_header_value("Content-Type"), kMaxQuotedBytes)),
                   "invalid_request_error", nullptr, "unsupported_content_type")};
    }
    return std::nullopt;
  }

  // ServerOptions::admin_api is false: the request changes nothing and is
  // journaled with the finding admin_request.
  void RefuseAdmin(const httplib::Request& req, httplib::Response& res, const Route& route) {
    const std::string message =
        Format("{} {}: mockllm's admin API is closed while it judges a client",
               CapText(req.method, kMaxQuotedBytes), CapText(route.path, kMaxQuotedBytes));
    JournalEntry entry;
    entry.method = req.method;
    entry.path = route.path;
    entry.headers = JournalHeaders(req.headers);
    if (!req.body.empty()) {
      entry.body = BodyValue(req.body);
      RedactSecrets(entry.body);
    }
    entry.status = 403;
    entry.findings.push_back(Finding{"admin_request", message});
    Journaled(std::move(entry));
    Answer(res, 403, MakeErrorJson(message, "mockllm_admin_closed"));
  }

  // Forgets sessions and journal, and hands the freed memory back to the
  // system.
  void ResetAll() {
    book->Reset();
    journal.Clear();
    ::malloc_trim(0);
  }

  // Reads the unsigned query parameters named in `params` into where they
  // point (left as they are when absent); false, with `res` a 400, when one
  // is not a number.
  bool CountParams(const httplib::Request& req, httplib::Response& res,
                   std::initializer_list<std::pair<const char*, std::uint64_t*>> params) {
    for (auto [name, into] : params) {
      if (!req.has_param(name)) continue;
      const std::string text = req.get_param_value(name);
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *into);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        Answer(res, 400,
               MakeErrorJson(Format("query parameter {}: expected an unsigned integer, got \"{}\"",
                                    name, CapText(text, 64)),
                             "invalid_request_error", name));
        return false;
      }
    }
    return true;
  }

  // GET /__admin/sessions[?offset=N][&limit=N]: the rows of
  // ReplayBook::Sessions from the Nth (default 0), at most `limit` (default
  // all), as one JSON array written page by page: ten thousand sessions of a
  // long trace are never one string in memory.
  void StreamSessions(const httplib::Request& req, httplib::Response& res) {
    std::uint64_t offset = 0;
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    if (!CountParams(req, res, {{"offset", &offset}, {"limit", &limit}})) return;
    struct Cursor {
      ReplayBook::SessionsCursor at;
      std::uint64_t skip, left;
      bool opened = false, any = false;
    };
    auto cursor = std::make_shared<Cursor>(Cursor{{}, offset, limit});
    res.status = 200;
    res.set_header("X-Mockllm-Sessions", std::to_string(book->SessionCount()));
    res.set_header("X-Mockllm-Sessions-Evicted", std::to_string(book->SessionsEvicted()));
    res.set_chunked_content_provider(
        "application/json", [this, cursor](std::size_t, httplib::DataSink& sink) {
          constexpr std::size_t kPage = 64;
          std::string out = cursor->opened ? "" : "[";
          cursor->opened = true;
          Json page = cursor->left == 0 ? Json::array() : book->SessionsPage(cursor->at, kPage);
          for (Json& row : page) {
            if (cursor->skip > 0) {
              --cursor->skip;
              continue;
            }
            if (cursor->left == 0) break;
            --cursor->left;
            if (cursor->any) out += ',';
            out += DumpJson(row);
            cursor->any = true;
          }
          const bool last = page.empty() || cursor->left == 0;
          if (last) out += ']';
          if (!out.empty() && !sink.write(out.data(), out.size())) return false;
          if (last) sink.done();
          return true;
        });
  }

  // GET /__admin/journal[?session=S&trace=T][&after=SEQ][&limit=N] and
  // /__admin/unmatched: the entries with a seq above `after` (default 0) that
  // `keep` accepts (all without it), at most `limit` (default all), as one
  // JSON array written page by page, so a large journal is never one string
  // in memory. A "dropped_before" on an entry left out moves to the next one
  // kept, so a filtered view still tells that older requests were dropped.
  void StreamJournal(const httplib::Request& req, httplib::Response& res,
                     std::function<bool(const Json&)> keep) {
    std::uint64_t after = 0;
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    if (!CountParams(req, res, {{"after", &after}, {"limit", &limit}})) return;
    struct Cursor {
      std::uint64_t after;
      std::uint64_t left;
      std::function<bool(const Json&)> keep;
      bool opened = false;        // "[" written
      bool any = false;           // an entry written
      std::uint64_t dropped = 0;  // "dropped_before" of entries left out
    };
    auto cursor = std::make_shared<Cursor>(Cursor{after, limit, std::move(keep)});
    res.status = 200;
    res.set_chunked_content_provider("application/json", [this, cursor](std::size_t,
                                                                        httplib::DataSink& sink) {
      constexpr std::size_t kPage = 64;
      std::string out = cursor->opened ? "" : "[";
      cursor->opened = true;
      // Pages are read until one yields an entry (a filter may keep none of
      // a page) or the journal ends.
      bool last = cursor->left == 0;
      for (bool wrote = false; !wrote && !last;) {
        auto page = journal.Page(
            cursor->after,
            cursor->keep ? kPage
                         : static_cast<std::size_t>(std::min<std::uint64_t>(kPage, cursor->left)));
        for (Json& e : page) {
          cursor->after = e["seq"].get<std::uint64_t>();
          // Gaps left out add up, and onto the next entry kept.
          const auto gap = e.find("dropped_before");
          const std::uint64_t dropped =
              gap != e.end() && gap->is_number_unsigned() ? gap->get<std::uint64_t>() : 0;
          if (cursor->keep && !cursor->keep(e)) {
            cursor->dropped += dropped;
            continue;
          }
          if (cursor->dropped + dropped > 0) e["dropped_before"] = cursor->dropped + dropped;
          cursor->dropped = 0;
          if (cursor->any) out += ',';
          out += DumpJson(e);
          cursor->any = wrote = true;
          if (--cursor->left == 0) break;
        }
        last = page.size() < kPage || cursor->left == 0;
      }
      if (last) out += ']';
      if (!out.empty() && !sink.write(out.data(), out.size())) return false;
      if (last) sink.done();
      return true;
    });
  }

  Json ModelsList(const std::optional<std::string>& trace) const {
    Json data = Json::array();
    for (const std::string& m : book->Models(trace)) {
      data.push_back({{"id", m}, {"object", "model"}, {"created", 0}, {"owned_by", "mockllm"}});
    }
    return {{"object", "list"}, {"data", std::move(data)}};
  }

  // The session a request belongs to (--session-by).
  std::string SessionOf(const httplib::Request& req) const {
    std::string name;
    if (options.session_by == SessionBy::kHeader) {
      name = req.get_header_value("X-Mockllm-Session");
    } else if (options.session_by == SessionBy::kClientAddress) {
      name = req.remote_addr;
    }
    return name.empty() ? "default" : name;
  }

  // Forwards an unmatched request to --proxy; false when there is no proxy.
  bool Proxied(const httplib::Request& req, httplib::Response& res, JournalEntry& entry) {
    if (!proxy) return false;
    auto answer = proxy->Forward(ForwardRequest{.method = req.method,
                                                .target = req.target,
                                                .path = req.path,
                                                .headers = RequestHeaders(req.headers),
                                                .body = req.body});
    entry.proxied = proxy->upstream();
    if (!answer) {
      entry.status = 502;
      entry.findings.push_back(Finding{"proxy_failed", answer.error().message});
      Journaled(std::move(entry));
      Answer(res, 502, MakeErrorJson(answer.error().message, "mockllm_proxy_failed"));
      return true;
    }
    entry.findings.clear();
    entry.nearest = nullptr;
    entry.status = answer->status;
    Journaled(std::move(entry));
    res.status = answer->status;
    for (const auto& [name, value] : answer->headers) res.set_header(name, value);
    res.set_content(std::move(answer->body), answer->content_type);
    return true;
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    if (!options.cors.empty()) {
      const std::string origin = req.get_header_value("Origin");
      if (IsPreflight(req.method, origin, req.get_header_value("Access-Control-Request-Method"))) {
        for (const auto& [name, value] : PreflightHeaders(
                 options.cors, origin, req.get_header_value("Access-Control-Request-Headers"))) {
          res.set_header(name, value);
        }
        res.status = 204;
        return;
      }
      for (const auto& [name, value] : CorsHeaders(options.cors, origin))
        res.set_header(name, value);
    }
    const Route route = Resolve(req.target);
    if (route.kind == Route::Kind::kAdmin) {
      if (!options.admin_api) return RefuseAdmin(req, res, route);
      if (auto refusal = AdminGuard(req)) return Answer(res, refusal->first, refusal->second);
      return HandleAdmin(req, res, route);
    }
    if (options.metrics && req.method == "GET" && route.path == "/metrics")
      return ServeMetrics(res);

    const bool pinned = route.kind == Route::Kind::kPinned;
    std::string session = SessionOf(req);
    JournalEntry entry;
    if (pinned) {
      entry.session = session;
      entry.trace = route.trace_id;
    }
    entry.method = req.method;
    entry.path = route.path;
    entry.headers = JournalHeaders(req.headers);

    // Answers with an error and journals it.
    Json body = nullptr;
    auto fail = [&](int status, const Json& error, std::string_view rule) {
      if (!body.is_null()) entry.body = std::move(body);
      if (rule == "unknown_trace") ++mismatches;
      entry.status = status;
      if (!rule.empty()) {
        entry.findings.push_back(
            Finding{std::string(rule), error["error"]["message"].get<std::string>()});
      }
      Journaled(std::move(entry));
      Answer(res, status, error);
    };

    if (!req.body.empty()) {
      const std::string ct = req.get_header_value("Content-Type");
      if (!IsJsonContentType(ct)) {
        entry.body = BodyValue(req.body);
        RedactSecrets(entry.body);
        return fail(415,
                    MakeErrorJson(
                        Format("unsupported content type \"{}\": send the body as application/json",
                               CapText(ct, kMaxQuotedBytes)),
                        "invalid_request_error", nullptr, "unsupported_content_type"),
                    "malformed_request");
      }
      auto parsed = llmconform::ReadJson("request body", req.body);
      if (!parsed) {
        entry.body = RedactText(req.body);
        return fail(400,
                    MakeErrorJson(Format("the request body is not valid JSON: {}",
                                         CapText(parsed.error().AtLineColumn(), kMaxQuotedBytes)),
                                  "invalid_request_error", nullptr, "invalid_json"),
                    "malformed_request");
      }
      body = std::move(*parsed);
      // Once, on arrival: the journal keeps no secret, and the book compares
      // redacted bodies (a recording matches the client that made it). A
      // body with no secret is journaled as it came (JournalEntry::body_json).
      // Its text is read back as JSON, so what the journal shows is the parsed
      // value; a duplicate key's earlier value (which parsing drops, unread by
      // redaction) stays only in that text, never in what is read out.
      if (!RedactSecrets(body) && req.body.size() <= kMaxKeptBytes) entry.body_json = req.body;
    }

    if (session.size() > kMaxSessionNameBytes) {
      const std::size_t size = session.size();
      entry.session = session = CapText(session, kMaxQuotedBytes);
      return fail(400,
                  MakeErrorJson(Format("X-Mockllm-Session: a session name is at most {} bytes, "
                                       "this one {}",
                                       kMaxSessionNameBytes, size),
                                "invalid_request_error", nullptr, "mockllm_session_name_too_long"),
                  "malformed_request");
    }
    if (route.kind == Route::Kind::kUnknownTrace) {
      return fail(404,
                  MakeErrorJson(Format("no loaded trace has the id \"{}\" (pinned route {})",
                                       CapText(route.trace_id, kMaxQuotedBytes),
                                       CapText(route.path, kMaxQuotedBytes)),
                                "mockllm_unknown_trace"),
                  "unknown_trace");
    }
    if (req.method == "GET" && route.rest == "/v1/models") {
      entry.status = 200;
      Journaled(std::move(entry));
      return Answer(res, 200,
                    ModelsList(pinned ? std::optional<std::string>(route.trace_id) : std::nullopt));
    }
    if (!pinned && !book->KnownPath(req.method, route.rest) && !proxy) {
      return fail(404,
                  MakeErrorJson(Format("Invalid URL ({} {})", CapText(req.method, kMaxQuotedBytes),
                                       CapText(route.path, kMaxQuotedBytes)),
                                "invalid_request_error"),
                  "");
    }

    // --dialect, or this request's X-Mockllm-Dialect (mockllm/dialect_rewrite.h).
    const Dialect* dialect = nullptr;
    if (const std::string name = req.has_header("X-Mockllm-Dialect")
                                     ? req.get_header_value("X-Mockllm-Dialect")
                                     : options.dialect;
        !name.empty() && !(dialect = FindDialect(name))) {
      return fail(400,
                  MakeErrorJson(Format("X-Mockllm-Dialect: unknown dialect \"{}\" (known: {})",
                                       CapText(name, kMaxQuotedBytes), DialectNames()),
                                "invalid_request_error", nullptr, "mockllm_unknown_dialect"),
                  "malformed_request");
    }
    // Work that grows with the loaded traces runs on a worker, never on an
    // I/O thread (where it would hold up every connection the thread
    // serves): the search for the nearest recorded request when nothing
    // matches, a dialect's rewrite of a recorded answer, and (with --proxy,
    // whose handlers all run on workers) the wait on the upstream.
    const bool rewrites = dialect && !dialect->steps.empty();
    std::optional<Verdict> verdict =
        pinned ? std::optional(
                     book->ReplayPinned(route.trace_id, session, req.method, route.rest, body))
               : book->MatchUnpinned(req.method, route.rest, body, session);
    if (verdict && !(rewrites && verdict->plan)) {
      return Conclude(req, res, pinned, dialect, std::move(entry), std::move(body),
                      std::move(*verdict));
    }
    struct Rest {
      JournalEntry entry;
      Json body;
      std::optional<Verdict> verdict;
      std::string path;
    };
    auto rest = std::make_shared<Rest>(
        Rest{std::move(entry), std::move(body), std::move(verdict), route.rest});
    FinishOnWorker(res, [this, &req, pinned, dialect, rest](httplib::Response& res) {
      Verdict v = rest->verdict ? std::move(*rest->verdict)
                                : book->NoMatchUnpinned(req.method, rest->path, rest->body);
      Conclude(req, res, pinned, dialect, std::move(rest->entry), std::move(rest->body),
               std::move(v));
    });
  }

  // Answers a request with its verdict (proxying an unmatched unpinned one
  // when there is a proxy) and journals it.
  void Conclude(const httplib::Request& req, httplib::Response& res, bool pinned,
                const Dialect* dialect, JournalEntry entry, Json body, Verdict v) {
    if (!pinned && v.trace) entry.trace = v.trace;
    entry.body = std::move(body);
    entry.findings = std::move(v.findings);
    entry.exchange = v.exchange;
    entry.nearest = std::move(v.nearest);
    if (!pinned && !v.plan && Proxied(req, res, entry)) return;
    if (v.mismatch) ++mismatches;
    if (!v.plan) {
      entry.status = v.status;
      Journaled(std::move(entry));
      return Answer(res, v.status, v.error_body);
    }
    std::shared_ptr<const LoadedTrace> keep = std::move(v.keep);
    const ResponsePlan* planned = v.plan;
    if (dialect && !dialect->steps.empty()) {
      // The rewritten plan lives as long as `keep` (the response outlives Handle).
      auto held = std::make_shared<std::pair<std::shared_ptr<const LoadedTrace>, ResponsePlan>>(
          keep, PlanDialectResponse(keep->trace.exchanges[*v.exchange], *dialect,
                                    v.fault ? *v.fault : OJson::object(),
                                    keep->exchanges[*v.exchange].seed));
      planned = &held->second;
      keep = std::shared_ptr<const LoadedTrace>(held, held->first.get());
    }
    if (dialect) entry.dialect = dialect->name;
    const ResponsePlan& plan = *planned;
    entry.status = plan.status;
    entry.replayed = true;
    entry.stream = plan.chunked;
    entry.bytes = plan.BodySize();
    entry.cut = plan.cut;
    entry.outcome = "sending";
    if (v.fault && !v.fault->empty())
      entry.fault = Json(*v.fault);  // ordered to plain, member by member
    const std::uint64_t seq = Journaled(std::move(entry));
    metrics.ReplayStarted(seq);
    Replay(plan, std::move(keep), seq, req, res);
  }

  void SetOutcome(std::uint64_t seq, std::string_view outcome) {
    std::optional<Finding> finding;
    if (outcome == "client_disconnected") {
      finding = Finding{"client_disconnected",
                        "the client closed the connection before the response was complete"};
    }
    journal.SetOutcome(seq, outcome, std::move(finding));
    if (outcome != "sending") metrics.ReplayEnded(seq);
  }

  // The outcome of an answer that did not leave whole: the server stopping
  // ends every connection, and that is not the client leaving.
  std::string_view WriteFailed() {
    std::lock_guard lock(stop_mu);
    return stopping ? "stopped" : "client_disconnected";
  }

  // True when writing the plan takes time (a delay, stalls, a cut, pieces on
  // their recorded times, or each piece in its own write), so the listener
  // paces it (ReplayWriter); false when it is written at once, as one body.
  bool Timed(const ResponsePlan& plan) const {
    return plan.delay_ms > 0 || plan.cut || plan.resplit || options.piecewise || plan.stalls ||
           (options.speed > 0 && plan.paced);
  }

  // Runs on an I/O thread and must not wait: what waits (the plan's delay,
  // stalls, recorded times) the listener paces on its event loop.
  // `keep` holds the plan's trace until the response is written (it may be
  // unloaded meanwhile).
  void Replay(const ResponsePlan& plan, std::shared_ptr<const LoadedTrace> keep, std::uint64_t seq,
              const httplib::Request& req, httplib::Response& res) {
    const bool http10 = req.version == "HTTP/1.0";
    res.status = plan.status;
    for (const auto& [name, value] : plan.headers) res.set_header(name, value);
    // A HEAD request's answer is its head alone, as a GET's would be: the
    // providers only size it (the listener never calls them for HEAD).
    if (req.method == "HEAD") {
      if (plan.chunked) {
        res.set_chunked_content_provider(plan.content_type,
                                         [](std::size_t, httplib::DataSink&) { return false; });
      } else {
        res.set_content_provider(
            plan.content_length, plan.content_type,
            [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
      }
      SetOutcome(seq, "complete");
      return;
    }
    // Written at once: the body as one piece, a stream framed at load time
    // (ResponsePlan::framed), lent, not copied (`keep` holds the bytes until
    // they are written). HTTP/1.0 has no chunked coding: a stream goes to it
    // as one sized body.
    if (!Timed(plan)) {
      if (plan.chunked && http10) {
        res.set_content(plan.Body(), plan.content_type);
      } else if (plan.chunked) {
        res.set_header("Transfer-Encoding", "chunked");
        LendBody(res, keep, plan.framed, plan.content_type);
      } else if (plan.pieces.size() == 1) {
        LendBody(res, keep, plan.pieces.front().bytes, plan.content_type);
      } else {
        res.set_content(plan.Body(), plan.content_type);
      }
      // Complete once handed to the socket (a client that reads its answer
      // and at once reads the journal finds it so); amended when the
      // connection ends before the answer has left whole (HttpListener).
      metrics.BytesSent(plan.BodySize());
      SetOutcome(seq, "complete");
      res.content_provider_resource_releaser_ = [this, seq](bool whole) {
        if (!whole) SetOutcome(seq, WriteFailed());
      };
      return;
    }
    const auto ended = [this, seq](ReplayEnd end) {
      SetOutcome(seq, end == ReplayEnd::kComplete ? std::string_view("complete")
                      : end == ReplayEnd::kCut    ? std::string_view("cut")
                                                  : WriteFailed());
    };
    PaceBody(res,
             std::make_shared<ReplayWriter>(plan, std::move(keep), options.speed, options.piecewise,
                                            metrics, seq, ended),
             plan.chunked ? std::nullopt : std::optional(plan.content_length), plan.content_type);
  }

  // Journals what the HTTP layer refused before the handler ran.
  void Refused(const httplib::Request& req, int status, const std::string& message) {
    const bool admin = req.path.starts_with("/__admin");
    if (admin && options.admin_api) return;
    JournalEntry entry;
    entry.method = req.method;
    entry.path = req.path;
    entry.headers = JournalHeaders(req.headers);
    entry.status = status;
    entry.findings.push_back(Finding{"malformed_request", message});
    if (admin) {
      entry.findings.push_back(Finding{"admin_request",
                                       "a request to mockllm's admin API, closed while it judges a "
                                       "client"});
    }
    Journaled(std::move(entry));
  }

  std::expected<void, Error> Listen() {
    auto bound = http.Start(
        ListenOptions{.host = options.host,
                      .port = options.port,
                      .handler_may_block = proxy != nullptr,  // a proxied request waits upstream
                      .threads = options.threads,
                      .max_connections = options.max_connections,
                      .read_timeout_ms = options.read_timeout_ms,
                      .keep_alive_seconds = options.keep_alive_seconds,
                      .write_timeout_ms = options.write_timeout_ms,
                      .max_body_bytes = options.max_body_bytes,
                      .max_buffered_body_bytes = options.max_buffered_body_bytes},
        [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); },
        [this](const httplib::Request& req, int status, const std::string& message) {
          Refused(req, status, message);
        });
    if (!bound) return std::unexpected(bound.error());
    port = *bound;
    return {};
  }

  void Stop() {
    {
      std::lock_guard lock(stop_mu);
      if (stopped) return;
      stopping = true;
      stopped = true;
    }
    // The proxy first: a worker forwarding a request waits on it, and
    // http.Stop() waits for the workers.
    if (proxy) proxy->Stop();
    http.Stop();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

std::expected<std::unique_ptr<Server>, Error> Server::Start(std::vector<Trace> traces,
                                                            ServerOptions options) {
  ReplayOptions replay{.strict = options.strict,
                       .pinned_match = options.pinned_match,
                       .unpinned_match = options.unpinned_match,
                       .ignore_paths = options.ignore_paths,
                       .fault = options.fault,
                       .seed = options.seed,
                       .max_sessions = options.max_sessions};
  auto book = ReplayBook::Build(std::move(traces), replay);
  if (!book) return std::unexpected(book.error());
  if (options.threads < 1) return std::unexpected(Error{"threads: expected at least 1"});
  if (!options.dialect.empty() && !FindDialect(options.dialect)) {
    return std::unexpected(Error{
        Format("--dialect \"{}\": unknown dialect (known: {})", options.dialect, DialectNames())});
  }
  if (!options.cors.empty() && options.cors != "*" &&
      !(options.cors.starts_with("http://") || options.cors.starts_with("https://"))) {
    return std::unexpected(Error{
        Format("--cors \"{}\": expected * or an origin like http://localhost:3000", options.cors)});
  }
  std::unique_ptr<Proxy> proxy;
  if (!options.proxy.empty()) {
    if (options.record_to.empty())
      return std::unexpected(Error{"--proxy needs --record-to FILE: where proxied exchanges go"});
    auto started =
        Proxy::Start(RecordingOptions{.upstream = options.proxy,
                                      .out = options.record_to,
                                      .upstream_timeout_seconds = options.proxy_timeout_seconds});
    if (!started) return std::unexpected(started.error());
    proxy = std::move(*started);
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->book = std::move(*book);
  impl->proxy = std::move(proxy);
  if (auto ok = impl->Listen(); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::base_url() const {
  return Format("http://{}:{}", impl_->options.host, impl_->port);
}

std::string Server::TraceBaseUrl(std::string_view trace_id) const {
  return Format("{}/t/{}/v1", base_url(), UrlEncode(trace_id));
}

nlohmann::json Server::Journal() const { return impl_->journal.Entries(); }

nlohmann::json Server::Sessions() const { return impl_->book->Sessions(); }

void Server::ForEachSession(const std::function<void(const nlohmann::json&)>& each) const {
  ReplayBook::SessionsCursor cursor;
  for (nlohmann::json page; !(page = impl_->book->SessionsPage(cursor, 64)).empty();) {
    for (const nlohmann::json& row : page) each(row);
  }
}

std::vector<std::string> Server::Warnings() const { return impl_->book->Warnings(); }

std::uint64_t Server::mismatches() const { return impl_->mismatches.load(); }

std::uint64_t Server::journal_dropped() const { return impl_->journal.dropped(); }

void Server::Reset() { impl_->ResetAll(); }

void Server::Stop() { impl_->Stop(); }

std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

std::string UrlDecode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace llmconform::mockllm
