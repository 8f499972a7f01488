// TracesToHar (mockllm/import.h): traces as HAR 1.2.
#include <string>

#include "base/format.h"
#include "mockllm/import.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

OJson HarHeaders(const OJson& headers) {
  OJson out = OJson::array();
  if (!headers.is_object()) return out;
  for (auto it = headers.begin(); it != headers.end(); ++it) {
    out.push_back(
        {{"name", it.key()}, {"value", it->is_string() ? it->get<std::string>() : it->dump()}});
  }
  return out;
}

std::string HeaderValue(const OJson& headers, std::string_view name, std::string_view fallback) {
  if (headers.is_object()) {
    for (auto it = headers.begin(); it != headers.end(); ++it) {
      std::string k = it.key();
      for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (k == name && it->is_string()) return it->get<std::string>();
    }
  }
  return std::string(fallback);
}

OJson QueryString(std::string_view path) {
  OJson out = OJson::array();
  const auto q = path.find('?');
  if (q == std::string_view::npos) return out;
  std::string_view rest = path.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    out.push_back(
        {{"name", std::string(pair.substr(0, eq))},
         {"value", eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1))}});
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

// HAR content: text, or base64 with `encoding` for bytes that are not UTF-8.
void PutText(OJson& content, const std::string& bytes) {
  if (IsValidUtf8(bytes)) {
    content["text"] = bytes;
  } else {
    content["text"] = Base64Encode(bytes);
    content["encoding"] = "base64";
  }
}

}  // namespace

OJson TracesToHar(const std::vector<Trace>& traces, std::string_view version) {
  OJson entries = OJson::array();
  for (const Trace& t : traces) {
    const std::string started =
        t.header.contains("recorded_at") && t.header["recorded_at"].is_string()
            ? t.header["recorded_at"].get<std::string>()
            : "1970-01-01T00:00:00.000Z";
    const std::string origin = t.header.contains("upstream") && t.header["upstream"].is_string()
                                   ? t.header["upstream"].get<std::string>()
                                   : "http://mockllm.invalid";
    for (const Exchange& x : t.exchanges) {
      OJson req = OJson::object();
      req["method"] = x.request.method;
      std::string path = x.request.path;
      if (x.request.extra.contains("query") && x.request.extra["query"].is_string())
        path.append(1, '?').append(x.request.extra["query"].get_ref<const std::string&>());
      req["url"] = origin + path;
      req["httpVersion"] = "HTTP/1.1";
      req["cookies"] = OJson::array();
      req["headers"] = HarHeaders(x.request.headers);
      req["queryString"] = QueryString(path);
      std::size_t req_size = 0;
      if (x.request.body) {
        const std::string text = x.request.body->is_string() ? x.request.body->get<std::string>()
                                                             : x.request.body->dump();
        req_size = text.size();
        req["postData"] = {
            {"mimeType", HeaderValue(x.request.headers, "content-type", "application/json")},
            {"text", text}};
      }
      req["headersSize"] = -1;
      req["bodySize"] = req_size;

      std::string body;
      std::int64_t first = 0;
      std::int64_t last = 0;
      if (x.response.streamed) {
        for (const Chunk& c : x.response.chunks) body += c.raw;
        if (!x.response.chunks.empty()) {
          first = x.response.chunks.front().t_ms;
          last = x.response.chunks.back().t_ms;
        }
      } else {
        body = x.response.BodyBytes();
      }
      OJson content = {{"size", body.size()},
                       {"mimeType", HeaderValue(x.response.headers, "content-type",
                                                x.response.streamed ? "text/event-stream"
                                                                    : "application/json")}};
      PutText(content, body);
      OJson res = OJson::object();
      res["status"] = x.response.status;
      res["statusText"] = ReasonPhrase(x.response.status);
      res["httpVersion"] = "HTTP/1.1";
      res["cookies"] = OJson::array();
      res["headers"] = HarHeaders(x.response.headers);
      res["content"] = std::move(content);
      res["redirectURL"] = "";
      res["headersSize"] = -1;
      res["bodySize"] = body.size();

      OJson entry = OJson::object();
      entry["startedDateTime"] = started;
      entry["time"] = std::max<std::int64_t>(last, 0);
      entry["request"] = std::move(req);
      entry["response"] = std::move(res);
      entry["cache"] = OJson::object();
      entry["timings"] = {{"send", 0},
                          {"wait", std::max<std::int64_t>(first, 0)},
                          {"receive", std::max<std::int64_t>(last - first, 0)}};
      std::string comment = Format("trace {}", t.id);
      if (x.seq) comment += Format(", exchange {}", *x.seq);
      if (x.fault) comment += Format("; fault {}", x.fault->dump());
      entry["comment"] = comment;
      entries.push_back(std::move(entry));
    }
  }
  OJson log = OJson::object();
  log["version"] = "1.2";
  log["creator"] = {{"name", "mockllm"}, {"version", std::string(version)}};
  log["entries"] = std::move(entries);
  return OJson{{"log", std::move(log)}};
}

}  // namespace llmconform::mockllm
