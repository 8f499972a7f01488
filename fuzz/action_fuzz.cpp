// The action protocol: an assistant reply (text or JSON with an open_app
// action), with the request session id after the first NUL when there is
// one, and the __MCP__ command payload.
#include "fuzz/fuzz_input.h"
#include "protocols/action/assistant_response.h"
#include "protocols/action/mcp_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const std::string_view text = fuzz::Text(data, size);
  const auto [reply, session] = fuzz::SplitAtNul(text);
  const bool has_session = reply.size() < text.size();
  (void)action::ParseAssistantResponse(
      reply, has_session ? std::optional<std::string_view>(session) : std::nullopt);
  (void)action::ParseMcpPayload(text);
  return 0;
}
