// The HTTP transport a reference client uses to reach an OpenAI-compatible
// endpoint. Protocol code talks only to this interface; the harness supplies
// the real one (harness/http_transport.h, over net/http_client.h) and tests supply fakes.
#pragma once

#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "base/error.h"
#include "net/http_response.h"

namespace llmconform::wire {

// The response type of net/http_response.h: status, lower-cased headers, body.
using HttpResponse = net::HttpResponse;

class ChatTransport {
 public:
  virtual ~ChatTransport() = default;
  // POSTs `json_body` with content type application/json to `path` under the
  // base URL the transport was made for ("/chat/completions" → "{base}/chat/completions").
  // `on_bytes`, when set, receives the body as it arrives (for streams);
  // returning false from it cancels the request. `timeout` bounds the whole
  // exchange. Errors: the endpoint cannot be reached, or the timeout passed
  // ("POST http://…/chat/completions: timed out after 30000 ms"). An HTTP
  // error status is not an Error: it is returned with its body.
  virtual std::expected<HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds timeout,
      const std::function<bool(std::string_view)>& on_bytes = {}) = 0;
};

}  // namespace llmconform::wire
