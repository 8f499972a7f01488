// The real ChatTransport: the reference clients' POSTs, sent through an
// net::HttpClient (net/http_client.h; Boost.Beast unless a test gives a fake).
#pragma once

#include <memory>
#include <string>

#include "net/http_client.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

// `base_url` is "http(s)://host:port[/prefix]", e.g. an OpenAI-compatible
// base such as "http://127.0.0.1:41234/t/skill%2Fgit/v1". A call's timeout
// is its connect, read and total timeout at once (net::HttpTimeouts::All); the
// error for it is "POST <url>: timed out after N ms". One transport may be
// used from several threads. An unparsable base URL is reported by the first
// call. `client` null: the real one (net::RealHttpClient()).
//
// A 429 answer that says when to come back (`retry-after-ms`, or
// `retry-after` in seconds) within 2 s is retried after that wait, at most
// twice, while the call's timeout allows (docs/protocols.md, wire); its body
// is not passed to `on_bytes`. Any other 429, and the last one, is returned
// like every HTTP error status.
std::unique_ptr<wire::ChatTransport> MakeHttpTransport(
    std::string base_url, std::shared_ptr<net::HttpClient> client = {});

}  // namespace llmconform::harness
