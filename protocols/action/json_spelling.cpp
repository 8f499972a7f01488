#include "protocols/action/json_spelling.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/json.h"
#include "base/json_read.h"

namespace llmconform::action {
namespace {

// Builds a tree in which every number is a binary value holding its
// spelling: operator== then compares numbers by spelling, and the writer
// below puts the spelling back.
template <typename J>
class SpelledTree final : public nlohmann::json_sax<J> {
 public:
  using Base = nlohmann::json_sax<J>;
  J root;

  bool null() override { return Leaf(nullptr); }
  bool boolean(bool v) override { return Leaf(v); }
  bool number_integer(typename Base::number_integer_t v) override {
    // Only a number with a minus sign is read as a signed integer: 0 was "-0".
    return Leaf(Spelled(v == 0 ? std::string("-0") : std::to_string(v)));
  }
  bool number_unsigned(typename Base::number_unsigned_t v) override {
    return Leaf(Spelled(std::to_string(v)));
  }
  bool number_float(typename Base::number_float_t, const typename Base::string_t& s) override {
    return Leaf(Spelled(s));
  }
  bool string(typename Base::string_t& s) override { return Leaf(s); }
  bool binary(typename Base::binary_t&) override { return false; }
  bool start_object(std::size_t) override { return Open(J::object()); }
  bool key(typename Base::string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(J::array()); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  static J Spelled(const std::string& s) {
    return J::binary(std::vector<std::uint8_t>(s.begin(), s.end()));
  }
  bool Leaf(J v) {
    Put(std::move(v));
    return true;
  }
  J* Put(J v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    J& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    J& slot = top[key_];  // a repeated key: the last value, at the first place
    slot = std::move(v);
    return &slot;
  }
  bool Open(J v) {
    stack_.push_back(Put(std::move(v)));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  std::vector<J*> stack_;
  std::string key_;
};

template <typename J>
std::optional<J> ParseSpelled(std::string_view text) {
  SpelledTree<J> tree;
  if (!J::sax_parse(text, &tree, nlohmann::json::input_format_t::json, /*strict=*/true)) {
    return std::nullopt;
  }
  return std::move(tree.root);
}

// Appends the compact text of `j` (numbers as binary spellings); false when
// it nests deeper than `depth_left`.
bool Write(const OJson& j, int depth_left, std::string& out) {
  if (j.is_binary()) {
    out.append(j.get_binary().begin(), j.get_binary().end());
    return true;
  }
  if (!j.is_structured()) {
    out += j.dump();
    return true;
  }
  if (depth_left == 0) return false;
  const bool object = j.is_object();
  out.push_back(object ? '{' : '[');
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out.push_back(',');
    first = false;
    if (object) out += OJson(it.key()).dump() + ":";
    if (!Write(*it, depth_left - 1, out)) return false;
  }
  out.push_back(object ? '}' : ']');
  return true;
}

}  // namespace

std::optional<std::string> SpelledJsonAt(std::string_view json_text,
                                         std::initializer_list<std::string_view> path) {
  auto tree = ParseSpelled<OJson>(json_text);
  if (!tree) return std::nullopt;
  const OJson* at = &*tree;
  for (std::string_view key : path) {
    if (!at->is_object()) return std::nullopt;
    const auto it = at->find(std::string(key));
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  std::string out;
  try {
    if (!Write(*at, kMaxSpelledDepth, out)) return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not reached: the parser accepted only valid UTF-8
  }
  return out;
}

std::string DumpWithTextAt(const nlohmann::json& j, std::span<const std::string_view> path,
                           std::string_view text) {
  if (path.empty()) return std::string(text);
  if (!j.is_object() || !j.contains(path.front())) return DumpJson(j);
  std::string out = "{";
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it != j.begin()) out.push_back(',');
    out += DumpJson(nlohmann::json(it.key())) + ":";
    out += it.key() == path.front() ? DumpWithTextAt(*it, path.subspan(1), text) : DumpJson(*it);
  }
  return out + "}";
}

bool SameJsonSpelling(std::string_view a, std::string_view b) {
  const auto x = ParseSpelled<nlohmann::json>(a);
  const auto y = ParseSpelled<nlohmann::json>(b);
  return x && y && *x == *y;
}

}  // namespace llmconform::action
