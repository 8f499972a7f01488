#include "base/json_locate.h"

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

namespace {

struct Walk {
  bool complete = false;   // the whole pointer was found
  std::size_t offset = 0;  // of the deepest value found on the way
};

// Parses `text` once and follows `pointer` as far as it leads. nullopt when
// the text is blank or not JSON, or the pointer is malformed.
std::optional<Walk> WalkPointer(std::string_view text, std::string_view pointer) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  try {
    // nlohmann reads the pointer (and its ~0 ~1 escapes) and throws on a
    // malformed one; yaml-cpp reads the text and throws on a broken one.
    const nlohmann::json::json_pointer parsed{std::string(pointer)};
    std::vector<std::string> tokens;
    for (auto p = parsed; !p.empty(); p = p.parent_pointer()) tokens.push_back(p.back());
    std::reverse(tokens.begin(), tokens.end());
    YAML::Node node = YAML::Load(std::string(text));
    Walk walk;
    const auto at = [](const YAML::Node& n) {
      return static_cast<std::size_t>(std::max(0, n.Mark().pos));
    };
    walk.offset = at(node);
    for (const auto& token : tokens) {
      YAML::Node next;
      if (node.IsSequence()) {
        if (token.empty() ||
            !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return walk;
        const std::size_t index = std::stoul(token);
        if (index >= node.size()) return walk;
        next.reset(node[index]);
      } else if (node.IsMap()) {
        // The last of duplicate keys, as nlohmann keeps it. (A default
        // YAML::Node is a defined null, so "found" is kept apart.)
        bool found = false;
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (it->first.IsScalar() && it->first.Scalar() == token) {
            next.reset(it->second);
            found = true;
          }
        }
        if (!found) return walk;
      } else {
        return walk;
      }
      node.reset(next);  // rebinds; `node = next` would assign into the tree
      walk.offset = at(node);
    }
    walk.complete = true;
    return walk;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::size_t> LocateJsonPointer(std::string_view text, std::string_view pointer) {
  auto walk = WalkPointer(text, pointer);
  if (!walk || !walk->complete) return std::nullopt;
  return walk->offset;
}

std::size_t LocateNearestJsonPointer(std::string_view text, std::string_view pointer) {
  if (auto walk = WalkPointer(text, pointer)) return walk->offset;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? 0 : first;
}

}  // namespace llmconform
