#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::thinkingml {

std::string EscapeThinkingFinalLiterals(std::string_view reply) {
  constexpr std::string_view kOpen = "<thinking>";
  constexpr std::string_view kClose = "</thinking>";
  std::string out;
  out.reserve(reply.size() + 16);
  std::size_t pos = 0;
  while (true) {
    const std::size_t open = reply.find(kOpen, pos);
    if (open == std::string_view::npos) break;
    const std::size_t inner = open + kOpen.size();
    const std::size_t close = reply.find(kClose, inner);
    if (close == std::string_view::npos) break;
    out.append(reply.substr(pos, inner - pos));
    std::string_view span = reply.substr(inner, close - inner);
    while (!span.empty()) {
      const std::size_t lt = span.find('<');
      if (lt == std::string_view::npos) {
        out.append(span);
        break;
      }
      out.append(span.substr(0, lt));
      span.remove_prefix(lt);
      if (span.starts_with("<final>")) {
        out.append("&lt;final&gt;");
        span.remove_prefix(7);
      } else if (span.starts_with("</final>")) {
        out.append("&lt;/final&gt;");
        span.remove_prefix(8);
      } else {
        out.push_back('<');
        span.remove_prefix(1);
      }
    }
    out.append(kClose);
    pos = close + kClose.size();
  }
  out.append(reply.substr(pos));
  return out;
}

}  // namespace llmconform::thinkingml
