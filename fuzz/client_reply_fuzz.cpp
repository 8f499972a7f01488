// The client profile's reference reading of a reply (harness/suites/
// client_reading.h): the first byte picks the status (200, 400, 429, 500),
// whether the body is a stream, whether it was cut and the API surface
// (chat, responses, gemini, messages); the rest is the body.
// The reading must be an object with every output field, whatever the bytes.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "harness/suites/client_reading.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr int kStatus[] = {200, 400, 429, 500};
  using llmconform::wire::Surface;
  constexpr Surface kSurface[] = {Surface::kChat, Surface::kResponses, Surface::kGemini,
                                  Surface::kMessages};
  const std::uint8_t flags = data[0];
  const std::string_view body = llmconform::fuzz::Text(data + 1, size - 1);
  const llmconform::harness::client_suite::Reply reply{.status = kStatus[flags & 3],
                                                       .content_type = "",
                                                       .body = body,
                                                       .stream = (flags & 4) != 0,
                                                       .cut = (flags & 8) != 0,
                                                       .surface = kSurface[(flags >> 4) & 3]};
  const nlohmann::json r = llmconform::harness::client_suite::ReadReply(reply);
  for (const char* key : {"text", "reasoning", "tool_calls", "usage", "finish", "error"})
    if (!r.is_object() || !r.contains(key)) std::abort();
  (void)llmconform::harness::client_suite::CommentLines(body);
  return 0;
}
