#include "mockllm/canonical.h"

#include <algorithm>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

void RemovePath(Json& j, const std::vector<std::string>& tokens, std::size_t depth) {
  const std::string& token = tokens[depth];
  const bool last = depth + 1 == tokens.size();
  if (j.is_object()) {
    if (token == "*") {
      if (last) {
        j = Json::object();
        return;
      }
      for (auto& [key, value] : j.items()) RemovePath(value, tokens, depth + 1);
      return;
    }
    auto it = j.find(token);
    if (it == j.end()) return;
    if (last) {
      j.erase(it);
    } else {
      RemovePath(*it, tokens, depth + 1);
    }
  } else if (j.is_array()) {
    if (token == "*") {
      if (last) {
        j = Json::array();
        return;
      }
      for (Json& e : j) RemovePath(e, tokens, depth + 1);
      return;
    }
    if (token.empty() ||
        !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return;
    }
    const std::size_t index = std::stoul(token);
    if (index >= j.size()) return;
    if (last) {
      j.erase(index);
    } else {
      RemovePath(j[index], tokens, depth + 1);
    }
  }
}

std::string Short(const Json& j) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  constexpr std::size_t kMax = 200;
  if (s.size() > kMax) s = s.substr(0, Utf8Prefix(s, kMax)) + "…";
  return s;
}

// Appends the differences between `e` and `a` below `pointer` to `out`, in
// document order, until it holds `limit`; false once it is full.
bool Diff(const Json& e, const Json& a, const std::string& pointer, std::vector<Difference>& out,
          std::size_t limit) {
  if (out.size() >= limit) return false;
  if (e == a) return true;
  auto add = [&](Difference d) {
    out.push_back(std::move(d));
    return out.size() < limit;
  };
  if (e.is_object() && a.is_object()) {
    // Keys in sorted order (nlohmann::json keeps objects sorted).
    auto ei = e.begin();
    auto ai = a.begin();
    while (ei != e.end() || ai != a.end()) {
      if (ai == a.end() || (ei != e.end() && ei.key() < ai.key())) {
        if (!add(Difference{PointerAppend(pointer, ei.key()), *ei, std::nullopt})) return false;
        ++ei;
      } else if (ei == e.end() || ai.key() < ei.key()) {
        if (!add(Difference{PointerAppend(pointer, ai.key()), std::nullopt, *ai})) return false;
        ++ai;
      } else {
        if (!Diff(*ei, *ai, PointerAppend(pointer, ei.key()), out, limit)) return false;
        ++ei;
        ++ai;
      }
    }
    return true;
  }
  if (e.is_array() && a.is_array()) {
    const std::size_t n = std::min(e.size(), a.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!Diff(e[i], a[i], Format("{}/{}", pointer, i), out, limit)) return false;
    }
    for (std::size_t i = n; i < e.size(); ++i) {
      if (!add(Difference{Format("{}/{}", pointer, i), e[i], std::nullopt})) return false;
    }
    for (std::size_t i = n; i < a.size(); ++i) {
      if (!add(Difference{Format("{}/{}", pointer, i), std::nullopt, a[i]})) return false;
    }
    return true;
  }
  return add(Difference{pointer, e, a});
}

}  // namespace

std::expected<std::vector<std::string>, Error> PointerPatternTokens(std::string_view p,
                                                                    std::string_view what) {
  if (p.empty() || p.front() != '/') {
    return std::unexpected(
        Error{Format("{} \"{}\": expected a JSON pointer starting with '/'", what, p)});
  }
  std::vector<std::string> tokens;
  std::string token;
  for (std::size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      tokens.push_back(token);
      token.clear();
    } else if (p[i] == '~' && i + 1 < p.size() && (p[i + 1] == '0' || p[i + 1] == '1')) {
      token.push_back(p[i + 1] == '0' ? '~' : '/');
      ++i;
    } else {
      token.push_back(p[i]);
    }
  }
  return tokens;
}

std::expected<IgnorePaths, Error> IgnorePaths::Parse(const std::vector<std::string>& pointers) {
  IgnorePaths out;
  for (const std::string& p : pointers) {
    auto tokens = PointerPatternTokens(p, "ignore path");
    if (!tokens) return std::unexpected(tokens.error());
    out.patterns_.push_back(std::move(*tokens));
  }
  return out;
}

Json IgnorePaths::Apply(Json j) const {
  for (const auto& tokens : patterns_) RemovePath(j, tokens, 0);
  return j;
}

Json BodyValue(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return nullptr;
  Json j = llmconform::ReadJsonOrDiscarded(body);
  if (j.is_discarded()) return Json(std::string(body));
  return j;
}

std::string Difference::Describe() const {
  const std::string where = pointer.empty() ? "/" : CapText(pointer, 200);
  if (!expected)
    return Format("{}: unexpected value {} (not in the recording)", where, Short(*actual));
  if (!actual) return Format("{}: missing, expected {}", where, Short(*expected));
  return Format("{}: expected {}, got {}", where, Short(*expected), Short(*actual));
}

std::optional<Difference> FirstDifference(const Json& expected, const Json& actual) {
  auto all = Differences(expected, actual, 1);
  if (all.empty()) return std::nullopt;
  return std::move(all.front());
}

namespace {

std::size_t Mix(std::size_t seed, std::size_t h) {
  return seed ^ (h + 0x9E3779B97F4A7C15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

std::size_t CanonicalHash(const Json& j) {
  // Numbers hash by kind only: nlohmann compares integers, unsigned and
  // floats across kinds (with casts that do not always agree with each other),
  // and a hash by value could part two values == calls equal.
  std::size_t h = static_cast<std::size_t>(j.is_number() ? Json::value_t::number_float : j.type());
  switch (j.type()) {
    case Json::value_t::object:
      for (auto it = j.begin(); it != j.end(); ++it) {
        h = Mix(h, std::hash<std::string_view>{}(it.key()));
        h = Mix(h, CanonicalHash(it.value()));
      }
      return h;
    case Json::value_t::array:
      for (const Json& e : j) h = Mix(h, CanonicalHash(e));
      return Mix(h, j.size());
    case Json::value_t::string:
      return Mix(h, std::hash<std::string_view>{}(j.get_ref<const std::string&>()));
    case Json::value_t::boolean:
      return Mix(h, j.get<bool>() ? 1 : 0);
    default:
      return h;  // null, numbers, binary, discarded
  }
}

std::vector<Difference> Differences(const Json& expected, const Json& actual, std::size_t limit) {
  std::vector<Difference> out;
  if (limit > 0) Diff(expected, actual, "", out, limit);
  return out;
}

std::string PointerAppend(std::string_view pointer, std::string_view token) {
  std::string out(pointer);
  out.push_back('/');
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace llmconform::mockllm
