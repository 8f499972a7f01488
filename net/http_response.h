// HttpResponse: what an HTTP exchange answered. The one type of the HTTP
// client (net/http_client.h) and of the reference clients' transport
// (protocols/wire/transport.h, where it is wire::HttpResponse).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llmconform::net {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased, the last of repeats wins
  std::string body;                            // the whole body, also when streamed
  // Every header line in the order received, names as sent, repeats kept
  // (what a recording must keep). Empty where a fake or transport has no
  // wire order to tell.
  std::vector<std::pair<std::string, std::string>> fields;
};

}  // namespace llmconform::net
