#include "mockllm/server.h"

#include "mockllm/http_message.h"
#include "mockllm/response_chain.h"
#include "mockllm/server_impl.h"
#include "mockllm/surface_errors.h"

namespace llmconform::mockllm {
namespace {

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

}  // namespace

namespace server_detail {

bool IsJsonContentType(std::string_view ct) {
  const std::string type = MediaType(ct);
  return type == "application/json" ||
         (type.starts_with("application/") && type.ends_with("+json"));
}

bool IsAdminContentType(std::string_view ct) {
  const std::string type = MediaType(ct);
  return IsJsonContentType(ct) || type == "application/x-ndjson" || type == "application/jsonl";
}

std::string HostName(std::string_view host) {
  if (host.starts_with('[')) {
    const auto close = host.find(']');
    return Lower(host.substr(1, close == std::string_view::npos ? close : close - 1));
  }
  return Lower(host.substr(0, host.rfind(':')));
}

std::vector<std::pair<std::string, std::string>> JournalHeaders(const HttpFields& headers) {
  auto out = RequestHeaders(headers);
  for (auto& [name, value] : out) {
    if (IsSecretField(name, value))
      value = kRedacted;
    else
      RedactTextInPlace(value);
  }
  return out;
}

}  // namespace server_detail

Route Server::Impl::Resolve(const std::string& target) const {
  Route r;
  r.path = target.substr(0, target.find('?'));
  if (r.path.starts_with("/__admin/") || r.path == "/__admin") {
    r.kind = Route::Kind::kAdmin;
    r.rest = r.path;
    return r;
  }
  if (!r.path.starts_with("/t/")) {
    r.rest = DecodeUrl(r.path, false);
    return r;
  }
  const auto seg_end = r.path.find('/', 3);
  r.trace_id = DecodeUrl(
      r.path.substr(3, seg_end == std::string::npos ? std::string::npos : seg_end - 3), false);
  if (seg_end != std::string::npos && book->HasTrace(r.trace_id)) {
    r.kind = Route::Kind::kPinned;
    r.rest = DecodeUrl(r.path.substr(seg_end), false);
    return r;
  }
  // An id with an unencoded '/': the longest loaded id the path starts with.
  const std::string decoded = DecodeUrl(r.path.substr(3), false);
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

std::uint64_t Server::Impl::Journaled(JournalEntry entry) {
  if (!entry.at_ms)
    entry.at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  metrics.Request(entry.path, entry.trace.value_or(""), entry.status, MetricsOutcome(entry));
  if (entry.fault) metrics.Faults(*entry.fault);
  return journal.Append(std::move(entry));
}

void Server::Impl::Answer(HttpResponse& res, int status, const Json& body) {
  AnswerJson(res, status, body);
}

std::string Server::Impl::SessionOf(const HttpRequest& req) const {
  std::string name;
  if (options.session_by == SessionBy::kHeader) {
    name = req.Header("X-Mockllm-Session");
  } else if (options.session_by == SessionBy::kClientAddress) {
    name = req.remote_addr;
  }
  return name.empty() ? "default" : name;
}

bool Server::Impl::Proxied(const HttpRequest& req, HttpResponse& res, JournalEntry& entry) {
  if (!proxy) return false;
  auto answer = proxy->Forward(ForwardRequest{.method = req.method,
                                              .target = req.target,
                                              .path = req.path,
                                              .headers = RequestHeaders(req.headers),
                                              .body = req.body});
  entry.proxied = proxy->upstream();
  if (!answer) {
    entry.status = 502;
    entry.findings.push_back(JournalFinding{FindingKind::kProxyFailed, answer.error().message});
    Journaled(std::move(entry));
    Answer(res, 502, MakeErrorJson(answer.error().message, "mockllm_proxy_failed"));
    return true;
  }
  entry.findings.clear();
  entry.nearest = nullptr;
  entry.status = answer->status;
  Journaled(std::move(entry));
  res.status = answer->status;
  for (const auto& [name, value] : answer->headers) res.SetHeader(name, value);
  res.SetBody(std::move(answer->body), answer->content_type);
  return true;
}

bool Server::Impl::Cors(const HttpRequest& req, HttpResponse& res) const {
  if (options.cors.empty()) return false;
  const std::string origin = req.Header("Origin");
  if (IsPreflight(req.method, origin, req.Header("Access-Control-Request-Method"))) {
    for (const auto& [name, value] :
         PreflightHeaders(options.cors, origin, req.Header("Access-Control-Request-Headers"))) {
      res.SetHeader(name, value);
    }
    res.status = 204;
    return true;
  }
  for (const auto& [name, value] : CorsHeaders(options.cors, origin)) res.SetHeader(name, value);
  return false;
}

void Server::Impl::Fail(HttpResponse& res, JournalEntry& entry, Json& body, int status,
                        const Json& error, std::optional<FindingKind> kind) {
  if (!body.is_null()) entry.body = std::move(body);
  if (kind == FindingKind::kUnknownTrace) ++mismatches;
  entry.status = status;
  if (kind) {
    entry.findings.push_back(JournalFinding{*kind, error["error"]["message"].get<std::string>()});
  }
  const auto surface = llmconform::wire::SurfaceOfPath(entry.path);
  Journaled(std::move(entry));
  Answer(res, status,
         InSurfaceShape(surface.value_or(llmconform::wire::Surface::kChat), status, error));
}

bool Server::Impl::ReadBody(const HttpRequest& req, HttpResponse& res, JournalEntry& entry,
                            Json& body) {
  if (req.body.empty()) return true;
  const std::string ct = req.Header("Content-Type");
  if (!IsJsonContentType(ct)) {
    entry.body = BodyValue(req.body);
    RedactSecrets(entry.body);
    Fail(res, entry, body, 415,
         MakeErrorJson(Format("unsupported content type \"{}\": send the body as application/json",
                              CapText(ct, kMaxQuotedBytes)),
                       "invalid_request_error", nullptr, "unsupported_content_type"),
         FindingKind::kMalformedRequest);
    return false;
  }
  auto parsed = llmconform::ReadJson("request body", req.body);
  if (!parsed) {
    entry.body = RedactText(req.body);
    Fail(res, entry, body, 400,
         MakeErrorJson(Format("the request body is not valid JSON: {}",
                              CapText(llmconform::AtLineColumn(parsed.error()), kMaxQuotedBytes)),
                       "invalid_request_error", nullptr, "invalid_json"),
         FindingKind::kMalformedRequest);
    return false;
  }
  body = std::move(*parsed);
  // Once, on arrival: the journal keeps no secret, and the book compares
  // redacted bodies (a recording matches the client that made it). A
  // body with no secret is journaled as it came (JournalEntry::body_json).
  // Its text is read back as JSON, so what the journal shows is the parsed
  // value; a duplicate key's earlier value (which parsing drops, unread by
  // redaction) stays only in that text, never in what is read out.
  if (!RedactSecrets(body) && req.body.size() <= kMaxKeptBytes) entry.body_json = req.body;
  return true;
}

void Server::Impl::Handle(const HttpRequest& req, HttpResponse& res) {
  if (Cors(req, res)) return;
  const Route route = Resolve(req.target);
  if (route.kind == Route::Kind::kAdmin) {
    if (!options.admin_api) return RefuseAdmin(req, res, route);
    if (auto refusal = AdminGuard(req)) return Answer(res, refusal->first, refusal->second);
    return HandleAdmin(req, res, route);
  }
  if (options.metrics && req.method == "GET" && route.path == "/metrics") return ServeMetrics(res);

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

  Json body = nullptr;
  auto fail = [&](int status, const Json& error, std::optional<FindingKind> kind) {
    Fail(res, entry, body, status, error, kind);
  };
  if (!ReadBody(req, res, entry, body)) return;

  if (session.size() > kMaxSessionNameBytes) {
    const std::size_t size = session.size();
    entry.session = session = CapText(session, kMaxQuotedBytes);
    return fail(400,
                MakeErrorJson(Format("X-Mockllm-Session: a session name is at most {} bytes, "
                                     "this one {}",
                                     kMaxSessionNameBytes, size),
                              "invalid_request_error", nullptr, "mockllm_session_name_too_long"),
                FindingKind::kMalformedRequest);
  }
  if (route.kind == Route::Kind::kUnknownTrace) {
    return fail(404,
                MakeErrorJson(Format("no loaded trace has the id \"{}\" (pinned route {})",
                                     CapText(route.trace_id, kMaxQuotedBytes),
                                     CapText(route.path, kMaxQuotedBytes)),
                              "mockllm_unknown_trace"),
                FindingKind::kUnknownTrace);
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
                std::nullopt);
  }

  // --dialect, or this request's X-Mockllm-Dialect (mockllm/dialect_rewrite.h).
  const Dialect* dialect = nullptr;
  if (const std::string name =
          req.HasHeader("X-Mockllm-Dialect") ? req.Header("X-Mockllm-Dialect") : options.dialect;
      !name.empty() && !(dialect = FindDialect(name))) {
    return fail(400,
                MakeErrorJson(Format("X-Mockllm-Dialect: unknown dialect \"{}\" (known: {})",
                                     CapText(name, kMaxQuotedBytes), DialectNames()),
                              "invalid_request_error", nullptr, "mockllm_unknown_dialect"),
                FindingKind::kMalformedRequest);
  }
  // An unknown previous_response_id is the API's 400, unless --proxy
  // forwards it to the upstream that may know it (mockllm/response_chain.h).
  if (pinned || !proxy) {
    if (auto id = book->UnknownPreviousResponse(route.rest, body))
      return fail(400, PreviousResponseNotFound(*id), FindingKind::kMalformedRequest);
  }
  // Work that grows with the loaded traces runs on a worker, never on an
  // I/O thread (where it would hold up every connection the thread
  // serves): the search for the nearest recorded request when nothing
  // matches, a dialect's rewrite of a recorded answer, and (with --proxy,
  // whose handlers all run on workers) the wait on the upstream.
  const bool rewrites = dialect && !dialect->steps.empty();
  std::optional<Verdict> verdict =
      pinned
          ? std::optional(book->ReplayPinned(route.trace_id, session, req.method, route.rest, body))
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
  res.FinishOnWorker([this, &req, pinned, dialect, rest](HttpResponse& res) {
    Verdict v = rest->verdict ? std::move(*rest->verdict)
                              : book->NoMatchUnpinned(req.method, rest->path, rest->body);
    Conclude(req, res, pinned, dialect, std::move(rest->entry), std::move(rest->body),
             std::move(v));
  });
}

void Server::Impl::Refused(const HttpRequest& req, int status, const std::string& message) {
  const bool admin = req.path.starts_with("/__admin");
  if (admin && options.admin_api) return;
  JournalEntry entry;
  entry.method = req.method;
  entry.path = req.path;
  entry.headers = JournalHeaders(req.headers);
  entry.status = status;
  entry.findings.push_back(JournalFinding{FindingKind::kMalformedRequest, message});
  if (admin) {
    entry.findings.push_back(
        JournalFinding{FindingKind::kAdminRequest,
                       "a request to mockllm's admin API, closed while it judges a "
                       "client"});
  }
  Journaled(std::move(entry));
}

namespace {
// `listen` with its handlers allowed to block when they may (a proxied
// request waits on its upstream).
ListenOptions ListenWith(ListenOptions listen, bool handlers_may_block) {
  listen.handler_may_block = listen.handler_may_block || handlers_may_block;
  return listen;
}
}  // namespace

std::expected<void, Error> Server::Impl::Listen() {
  auto bound = http.Start(
      ListenWith(options.listen, proxy != nullptr),
      [this](const HttpRequest& req, HttpResponse& res) { Handle(req, res); },
      [this](const HttpRequest& req, int status, const std::string& message) {
        Refused(req, status, message);
      });
  if (!bound) return std::unexpected(bound.error());
  port = *bound;
  return {};
}

void Server::Impl::Stop() {
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
  if (options.listen.threads < 1) return std::unexpected(Error{"threads: expected at least 1"});
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
  return Format("http://{}:{}", impl_->options.listen.host, impl_->port);
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

}  // namespace llmconform::mockllm
