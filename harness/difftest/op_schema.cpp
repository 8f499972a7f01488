#include "harness/difftest/op_schema.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "harness/scenario.h"

namespace llmconform::harness::difftest {
namespace {

std::vector<std::string> Tokens(std::string_view pointer) {
  std::vector<std::string> out;
  std::size_t at = 1;
  while (at <= pointer.size()) {
    const std::size_t slash = pointer.find('/', at);
    std::string token(
        pointer.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at));
    std::string unescaped;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size()) {
        unescaped += token[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        unescaped += token[i];
      }
    }
    out.push_back(std::move(unescaped));
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  return out;
}

std::optional<Json> SelectFrom(const Json& doc, const std::vector<std::string>& tokens,
                               std::size_t i) {
  if (i == tokens.size()) return doc;
  const std::string& t = tokens[i];
  if (t == "*" && doc.is_array()) {
    Json all = Json::array();
    for (const Json& e : doc) {
      if (auto v = SelectFrom(e, tokens, i + 1)) all.push_back(std::move(*v));
    }
    return all;
  }
  if (doc.is_object()) {
    auto it = doc.find(t);
    if (it == doc.end()) return std::nullopt;
    return SelectFrom(*it, tokens, i + 1);
  }
  if (doc.is_array() && !t.empty() && t.find_first_not_of("0123456789") == std::string::npos &&
      t.size() < 10) {
    const std::size_t k = std::stoul(t);
    if (k >= doc.size()) return std::nullopt;
    return SelectFrom(doc[k], tokens, i + 1);
  }
  return std::nullopt;
}

}  // namespace

std::expected<void, Error> CheckComparePointer(std::string_view pointer) {
  if (!pointer.empty() && pointer.front() != '/')
    return std::unexpected(Error{
        Format("compare pointer \"{}\": a JSON pointer starts with '/' (or is \"\")", pointer)});
  for (std::size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] == '~' &&
        (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')))
      return std::unexpected(
          Error{Format("compare pointer \"{}\": '~' must be followed by 0 or 1", pointer)});
  }
  return {};
}

std::optional<Json> Select(const Json& doc, std::string_view pointer) {
  if (pointer.empty()) return doc;
  return SelectFrom(doc, Tokens(pointer), 0);
}

std::vector<std::string> DifferingPointers(const Json& expected, const Json& actual,
                                           const std::vector<std::string>& compare) {
  std::vector<std::string> out;
  for (const auto& p : compare) {
    if (Select(expected, p) != Select(actual, p)) out.push_back(p);
  }
  return out;
}

std::expected<OpSchema, Error> LoadOpSchema(const std::filesystem::path& specs_dir,
                                            std::string_view op) {
  const std::filesystem::path path = specs_dir / "oracle" / (std::string(op) + ".json");
  auto text = ReadFile(path);
  if (!text)
    return std::unexpected(
        Error{Format("{}; every operation of `llmconform ref --list` has its "
                     "schema there",
                     text.error().message)});
  auto doc = ReadJson(path.string(), *text);
  if (!doc) return std::unexpected(doc.error());
  auto fail = [&](const char* pointer, std::string_view message) {
    return std::unexpected(
        PlacedInText(Error::AtPointer(pointer, std::string(message)), path.string(), *text));
  };
  if (!doc->is_object())
    return fail("", "expected an object {\"op\", \"input\", \"output\", \"compare\"}");
  for (const char* key : {"input", "output"}) {
    if (!doc->contains(key) || !(*doc)[key].is_object())
      return fail(key == std::string_view("input") ? "/input" : "/output",
                  "expected a JSON Schema object");
  }
  OpSchema schema{.op = std::string(op), .compare = {}, .doc = *doc};
  const auto compare = doc->find("compare");
  if (compare == doc->end() || !compare->is_array() || compare->empty())
    return fail("/compare", "expected a non-empty array of JSON pointers");
  for (std::size_t i = 0; i < compare->size(); ++i) {
    const Json& p = (*compare)[i];
    const std::string at = Format("/compare/{}", i);
    if (!p.is_string()) return fail(at.c_str(), "expected a JSON pointer string");
    if (auto ok = CheckComparePointer(p.get<std::string>()); !ok)
      return fail(at.c_str(), ok.error().message);
    schema.compare.push_back(p.get<std::string>());
  }
  return schema;
}

}  // namespace llmconform::harness::difftest
