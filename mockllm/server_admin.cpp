// The server's admin API (/__admin/...) and /metrics.

#include "mockllm/server_impl.h"

namespace llmconform::mockllm {

void Server::Impl::ServeMetrics(HttpResponse& res) {
  if (!metrics.enabled()) {
    return Answer(res, 404,
                  MakeErrorJson("metrics are off (serve --no-metrics)", "invalid_request_error",
                                nullptr, "mockllm_metrics_off"));
  }
  res.status = 200;
  res.SetBody(metrics.Render(MetricsGauges{.sessions = book->SessionCount(),
                                           .sessions_evicted = book->SessionsEvicted(),
                                           .journal_entries = journal.size(),
                                           .journal_dropped = journal.dropped(),
                                           .connections_open = http.OpenConnections(),
                                           .connections_refused = http.RefusedConnections()}),
              std::string(kMetricsContentType));
}

void Server::Impl::HandleAdmin(const HttpRequest& req, HttpResponse& res, const Route& route) {
  if (req.method == "GET" && route.path == "/__admin/journal") {
    if (!req.HasParam("session") && !req.HasParam("trace")) return StreamJournal(req, res, {});
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

std::optional<std::pair<int, Json>> Server::Impl::AdminGuard(const HttpRequest& req) const {
  if (req.HasHeader("Host")) {
    const std::string host = req.Header("Host");
    const std::string name = HostName(host);
    const std::string listening = options.listen.host.starts_with('[')
                                      ? HostName(options.listen.host)
                                      : Lower(options.listen.host);
    bool allowed = name == "localhost" || name == "127.0.0.1" || name == "::1" || name == listening;
    for (const std::string& h : options.allow_hosts) allowed = allowed || name == Lower(h);
    if (!allowed) {
      return std::pair{
          403, MakeErrorJson(Format("Host \"{}\" is not this server's address: the admin API "
                                    "answers {} and loopback names (allow another with "
                                    "--allow-host NAME)",
                                    CapText(host, kMaxQuotedBytes), options.listen.host),
                             "mockllm_admin_refused", nullptr, "host_not_allowed")};
    }
  }
  if (const std::string origin = req.Header("Origin"); !OriginAllowed(options.cors, origin)) {
    return std::pair{
        403, MakeErrorJson(Format("Origin \"{}\" may not use the admin API ({})",
                                  CapText(origin, kMaxQuotedBytes),
                                  options.cors.empty() ? std::string("no --cors origin is allowed")
                                                       : Format("--cors allows {}", options.cors)),
                           "mockllm_admin_refused", nullptr, "origin_not_allowed")};
  }
  // A POST is what a page can send without a preflight (as text/plain, a
  // form); another method always has one, so only a body it carries is held
  // to the same types.
  const bool write = req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS";
  if (write && (req.method == "POST" || !req.body.empty() || req.HasHeader("Content-Type")) &&
      !IsAdminContentType(req.Header("Content-Type"))) {
    return std::pair{
        415, MakeErrorJson(
                 Format("{} {}: an admin write must be sent with Content-Type: application/json "
                        "(got \"{}\")",
                        CapText(req.method, kMaxQuotedBytes), CapText(req.path, kMaxQuotedBytes),
                        CapText(req.Header("Content-Type"), kMaxQuotedBytes)),
                 "invalid_request_error", nullptr, "unsupported_content_type")};
  }
  return std::nullopt;
}

void Server::Impl::RefuseAdmin(const HttpRequest& req, HttpResponse& res, const Route& route) {
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
  entry.findings.push_back(JournalFinding{FindingKind::kAdminRequest, message});
  Journaled(std::move(entry));
  Answer(res, 403, MakeErrorJson(message, "mockllm_admin_closed"));
}

void Server::Impl::ResetAll() {
  book->Reset();
  journal.Clear();
  ::malloc_trim(0);
}

bool Server::Impl::CountParams(
    const HttpRequest& req, HttpResponse& res,
    std::initializer_list<std::pair<const char*, std::uint64_t*>> params) {
  for (auto [name, into] : params) {
    if (!req.HasParam(name)) continue;
    const std::string text = req.Param(name);
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

void Server::Impl::StreamSessions(const HttpRequest& req, HttpResponse& res) {
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
  res.SetHeader("X-Mockllm-Sessions", std::to_string(book->SessionCount()));
  res.SetHeader("X-Mockllm-Sessions-Evicted", std::to_string(book->SessionsEvicted()));
  res.ProvideBody(std::nullopt, "application/json", [this, cursor](std::size_t, HttpSink& sink) {
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
    if (!out.empty() && !sink.write(out)) return false;
    if (last) sink.done();
    return true;
  });
}

void Server::Impl::StreamJournal(const HttpRequest& req, HttpResponse& res,
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
  res.ProvideBody(std::nullopt, "application/json", [this, cursor](std::size_t, HttpSink& sink) {
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
    if (!out.empty() && !sink.write(out)) return false;
    if (last) sink.done();
    return true;
  });
}

Json Server::Impl::ModelsList(const std::optional<std::string>& trace) const {
  Json data = Json::array();
  for (const std::string& m : book->Models(trace)) {
    data.push_back({{"id", m}, {"object", "model"}, {"created", 0}, {"owned_by", "mockllm"}});
  }
  return {{"object", "list"}, {"data", std::move(data)}};
}

}  // namespace llmconform::mockllm
