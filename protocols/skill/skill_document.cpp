#include "protocols/skill/skill_document.h"

#include <yaml-cpp/yaml.h>

#include <optional>

#include "base/format.h"
#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

struct Split {
  std::string_view front_matter;  // between the fences, without the line ends
  std::string_view rest;          // after the closing fence line
};

// The line starting at `pos`: its text without the line end, and where the
// next line starts (npos at the end of the text).
std::pair<std::string_view, std::size_t> LineAt(std::string_view text, std::size_t pos) {
  const std::size_t nl = text.find('\n', pos);
  std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return {line, nl == std::string_view::npos ? nl : nl + 1};
}

std::optional<Split> SplitFrontMatter(std::string_view text) {
  auto [first, next] = LineAt(text, 0);
  if (first != "---" || next == std::string_view::npos) return std::nullopt;
  const std::size_t start = next;
  std::size_t pos = next;
  while (pos != std::string_view::npos && pos <= text.size()) {
    auto [line, after] = LineAt(text, pos);
    if (line == "---") {
      std::string_view front = text.substr(start, pos - start);
      if (!front.empty() && front.back() == '\n') front.remove_suffix(1);
      if (!front.empty() && front.back() == '\r') front.remove_suffix(1);
      return Split{front,
                   after == std::string_view::npos ? std::string_view{} : text.substr(after)};
    }
    if (after == std::string_view::npos) break;
    pos = after;
  }
  return std::nullopt;
}

}  // namespace

std::string_view SkillBody(std::string_view skill_markdown) {
  auto split = SplitFrontMatter(skill_markdown);
  return Trim(split ? split->rest : skill_markdown);
}

SkillDocument ParseSkillDocument(std::string_view skill_markdown, std::string_view fallback_name) {
  SkillDocument doc{std::string(fallback_name), "", std::string(SkillBody(skill_markdown)), ""};
  auto split = SplitFrontMatter(skill_markdown);
  if (!split) return doc;
  try {
    const YAML::Node root = YAML::Load(std::string(split->front_matter));
    if (root.IsNull()) return doc;
    if (!root.IsMap()) {
      doc.front_matter_problem = "front matter: expected a YAML mapping";
      return doc;
    }
    auto scalar = [&](const char* key, std::string& into) {
      const YAML::Node v = root[key];
      if (v && v.IsScalar()) into = v.as<std::string>();
    };
    scalar("name", doc.name);
    scalar("description", doc.description);
  } catch (const YAML::Exception& e) {
    doc.front_matter_problem = Format("front matter: yaml-cpp: {}", e.what());
  }
  return doc;
}

}  // namespace llmconform::skill
