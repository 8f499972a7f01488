#include "mockllm/server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "mockllm/http_listener.h"
#include "mockllm/journal.h"
#include "mockllm/replay_book.h"
#include "mockllm/secrets.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/format.h"

namespace mockllm {
namespace {

using llmconform::Finding;
using llmconform::Format;
using llmconform::wire::MakeErrorJson;
using Clock = std::chrono::steady_clock;

bool IsJsonContentType(std::string_view ct) {
  std::string lower(ct);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto semi = lower.find(';');
  const std::string type = lower.substr(0, semi);
  return type == "application/json" ||
         (type.starts_with("application/") && type.ends_with("+json"));
}

// Request headers for the journal, secrets redacted.
std::vector<std::pair<std::string, std::string>> JournalHeaders(const httplib::Headers& headers) {
  auto out = RequestHeaders(headers);
  for (auto& [name, value] : out)
    value = IsSecretName(name) ? std::string(kRedacted) : RedactText(value);
  return out;
}

// Where a request goes, from its raw target.
struct Route {
  enum class Kind { kAdmin, kPinned, kUnpinned, kUnknownTrace } kind = Kind::kUnpinned;
  std::string path;                  // the raw path (no query)
  std::string rest;                  // the replay path: "/v1/…" (pinned: after the pin)
  std::optional<std::size_t> trace;  // pinned trace
  std::string trace_id;              // as the client named it
};

}  // namespace

struct Server::Impl {
  ServerOptions options;
  std::unique_ptr<ReplayBook> book;
  mockllm::Journal journal;
  HttpListener http;
  int port = 0;

  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stopping = false;
  bool stopped = false;

  explicit Impl(ServerOptions opts) : options(std::move(opts)), journal(options.journal_limit) {}

  // Waits until `t`; false when the server is stopping.
  bool WaitUntil(Clock::time_point t) {
    std::unique_lock lock(stop_mu);
    return !stop_cv.wait_until(lock, t, [this] { return stopping; });
  }

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
    if (auto t = book->FindTrace(r.trace_id); t && seg_end != std::string::npos) {
      r.kind = Route::Kind::kPinned;
      r.trace = t;
      r.rest = UrlDecode(r.path.substr(seg_end));
      return r;
    }
    // An id with an unencoded '/': the longest loaded id the path starts with.
    const std::string decoded = UrlDecode(r.path.substr(3));
    std::size_t best = 0;
    for (std::size_t i = 0; i < book->traces().size(); ++i) {
      const std::string& id = book->traces()[i].id;
      if (decoded.starts_with(id + "/") && id.size() > best) {
        best = id.size();
        r.trace = i;
      }
    }
    if (r.trace) {
      r.kind = Route::Kind::kPinned;
      r.trace_id = book->traces()[*r.trace].id;
      r.rest = decoded.substr(best);
      return r;
    }
    r.kind = Route::Kind::kUnknownTrace;
    return r;
  }

  void Answer(httplib::Response& res, int status, const Json& body) {
    AnswerJson(res, status, body);
  }

  void HandleAdmin(const httplib::Request& req, httplib::Response& res, const Route& route) {
    if (req.method == "GET" && route.path == "/__admin/health") {
      Json ids = Json::array();
      for (const Trace& t : book->traces()) ids.push_back(t.id);
      return Answer(res, 200,
                    {{"status", "ok"},
                     {"traces", std::move(ids)},
                     {"requests", journal.total()},
                     {"journal_dropped", journal.dropped()}});
    }
    if (req.method == "GET" && route.path == "/__admin/journal")
      return Answer(res, 200, journal.Entries());
    if (req.method == "GET" && route.path == "/__admin/sessions")
      return Answer(res, 200, book->Sessions());
    if (req.method == "POST" && route.path == "/__admin/reset") {
      book->Reset();
      journal.Clear();
      return Answer(res, 200, {{"reset", true}});
    }
    Answer(
        res, 404,
        MakeErrorJson(
            Format(
                "Invalid URL ({} {}): admin routes are GET /__admin/health, GET /__admin/journal, "
                "GET /__admin/sessions, POST /__admin/reset",
                req.method, route.path),
            "invalid_request_error"));
  }

  Json ModelsList(std::optional<std::size_t> trace) const {
    Json data = Json::array();
    for (const std::string& m : book->Models(trace)) {
      data.push_back({{"id", m}, {"object", "model"}, {"created", 0}, {"owned_by", "mockllm"}});
    }
    return {{"object", "list"}, {"data", std::move(data)}};
  }

  bool KnownPath(std::string_view method, std::string_view path) const {
    if (path.starts_with("/v1/")) return true;
    for (const Trace& t : book->traces()) {
      for (const Exchange& x : t.exchanges) {
        if (x.request.method == method && x.request.path == path) return true;
      }
    }
    return false;
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    const Route route = Resolve(req.target);
    if (route.kind == Route::Kind::kAdmin) return HandleAdmin(req, res, route);

    const bool pinned = route.kind == Route::Kind::kPinned;
    const std::string session = pinned ? req.get_header_value("X-Mockllm-Session") : "";
    JournalEntry entry;
    if (pinned) {
      entry.session = session.empty() ? "default" : session;
      entry.trace = route.trace_id;
    }
    entry.method = req.method;
    entry.path = route.path;
    entry.headers = JournalHeaders(req.headers);

    // Answers with an error and journals it.
    Json body = nullptr;
    auto fail = [&](int status, const Json& error, std::string_view rule) {
      if (!body.is_null()) entry.body = std::move(body);
      entry.status = status;
      if (!rule.empty()) {
        entry.findings.push_back(
            Finding{std::string(rule), error["error"]["message"].get<std::string>()});
      }
      journal.Append(std::move(entry));
      Answer(res, status, error);
    };

    if (!req.body.empty()) {
      const std::string ct = req.get_header_value("Content-Type");
      if (!IsJsonContentType(ct)) {
        entry.body = BodyValue(req.body);
        return fail(
            415,
            MakeErrorJson(
                Format("unsupported content type \"{}\": send the body as application/json", ct),
                "invalid_request_error", nullptr, "unsupported_content_type"),
            "malformed_request");
      }
      auto parsed = llmconform::ReadJson("request body", req.body);
      if (!parsed) {
        entry.body = req.body;
        return fail(400,
                    MakeErrorJson(Format("the request body is not valid JSON: {}",
                                         parsed.error().AtLineColumn()),
                                  "invalid_request_error", nullptr, "invalid_json"),
                    "malformed_request");
      }
      body = std::move(*parsed);
    }

    if (route.kind == Route::Kind::kUnknownTrace) {
      return fail(404,
                  MakeErrorJson(Format("no loaded trace has the id \"{}\" (pinned route {})",
                                       route.trace_id, route.path),
                                "mockllm_unknown_trace"),
                  "unknown_trace");
    }
    if (req.method == "GET" && route.rest == "/v1/models") {
      entry.status = 200;
      journal.Append(std::move(entry));
      return Answer(res, 200, ModelsList(route.trace));
    }
    if (!pinned && !KnownPath(req.method, route.rest)) {
      return fail(404,
                  MakeErrorJson(Format("Invalid URL ({} {})", req.method, route.path),
                                "invalid_request_error"),
                  "");
    }

    Verdict v = pinned
                    ? book->ReplayPinned(*route.trace, *entry.session, req.method, route.rest, body)
                    : book->ReplayUnpinned(req.method, route.rest, body);
    if (!pinned && v.trace) entry.trace = book->traces()[*v.trace].id;
    entry.body = std::move(body);
    entry.findings = std::move(v.findings);
    entry.exchange = v.exchange;
    if (!v.plan) {
      entry.status = v.status;
      journal.Append(std::move(entry));
      return Answer(res, v.status, v.error_body);
    }
    const ResponsePlan& plan = *v.plan;
    entry.status = plan.status;
    entry.replayed = true;
    entry.stream = plan.chunked;
    entry.bytes = plan.BodySize();
    entry.cut = plan.cut;
    entry.outcome = "sending";
    if (v.fault && !v.fault->empty())
      entry.fault = Json(*v.fault);  // ordered to plain, member by member
    const std::uint64_t seq = journal.Append(std::move(entry));
    Replay(plan, seq, res);
  }

  void SetOutcome(std::uint64_t seq, std::string_view outcome) {
    std::optional<Finding> finding;
    if (outcome == "client_disconnected") {
      finding = Finding{"client_disconnected",
                        "the client closed the connection before the response was complete"};
    }
    journal.SetOutcome(seq, outcome, std::move(finding));
  }

  // Writes the plan's pieces on time; false when the response ends early.
  bool WritePieces(const ResponsePlan& plan, httplib::DataSink& sink, std::uint64_t seq,
                   Clock::time_point start) {
    const bool burst = options.speed == 0 && !options.piecewise;
    for (const Piece& p : burst ? plan.burst : plan.pieces) {
      if (options.speed > 0) {
        const auto due = start + std::chrono::microseconds(static_cast<std::int64_t>(
                                     static_cast<double>(p.at_ms) * 1000.0 * options.speed));
        if (!WaitUntil(due)) return SetOutcome(seq, "stopped"), false;
      }
      if (p.stall_ms_before > 0) {
        const auto stall = std::chrono::milliseconds(p.stall_ms_before);
        if (!WaitUntil(Clock::now() + stall)) return SetOutcome(seq, "stopped"), false;
        start += stall;
      }
      if (!p.bytes.empty() && !sink.write(p.bytes.data(), p.bytes.size())) {
        return SetOutcome(seq, "client_disconnected"), false;
      }
    }
    if (plan.cut) return SetOutcome(seq, "cut"), false;
    SetOutcome(seq, "complete");
    return true;
  }

  void Replay(const ResponsePlan& plan, std::uint64_t seq, httplib::Response& res) {
    if (plan.delay_ms > 0) WaitUntil(Clock::now() + std::chrono::milliseconds(plan.delay_ms));
    const Clock::time_point start = Clock::now();
    res.status = plan.status;
    for (const auto& [name, value] : plan.headers) res.set_header(name, value);
    if (plan.chunked) {
      res.set_chunked_content_provider(
          plan.content_type, [this, &plan, seq, start](std::size_t, httplib::DataSink& sink) {
            if (!WritePieces(plan, sink, seq, start)) return false;
            sink.done();
            return true;
          });
    } else if (plan.content_length == 0) {
      for (const Piece& p : plan.pieces) {
        if (p.stall_ms_before > 0)
          WaitUntil(Clock::now() + std::chrono::milliseconds(p.stall_ms_before));
      }
      SetOutcome(seq, plan.cut ? "cut" : "complete");
      res.set_content("", plan.content_type);
    } else {
      res.set_content_provider(
          plan.content_length, plan.content_type,
          [this, &plan, seq, start](std::size_t, std::size_t, httplib::DataSink& sink) {
            return WritePieces(plan, sink, seq, start);
          });
    }
  }

  // Journals what the HTTP layer refused before the handler ran.
  void Refused(const httplib::Request& req, int status, const std::string& message) {
    if (req.path.starts_with("/__admin")) return;
    JournalEntry entry;
    entry.method = req.method;
    entry.path = req.path;
    entry.headers = JournalHeaders(req.headers);
    entry.status = status;
    entry.findings.push_back(Finding{"malformed_request", message});
    journal.Append(std::move(entry));
  }

  std::expected<void, Error> Listen() {
    auto bound = http.Start(
        ListenOptions{.host = options.host,
                      .port = options.port,
                      .threads = options.threads,
                      .keep_alive_seconds = options.keep_alive_seconds,
                      .max_body_bytes = options.max_body_bytes},
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
    stop_cv.notify_all();
    http.Stop();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

std::expected<std::unique_ptr<Server>, Error> Server::Start(std::vector<Trace> traces,
                                                            ServerOptions options) {
  ReplayOptions replay{.strict = options.strict,
                       .ignore_paths = options.ignore_paths,
                       .fault = options.fault,
                       .seed = options.seed};
  auto book = ReplayBook::Build(std::move(traces), replay);
  if (!book) return std::unexpected(book.error());
  if (options.threads < 1) return std::unexpected(Error{"threads: expected at least 1"});
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->book = std::move(*book);
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

void Server::Reset() {
  impl_->book->Reset();
  impl_->journal.Clear();
}

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

}  // namespace mockllm
