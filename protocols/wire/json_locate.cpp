#include "protocols/wire/json_locate.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmconform {

LineColumn LineColumnOf(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t lf = before.rfind('\n');
  return {static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1,
          lf == std::string_view::npos ? offset + 1 : offset - lf};
}

std::optional<std::size_t> LocateJsonPointer(std::string_view text, std::string_view pointer) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  try {
    // nlohmann reads the pointer (and its ~0 ~1 escapes) and throws on a
    // malformed one; yaml-cpp reads the text and throws on a broken one.
    const nlohmann::json::json_pointer parsed{std::string(pointer)};
    std::vector<std::string> tokens;
    for (auto p = parsed; !p.empty(); p = p.parent_pointer()) tokens.push_back(p.back());
    std::reverse(tokens.begin(), tokens.end());
    YAML::Node node = YAML::Load(std::string(text));
    for (const auto& token : tokens) {
      if (node.IsSequence()) {
        if (token.empty() ||
            !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return std::nullopt;
        const std::size_t index = std::stoul(token);
        if (index >= node.size()) return std::nullopt;
        node = node[index];
      } else if (node.IsMap()) {
        YAML::Node next;
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (it->first.IsScalar() && it->first.Scalar() == token) next = it->second;
        }
        if (!next) return std::nullopt;
        node = next;
      } else {
        return std::nullopt;
      }
    }
    const YAML::Mark mark = node.Mark();
    if (mark.pos < 0) return std::nullopt;
    return static_cast<std::size_t>(mark.pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::size_t LocateNearestJsonPointer(std::string_view text, std::string_view pointer) {
  std::string p(pointer);
  while (true) {
    if (auto at = LocateJsonPointer(text, p)) return *at;
    const std::size_t slash = p.rfind('/');
    if (slash == std::string::npos) break;
    p.erase(slash);
  }
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? 0 : first;
}

}  // namespace llmconform
