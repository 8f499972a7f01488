// The real ChatTransport: HTTP/1.1 over cpp-httplib (plain HTTP and HTTPS).
#pragma once

#include <memory>
#include <string>

#include "base/url.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

// `base_url` is "http(s)://host:port[/prefix]", e.g. an OpenAI-compatible
// base such as "http://127.0.0.1:41234/t/skill%2Fgit/v1". Each call opens its
// own connection, so one transport may be used from several threads.
// An unparsable base URL is reported by the first call.
std::unique_ptr<wire::ChatTransport> MakeHttpTransport(std::string base_url);

}  // namespace llmconform::harness
