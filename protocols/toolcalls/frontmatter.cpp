#include "protocols/toolcalls/frontmatter.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "base/format.h"

namespace llmconform::toolcalls {
namespace {

constexpr int kMaxDepth = 64;

// One line of `text` starting at `pos`, without its line end; `next` is
// where the following line starts.
std::string_view LineAt(std::string_view text, std::size_t pos, std::size_t& next) {
  std::size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) {
    next = text.size();
    end = text.size();
  } else {
    next = end + 1;
  }
  std::string_view line = text.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool IsFence(std::string_view line, bool closing) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == "---" || (closing && line == "...");
}

struct ParseError {
  std::string message;
};

OJson ResolvePlain(const std::string& s) {
  static const RE2 kInt("[-+]?[0-9]+");
  static const RE2 kOct("0o[0-7]+");
  static const RE2 kHex("0x[0-9a-fA-F]+");
  static const RE2 kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  auto as_int = [&](std::string_view digits, int base) -> OJson {
    std::int64_t v = 0;
    bool neg = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
      digits.remove_prefix(1);
    std::uint64_t u = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
    if (ec != std::errc() || p != digits.data() + digits.size() ||
        u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::strtod(s.c_str(), nullptr);  // out of range: keep the magnitude
    }
    v = static_cast<std::int64_t>(u);
    return neg ? -v : v;
  };
  if (RE2::FullMatch(s, kInt)) return as_int(s, 10);
  if (RE2::FullMatch(s, kOct)) return as_int(std::string_view(s).substr(2), 8);
  if (RE2::FullMatch(s, kHex)) return as_int(std::string_view(s).substr(2), 16);
  if (RE2::FullMatch(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    return std::numeric_limits<double>::infinity();
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -std::numeric_limits<double>::infinity();
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  return s;
}

std::string Where(const YAML::Mark& m) {
  if (m.line < 0) return "";
  return Format("line {}, column {}: ", m.line + 1, m.column + 1);
}

OJson ToJson(const YAML::Node& n, int depth) {
  if (depth > kMaxDepth)
    throw ParseError{Format("{}nested deeper than {} levels", Where(n.Mark()), kMaxDepth)};
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar: {
      const std::string& tag = n.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return n.Scalar();
      return ResolvePlain(n.Scalar());
    }
    case YAML::NodeType::Sequence: {
      OJson out = OJson::array();
      for (const auto& item : n) out.push_back(ToJson(item, depth + 1));
      return out;
    }
    case YAML::NodeType::Map: {
      OJson out = OJson::object();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          throw ParseError{Format("{}a key must be a scalar", Where(kv.first.Mark()))};
        const std::string key = kv.first.Scalar();
        if (out.contains(key))
          throw ParseError{Format("{}duplicate key \"{}\"", Where(kv.first.Mark()), key)};
        out[key] = ToJson(kv.second, depth + 1);
      }
      return out;
    }
  }
  return nullptr;
}

std::string Shortest(double d) {
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, ec == std::errc() ? end : buf);
  // Keep it a float when read back: 1 -> 1.0.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void Emit(YAML::Emitter& e, const OJson& v) {
  switch (v.type()) {
    case OJson::value_t::object:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      e << YAML::BeginMap;
      for (auto it = v.begin(); it != v.end(); ++it) {
        e << YAML::Key << it.key() << YAML::Value;
        Emit(e, it.value());
      }
      e << YAML::EndMap;
      return;
    case OJson::value_t::array:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      e << YAML::BeginSeq;
      for (const auto& item : v) Emit(e, item);
      e << YAML::EndSeq;
      return;
    case OJson::value_t::string:
      e << YAML::DoubleQuoted << v.get<std::string>();
      return;
    case OJson::value_t::boolean:
      e << (v.get<bool>() ? "true" : "false");
      return;
    case OJson::value_t::number_integer:
      e << v.get<std::int64_t>();
      return;
    case OJson::value_t::number_unsigned:
      e << v.get<std::uint64_t>();
      return;
    case OJson::value_t::number_float:
      e << Shortest(v.get<double>());
      return;
    default:
      e << YAML::Null;
      return;
  }
}

}  // namespace

FrontmatterSplit SplitFrontmatter(std::string_view text) {
  FrontmatterSplit out;
  std::size_t next = 0;
  if (text.empty() || !IsFence(LineAt(text, 0, next), false) || next == text.size()) return out;
  const std::size_t yaml_start = next;
  std::size_t pos = next;
  while (pos < text.size()) {
    const std::size_t line_start = pos;
    std::string_view line = LineAt(text, pos, next);
    if (IsFence(line, true)) {
      out.present = true;
      out.yaml = std::string(text.substr(yaml_start, line_start - yaml_start));
      out.body = std::string(text.substr(next));
      return out;
    }
    pos = next;
  }
  return out;
}

std::expected<OJson, Error> ParseYamlMapping(std::string_view yaml) {
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsDefined() || root.IsNull()) return OJson::object();
    if (!root.IsMap()) {
      const char* got = root.IsSequence() ? "a sequence" : "a scalar";
      return std::unexpected(
          Error{Format("{}front matter must be a mapping, got {}", Where(root.Mark()), got)});
    }
    return ToJson(root, 0);
  } catch (const YAML::Exception& e) {
    return std::unexpected(Error{Format("{}{}", Where(e.mark), e.msg)});
  } catch (const ParseError& e) {
    return std::unexpected(Error{e.message});
  }
}

std::string EmitYaml(const OJson& mapping) {
  YAML::Emitter e;
  e.SetIndent(2);
  Emit(e, mapping);
  std::string out = e.c_str();
  if (!out.empty() && out.back() != '\n') out.push_back('\n');
  return out;
}

std::string ComposeFrontmatter(const OJson& mapping, std::string_view body) {
  std::string out = "---\n";
  out += EmitYaml(mapping);
  out += "---\n";
  out += body;
  return out;
}

}  // namespace llmconform::toolcalls
