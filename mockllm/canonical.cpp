#include "mockllm/canonical.h"

#include <algorithm>
#include <charconv>
#include <limits>

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
  std::string s = DumpJson(j);
  constexpr std::size_t kMax = 200;
  if (s.size() > kMax) s = s.substr(0, Utf8Prefix(s, kMax)) + "…";
  return s;
}

// Appends a JSON pointer token to `pointer`, escaping '~' and '/'.
void AppendToken(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  for (char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer.push_back(c);
    }
  }
}

void AppendIndex(std::string& pointer, std::size_t i) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, i).ptr;
  pointer.push_back('/');
  pointer.append(digits, end);
}

// Walks two values together in document order (keys sorted), each value at
// most once: the work is linear in the smaller of them (a subtree present on
// one side only is one difference, not walked), however deep they nest. The
// pointer is built in one buffer, token by token, and copied only into a
// difference.
class DiffWalk {
 public:
  // `out`: where differences go (null: only counted); at most `limit` of
  // them; at most `budget` values visited.
  DiffWalk(std::vector<Difference>* out, std::size_t limit, std::size_t budget)
      : out_(out), limit_(limit), budget_(budget) {}

  // False once `limit` differences are found or the budget is spent.
  bool Walk(const Json& e, const Json& a) {
    if (found_ >= limit_) return false;
    if (visited_ >= budget_) {
      spent_ = true;
      return false;
    }
    ++visited_;
    if (e.is_object() && a.is_object()) {
      // Keys in sorted order (nlohmann::json keeps objects sorted).
      auto ei = e.begin();
      auto ai = a.begin();
      while (ei != e.end() || ai != a.end()) {
        const bool only_e = ai == a.end() || (ei != e.end() && ei.key() < ai.key());
        const bool only_a = !only_e && (ei == e.end() || ai.key() < ei.key());
        const std::size_t mark = pointer_.size();
        AppendToken(pointer_, only_a ? ai.key() : ei.key());
        const bool more = only_e   ? Add(&*ei, nullptr)
                          : only_a ? Add(nullptr, &*ai)
                                   : Walk(*ei, *ai);
        pointer_.resize(mark);
        if (!more) return false;
        if (!only_a) ++ei;
        if (!only_e) ++ai;
      }
      return true;
    }
    if (e.is_array() && a.is_array()) {
      for (std::size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
        const std::size_t mark = pointer_.size();
        AppendIndex(pointer_, i);
        const bool more = i >= a.size()   ? Add(&e[i], nullptr)
                          : i >= e.size() ? Add(nullptr, &a[i])
                                          : Walk(e[i], a[i]);
        pointer_.resize(mark);
        if (!more) return false;
      }
      return true;
    }
    if (e == a) return true;
    return Add(&e, &a);
  }

  std::size_t found() const { return found_; }
  std::size_t visited() const { return visited_; }
  bool spent() const { return spent_; }

 private:
  bool Add(const Json* e, const Json* a) {
    ++found_;
    if (out_) {
      out_->push_back(Difference{pointer_, e ? std::optional<Json>(*e) : std::nullopt,
                                 a ? std::optional<Json>(*a) : std::nullopt});
    }
    return found_ < limit_;
  }

  std::vector<Difference>* out_;
  std::size_t limit_, budget_;
  std::size_t found_ = 0, visited_ = 0;
  bool spent_ = false;
  std::string pointer_;
};

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
  if (limit > 0)
    DiffWalk(&out, limit, std::numeric_limits<std::size_t>::max()).Walk(expected, actual);
  return out;
}

std::optional<std::size_t> CountDifferences(const Json& expected, const Json& actual,
                                            std::size_t limit, std::size_t& budget) {
  if (limit == 0) return 0;
  DiffWalk walk(nullptr, limit, budget);
  walk.Walk(expected, actual);
  budget -= walk.visited();
  if (walk.spent()) return std::nullopt;
  return walk.found();
}

std::string PointerAppend(std::string_view pointer, std::string_view token) {
  std::string out(pointer);
  AppendToken(out, token);
  return out;
}

}  // namespace llmconform::mockllm
