// The JSON vocabulary every layer shares: the two nlohmann types under one
// name each, the names of JSON types for messages, and the keys a reader did
// not model.
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace llmconform {

using Json = nlohmann::json;
// Members kept in document order: traces, reports and oracle output are
// written in the order they were read.
using OJson = nlohmann::ordered_json;

// "null", "boolean", "string", "number", "array", "object", "binary", and
// "nothing" for a discarded value (a field that was not there), for messages
// that say what was found: "expected string, got number".
template <typename BasicJson>
std::string_view JsonTypeName(const BasicJson& j) {
  return j.is_discarded() ? std::string_view("nothing") : std::string_view(j.type_name());
}

// The same with an article, for messages in prose: "it parses as an array".
template <typename BasicJson>
std::string_view JsonTypeNameWithArticle(const BasicJson& j) {
  switch (j.type()) {
    case BasicJson::value_t::boolean:
      return "a boolean";
    case BasicJson::value_t::string:
      return "a string";
    case BasicJson::value_t::object:
      return "an object";
    case BasicJson::value_t::array:
      return "an array";
    case BasicJson::value_t::number_integer:
    case BasicJson::value_t::number_unsigned:
    case BasicJson::value_t::number_float:
      return "a number";
    default:
      return JsonTypeName(j);
  }
}

// The members of object `j` whose keys are not in `known`, in `j`'s order:
// what a reader keeps as `extra` so that a rewrite loses nothing.
template <typename BasicJson, std::size_t N>
BasicJson JsonExtras(const BasicJson& j, const std::array<std::string_view, N>& known) {
  BasicJson extra = BasicJson::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool modelled = false;
    for (auto k : known) modelled = modelled || it.key() == k;
    if (!modelled) extra[it.key()] = it.value();
  }
  return extra;
}

}  // namespace llmconform
