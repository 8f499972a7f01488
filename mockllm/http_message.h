// mockllm's HTTP messages: the request its listener (mockllm/http_listener.h)
// hands a handler, and the response the handler fills. Plain values owned by
// whoever holds them: no thread-local state, no library's types. A response
// holds exactly one body (HttpResponse::Body); what it holds is what the
// listener writes.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace llmconform::mockllm {

// Orders header names ASCII case-insensitively (RFC 9110 §5.1).
struct HeaderNameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};
// Header fields ordered by name, names compared ASCII case-insensitively and
// kept as spelled; fields of one name keep the order they were added in (the
// order a response's fields are written in).
using HttpFields = std::multimap<std::string, std::string, HeaderNameLess>;
// Query parameters, decoded; names compared exactly.
using HttpParams = std::multimap<std::string, std::string>;

// The first value of `name` in `fields`, or "" when there is none.
std::string FieldValue(const HttpFields& fields, std::string_view name);

struct HttpRequest {
  std::string method;  // as sent, e.g. "POST"
  std::string target;  // the request-target as sent, e.g. "/v1/x?a=1"
  // The target before '?', percent-decoded (%XX, and %uXXXX as UTF-8; '+'
  // stays '+'; a '%' not followed by hex digits stays as it is).
  std::string path;
  // The target's query: split at '&', each piece at '=' (blanks around
  // pieces trimmed, empty pieces and repeated pieces dropped, a piece
  // without a name dropped), names and values decoded as `path` is, '+' as
  // a space.
  HttpParams params;
  bool http10 = false;  // the request line says HTTP/1.0 (otherwise HTTP/1.1)
  // The head's fields (a chunked body's trailer never joins them); the
  // listener removes Accept-Encoding and Range (it never compresses, never
  // answers ranges) before the handler runs.
  HttpFields headers;
  std::string body;         // the body, de-chunked
  std::string remote_addr;  // the client's address ("127.0.0.1"); empty when unknown

  bool HasHeader(std::string_view name) const { return headers.contains(name); }
  std::string Header(std::string_view name) const { return FieldValue(headers, name); }
  bool HasParam(std::string_view name) const;
  std::string Param(std::string_view name) const;  // the first value, or ""
};

// Sets `path` and `params` from `target` (HttpRequest's rules).
void ParseTarget(HttpRequest& req);
// Percent-decodes `s` as HttpRequest::path is, '+' as a space when `plus_is_space`.
std::string DecodeUrl(std::string_view s, bool plus_is_space);

// Where a content provider writes (HttpResponse::Provided). Each `write` is
// one write on the wire (of a chunked body: one chunk, its size line, bytes
// and CRLF gathered, so a recorded piece boundary reaches the wire); an empty
// write sends the head alone if it has not left. `write` returns false once
// the connection has failed (a write failed or stalled, the client reset
// it): the provider should return false then. `done` says the body is whole
// (of a chunked body, the last chunk follows). Valid only during the call.
struct HttpSink {
  std::function<bool(std::string_view piece)> write;
  std::function<void()> done;
};

// One step of a paced body (PacedBody::Next).
struct PacedStep {
  enum class Kind {
    kWait,   // ask again at `due` (a past `due`: at once)
    kHead,   // send the response head now, alone, then ask again
    kPiece,  // write `bytes` now in one call (a chunked body: as one chunk), then ask again
    kEnd,    // the body is whole: its last chunk (and the head, if it has not left) follow
    kCut,    // end the connection where the answer stands
  };
  Kind kind = Kind::kEnd;
  std::chrono::steady_clock::time_point due{};  // kWait
  std::string_view bytes;                       // kPiece: valid until Next is called again
};

// A body the listener writes from the connection's I/O thread as its pieces
// fall due: a timer per answer, writes as the socket takes them, no thread
// held while it waits. The listener calls Next, on the I/O thread, first when
// the handler has returned and then each time the step before is done (a
// kWait's time has come, a kHead's or kPiece's bytes have all been written);
// calls are never concurrent, and Next must not block. A client resetting
// the connection ends the answer (Abandoned): found by the next write, at
// once during a wait, and before the end is written. A throw from Next cuts
// the answer.
class PacedBody {
 public:
  virtual ~PacedBody() = default;
  virtual PacedStep Next() = 0;
  // Called once, on the I/O thread, when the answer ends before the step
  // after kEnd has left whole: a write failed or stalled past
  // `write_timeout_ms`, the client reset the connection, or the listener is
  // stopping (a kWait is cut short at once). Not called after kCut.
  virtual void Abandoned() = 0;
};

// A response: status, header fields and one body. Not copyable (its body
// may hold work that runs once, and `on_written` runs once).
struct HttpResponse {
  // No body (an empty one, Content-Length: 0, unless the status has none).
  struct None {};
  // Bytes the response owns.
  struct Owned {
    std::string bytes;
  };
  // Bytes that outlive the handler (a loaded trace's replay), written from
  // where they are: `owner` keeps them alive and is let go once they are
  // written (or the connection ends first).
  struct Lent {
    std::shared_ptr<const void> owner;
    std::string_view bytes;
  };
  // A body written as its pieces fall due (PacedBody): chunked (`length`
  // nullopt; to an HTTP/1.0 client the pieces as they are, the connection's
  // end ending the body) or of `length` bytes (pieces past it are cut off; a
  // body that ends short of it ends the connection, as Abandoned).
  struct Paced {
    std::shared_ptr<PacedBody> body;
    std::optional<std::size_t> length;
  };
  // A body a content provider gives, on a worker (it may wait): chunked
  // (`length` nullopt) or of `length` bytes. `provide(offset, sink)` is
  // called with the bytes written so far until the body is whole (a sized
  // body: `length` bytes written; a chunked one: sink.done called), and at
  // least once, so a provider of an empty body may still wait; returning
  // false (or throwing, or writing nothing to a sized body that is not
  // whole) ends the connection where the answer stands (a cut). Never
  // called for an answer without a body (HEAD, 204, 304): the length alone
  // sizes the head.
  struct Provided {
    std::function<bool(std::size_t offset, HttpSink& sink)> provide;
    std::optional<std::size_t> length;
  };
  // The rest of the handler's work, handed to a worker: the listener runs
  // `finish` on a worker once the handler has returned, on this response
  // (its body emptied first), and it answers as the handler would have
  // (status, headers, any body, even another OnWorker). The request the
  // handler was given stays valid until `finish` returns. Work that
  // grows with what is loaded (a search through every recorded request, a
  // rewrite of a large recorded answer) belongs there: on an I/O thread it
  // would hold up every connection that thread serves. A throw is a 500, as
  // from the handler.
  struct OnWorker {
    std::function<void(HttpResponse&)> finish;
  };
  using Body = std::variant<None, Owned, Lent, Paced, Provided, OnWorker>;

  HttpResponse() = default;
  HttpResponse(const HttpResponse&) = delete;
  HttpResponse& operator=(const HttpResponse&) = delete;
  ~HttpResponse() {
    if (on_written) on_written(written_whole);
  }

  int status = 200;
  // Written in their order (HttpFields), the ones no response may carry
  // left out (mockllm/http_io.h SafeHeader). A handler that sets
  // Transfer-Encoding gives its body framed already (mockllm's precomputed
  // chunked replies); Content-Length and Connection, when set, are written
  // as set.
  HttpFields headers;
  Body body;  // the last body set wins
  // Runs once, when the response is let go: told whether its answer was
  // written whole (false when the connection ended first, or when it was
  // never written).
  std::function<void(bool whole)> on_written;
  bool written_whole = false;  // set by whoever writes the answer

  // Adds a field (a second of the same name does not replace the first); a
  // name or value holding CR or LF is not added.
  void SetHeader(std::string_view name, std::string_view value);
  // Each body setter replaces the body and the Content-Type field.
  void SetBody(std::string bytes, std::string_view content_type);
  void LendBody(std::shared_ptr<const void> owner, std::string_view bytes,
                std::string_view content_type);
  void PaceBody(std::shared_ptr<PacedBody> paced, std::optional<std::size_t> length,
                std::string_view content_type);
  void ProvideBody(std::optional<std::size_t> length, std::string_view content_type,
                   std::function<bool(std::size_t offset, HttpSink& sink)> provide);
  // Replaces the body with OnWorker{finish}; headers stay.
  void FinishOnWorker(std::function<void(HttpResponse&)> finish);

  // The bytes of an Owned or Lent body; empty for any other.
  std::string_view Bytes() const;
};

// Sets `res` to `status` with `body` as compact JSON.
void AnswerJson(HttpResponse& res, int status, const nlohmann::json& body);

// The fields with lower-cased names, in their order.
std::vector<std::pair<std::string, std::string>> RequestHeaders(const HttpFields& headers);

}  // namespace llmconform::mockllm
