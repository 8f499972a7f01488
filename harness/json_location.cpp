#include "harness/json_location.h"

#include <yaml-cpp/yaml.h>

#include "protocols/wire/format.h"

namespace llmconform::harness {

TextPosition PositionOfOffset(std::string_view text, std::size_t offset) {
  TextPosition pos;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

std::optional<TextPosition> LocatePointer(std::string_view text,
                                          const nlohmann::json::json_pointer& pointer) {
  try {
    YAML::Node node = YAML::Load(std::string(text));
    // Walk reference tokens from the root.
    std::vector<std::string> tokens;
    for (auto p = pointer; !p.empty(); p = p.parent_pointer())
      tokens.insert(tokens.begin(), p.back());
    for (const auto& token : tokens) {
      if (node.IsSequence()) {
        std::size_t idx = std::stoul(token);
        if (idx >= node.size()) return std::nullopt;
        node = node[idx];
      } else if (node.IsMap()) {
        YAML::Node next;
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (it->first.Scalar() == token) next = it->second;
        }
        if (!next) return std::nullopt;
        node = next;
      } else {
        return std::nullopt;
      }
    }
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) return std::nullopt;
    return TextPosition{static_cast<std::size_t>(mark.line) + 1,
                        static_cast<std::size_t>(mark.column) + 1};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::expected<nlohmann::json, Error> ParseJsonText(std::string_view name, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based index of the last byte read; the error is there.
    const TextPosition pos = PositionOfOffset(text, e.byte == 0 ? 0 : e.byte - 1);
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 3: syntax error
    // while parsing value - invalid literal; last read: 'tr'": keep what follows the location.
    std::string what = e.what();
    if (auto at = what.find("syntax error while "); at != std::string::npos) {
      what = what.substr(at);
    } else if (auto colon = what.find(": "); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
    return std::unexpected(Error{Format("{}:{}:{}: {}", name, pos.line, pos.column, what)});
  }
}

std::string LocatedMessage(std::string_view name, std::string_view text,
                           const nlohmann::json::json_pointer& pointer, std::string_view message) {
  if (auto pos = LocatePointer(text, pointer))
    return Format("{}:{}:{}: {}", name, pos->line, pos->column, message);
  return Format("{}: {}: {}", name, pointer.to_string(), message);
}

}  // namespace llmconform::harness
