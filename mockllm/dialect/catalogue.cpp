// The dialect catalogue: the "providers" of specs/wire/dialects.json read and
// checked against the rewrites replay has (mockllm/dialect/rewrites.h), and the
// built-in copy compiled into mockllm.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "base/format.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "mockllm/dialect/rewrites.h"
#include "mockllm/dialect_rewrite.h"

namespace llmconform::mockllm {
namespace {

std::optional<std::string> CheckParam(std::string_view id, const std::string& key, const OJson& v,
                                      const OJson& def) {
  const bool same = (v.is_number_integer() && def.is_number_integer()) ||
                    (v.is_string() && def.is_string()) || (v.is_array() && def.is_array()) ||
                    (v.is_object() && def.is_object()) || (v.is_boolean() && def.is_boolean());
  if (!same) return Format("expected {}, got {}", def.type_name(), v.type_name());
  if (key == "count" && (v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 100))
    return Format("{} out of range 1..100", v.get<std::int64_t>());
  if (key == "statuses") {
    for (const OJson& s : v)
      if (!s.is_number_integer() || s.get<std::int64_t>() < 400 || s.get<std::int64_t>() > 599)
        return std::string("expected HTTP error statuses 400..599");
  }
  if (key == "style" && v != "object" && v != "detail")
    return std::string("expected \"object\" or \"detail\"");
  if (key == "comment" && v.get<std::string>().find_first_of("\r\n") != std::string::npos)
    return std::string("a comment is one line");
  if (key == "field" && v.get<std::string>().empty()) return std::string("expected a field name");
  (void)id;
  return std::nullopt;
}

// "NAME:LINE:COL: POINTER: MESSAGE" for a value of the catalogue text.
std::string Located(std::string_view name, std::string_view text, const std::string& pointer,
                    const std::string& message) {
  const auto lc =
      llmconform::LineColumnOf(text, llmconform::LocateNearestJsonPointer(text, pointer));
  return Format("{}:{}:{}: {}: {}", name, lc.line, lc.column, pointer, message);
}

// The surface named by `v`, or the message of why it names none.
std::expected<wire::Surface, std::string> SurfaceOf(const OJson& v) {
  std::string known;
  for (wire::Surface s : wire::AllSurfaces())
    known += (known.empty() ? "" : ", ") + std::string(wire::SurfaceName(s));
  if (!v.is_string()) return std::unexpected(Format("expected a surface name ({})", known));
  if (auto s = wire::SurfaceFromName(v.get<std::string>())) return *s;
  return std::unexpected(Format("unknown surface \"{}\" (known: {})", v.get<std::string>(), known));
}

constexpr std::pair<wire::Surface, std::string_view> kCanonicalNames[] = {
    {wire::Surface::kChat, "openai"},
    {wire::Surface::kResponses, "openai-responses"},
    {wire::Surface::kMessages, "anthropic"},
    {wire::Surface::kGemini, "gemini-api"},
};

}  // namespace

std::vector<std::string> Dialect::Ids() const {
  std::vector<std::string> ids;
  for (const auto& s : steps) ids.push_back(s.id);
  return ids;
}

const std::vector<RewritableDeviation>& RewritableDeviations() {
  static const std::vector<RewritableDeviation> docs = [] {
    std::vector<RewritableDeviation> d;
    for (const dialect::Rewrite& r : dialect::Rewrites()) d.push_back(r.doc);
    return d;
  }();
  return docs;
}

std::expected<std::vector<Dialect>, Error> ParseDialects(std::string_view text,
                                                         std::string_view name) {
  auto doc = llmconform::ReadOrderedJson(name, text);
  if (!doc) return std::unexpected(Error{doc.error().message});
  auto fail = [&](const std::string& pointer, const std::string& message) {
    return std::unexpected(Error{Located(name, text, pointer, message)});
  };
  if (!doc->is_object() || !doc->contains("providers") || !(*doc)["providers"].is_array())
    return fail("/providers", "expected an array of dialects under \"providers\"");
  std::map<std::string, wire::Surface> known;  // deviation id -> its surface
  if (doc->contains("dialects") && (*doc)["dialects"].is_array()) {
    const auto& devs = (*doc)["dialects"];
    for (std::size_t i = 0; i < devs.size(); ++i) {
      const auto& d = devs[i];
      if (!d.is_object() || !d.contains("id") || !d["id"].is_string()) continue;
      const std::string at = Format("/dialects/{}/surface", i);
      if (!d.contains("surface")) return fail(at, "missing (chat, responses, messages, gemini)");
      auto surface = SurfaceOf(d["surface"]);
      if (!surface) return fail(at, surface.error());
      known[d["id"].get<std::string>()] = *surface;
    }
  }
  std::vector<Dialect> out;
  std::set<std::string> names;
  const auto& providers = (*doc)["providers"];
  for (std::size_t i = 0; i < providers.size(); ++i) {
    const auto& p = providers[i];
    const std::string at = Format("/providers/{}", i);
    if (!p.is_object()) return fail(at, "expected an object");
    Dialect d;
    if (!p.contains("name") || !p["name"].is_string() || p["name"].get<std::string>().empty())
      return fail(at + "/name", "expected a non-empty string");
    d.name = p["name"].get<std::string>();
    if (d.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos)
      return fail(at + "/name", "a dialect name is lower-case letters, digits, '-', '_' and '.'");
    if (!names.insert(d.name).second)
      return fail(at + "/name", Format("dialect \"{}\" defined twice", d.name));
    if (!p.contains("surface"))
      return fail(at + "/surface", "missing (chat, responses, messages, gemini)");
    auto surface = SurfaceOf(p["surface"]);
    if (!surface) return fail(at + "/surface", surface.error());
    d.surface = *surface;
    if (p.contains("about")) {
      if (!p["about"].is_string()) return fail(at + "/about", "expected a string");
      d.about = p["about"].get<std::string>();
    }
    if (!p.contains("deviations") || !p["deviations"].is_array())
      return fail(at + "/deviations", "expected an array");
    for (std::size_t k = 0; k < p["deviations"].size(); ++k) {
      const auto& s = p["deviations"][k];
      const std::string sat = Format("{}/deviations/{}", at, k);
      if (!s.is_object() || !s.contains("id") || !s["id"].is_string())
        return fail(sat, "expected {\"id\": \"DIA-…\", \"params\"?: {…}}");
      const std::string id = s["id"].get<std::string>();
      if (!known.empty() && !known.contains(id))
        return fail(sat + "/id", Format("\"{}\" is not in the catalogue (\"dialects\")", id));
      if (!known.empty() && known[id] != d.surface)
        return fail(sat + "/id",
                    Format("{} is a {} deviation; dialect \"{}\" is of surface {}", id,
                           wire::SurfaceName(known[id]), d.name, wire::SurfaceName(d.surface)));
      const dialect::Rewrite* r = dialect::FindRewrite(id);
      if (!r)
        return fail(sat + "/id",
                    Format("no rewrite for {} (mockllm dialects --help lists those with one)", id));
      DialectStep step{id, r->defaults};
      if (s.contains("params")) {
        if (!s["params"].is_object()) return fail(sat + "/params", "expected an object");
        for (const auto& [key, v] : s["params"].items()) {
          if (!r->defaults.contains(key))
            return fail(sat + "/params/" + key, Format("{} takes no parameter \"{}\"", id, key));
          if (auto bad = CheckParam(id, key, OJson(v), r->defaults[key]))
            return fail(sat + "/params/" + key, *bad);
          step.params[key] = v;
        }
      }
      for (const auto& [key, v] : s.items())
        if (key != "id" && key != "params")
          return fail(sat + "/" + key, "unknown member (id, params)");
      d.steps.push_back(std::move(step));
    }
    if (p.contains("not_reproduced")) {
      if (!p["not_reproduced"].is_object())
        return fail(at + "/not_reproduced", "expected an object");
      for (const auto& [id, why] : p["not_reproduced"].items()) {
        if (!why.is_string())
          return fail(at + "/not_reproduced/" + id, "expected a string (the reason)");
        d.not_reproduced[id] = why;
      }
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const Dialect& a, const Dialect& b) { return a.name < b.name; });
  return out;
}

const std::vector<Dialect>& BuiltinDialects() {
  static const std::vector<Dialect> dialects = [] {
    static constexpr std::string_view kText =
#include "mockllm/dialects.inc"
        ;
    auto parsed = ParseDialects(kText, "specs/wire/dialects.json");
    // The build compiles the file in and a test parses it: a broken file
    // fails the test suite, never a user's run.
    return parsed ? std::move(*parsed) : std::vector<Dialect>{};
  }();
  return dialects;
}

const Dialect* FindDialect(std::string_view name) {
  for (const Dialect& d : BuiltinDialects())
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<const Dialect*> DialectsOf(wire::Surface surface) {
  std::vector<const Dialect*> out;
  for (const Dialect& d : BuiltinDialects())
    if (d.surface == surface) out.push_back(&d);
  return out;
}

std::string_view CanonicalDialectName(wire::Surface surface) {
  for (const auto& [s, name] : kCanonicalNames)
    if (s == surface) return name;
  return "openai";
}

const Dialect* CanonicalDialect(wire::Surface surface) {
  return FindDialect(CanonicalDialectName(surface));
}

std::string DialectNames() {
  std::string out;
  for (const Dialect& d : BuiltinDialects()) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

}  // namespace llmconform::mockllm
