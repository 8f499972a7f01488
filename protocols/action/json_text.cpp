#include "protocols/action/json_text.h"

#include "base/json_read.h"

namespace llmconform::action {

std::string QuoteJson(std::string_view s) {
  return DumpJson(nlohmann::ordered_json(std::string(s)));
}

}  // namespace llmconform::action
