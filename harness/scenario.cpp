#include "harness/scenario.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/format.h"
#include "base/json_locate.h"
#include "base/json_read.h"
#include "harness/suites/registry.h"
#include "mockllm/trace.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness {
namespace {

using Pointer = Json::json_pointer;

// Collects located errors for one file.
class Problems {
 public:
  Problems(std::string_view name, std::string_view text) : name_(name), text_(text) {}
  // WHAT about the value at `where`, placed at it (at its nearest ancestor
  // when it is missing).
  void Add(const Pointer& where, std::string_view what) {
    Add(Error::AtPointer(where.to_string(), std::string(what)));
  }
  // An error that names a value by its pointer (or none: the root).
  void Add(const Error& e) { lines_.push_back(PlacedInText(e, name_, text_).message); }
  void ExpectType(const Pointer& where, const Json& v, bool ok, std::string_view expected) {
    if (!ok) Add(where, Format("expected {}, got {}", expected, JsonTypeName(v)));
  }
  bool empty() const { return lines_.empty(); }
  Error ToError() const {
    std::string all;
    for (const auto& l : lines_) all += (all.empty() ? "" : "\n") + l;
    return Error{all};
  }

 private:
  std::string name_;
  std::string_view text_;
  std::vector<std::string> lines_;
};

// A scenario's trace, by its text alone: a relative path under fixtures/
// with no "." or ".." segment; nullopt when fine (or absent).
std::optional<std::string> TracePathProblem(const std::string& trace) {
  if (trace.empty()) return std::nullopt;
  const std::filesystem::path p(trace);
  bool dots = false;
  for (const auto& part : p) dots = dots || part == ".." || part == ".";
  if (p.is_absolute() || dots || !trace.starts_with("fixtures/") ||
      trace.find('\0') != std::string::npos) {
    return Format(
        "expected a path under fixtures/ (relative, no \".\" or \"..\"), "
        "got \"{}\"",
        trace);
  }
  return std::nullopt;
}

}  // namespace

std::expected<RuleCatalog, Error> ParseRuleCatalog(std::string_view name, std::string_view text,
                                                   std::string_view protocol) {
  auto doc = ReadJson(name, text);
  if (!doc) return std::unexpected(doc.error());
  Problems problems(name, text);
  RuleCatalog out;
  if (!doc->is_array()) {
    problems.Add(Pointer(), Format("expected an array of rules, got {}", JsonTypeName(*doc)));
    return std::unexpected(problems.ToError());
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < doc->size(); ++i) {
    const Json& r = (*doc)[i];
    const Pointer at = Pointer() / i;
    if (!r.is_object()) {
      problems.Add(at, Format("expected a rule object, got {}", JsonTypeName(r)));
      continue;
    }
    reports::RuleInfo info;
    info.protocol = std::string(protocol);
    bool ok = true;
    for (auto [key, field] :
         {std::pair{"id", &info.id}, std::pair{"source", &info.source},
          std::pair{"text", &info.text}, std::pair{"severity", &info.severity}}) {
      auto it = r.find(key);
      if (it == r.end()) {
        problems.Add(at / key, "expected a non-empty string, got nothing (the field is required)");
        ok = false;
      } else if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
        problems.Add(at / key, Format("expected a non-empty string, got {}",
                                      it->is_string() ? std::string("\"\"")
                                                      : std::string(JsonTypeName(*it))));
        ok = false;
      } else {
        *field = it->get<std::string>();
      }
    }
    if (!ok) continue;
    if (info.severity != "must" && info.severity != "should") {
      problems.Add(at / "severity",
                   Format("expected \"must\" or \"should\", got \"{}\"", info.severity));
    }
    if (!seen.insert(info.id).second)
      problems.Add(at / "id", Format("rule \"{}\" is defined twice", info.id));
    out.push_back(std::move(info));
  }
  if (!problems.empty()) return std::unexpected(problems.ToError());
  return out;
}

std::expected<Scenario, Error> ParseScenario(std::string_view name, std::string_view text,
                                             std::string_view expected_protocol,
                                             const RuleCatalog& rules) {
  auto doc = ReadJson(name, text);
  if (!doc) return std::unexpected(doc.error());
  Problems problems(name, text);
  if (!doc->is_object()) {
    problems.Add(Pointer(), Format("expected a scenario object, got {}", JsonTypeName(*doc)));
    return std::unexpected(problems.ToError());
  }
  static const std::set<std::string> kKnown = {"protocol", "name",  "description", "trace",
                                               "provider", "tags",  "input",       "expect",
                                               "rules",    "notes", "features"};
  for (auto it = doc->begin(); it != doc->end(); ++it) {
    if (!kKnown.contains(it.key())) {
      problems.Add(Pointer() / it.key(), Format("unknown field \"{}\"; expected one of protocol, "
                                                "name, description, trace, provider, tags, "
                                                "input, expect, rules, notes, features",
                                                it.key()));
    }
  }
  Scenario s;
  s.raw = *doc;
  auto string_field = [&](const char* key, std::string& into, bool required) {
    auto it = doc->find(key);
    if (it == doc->end()) {
      if (required)
        problems.Add(Pointer() / key, "expected string, got nothing (the field is required)");
      return;
    }
    if (!it->is_string()) {
      problems.Add(Pointer() / key, Format("expected string, got {}", JsonTypeName(*it)));
      return;
    }
    into = it->get<std::string>();
  };
  string_field("protocol", s.protocol, true);
  string_field("name", s.name, true);
  string_field("description", s.description, false);
  string_field("trace", s.trace, false);
  if (auto bad = TracePathProblem(s.trace)) problems.Add(Pointer() / "trace", *bad);
  if (!s.protocol.empty() && s.protocol != expected_protocol) {
    problems.Add(Pointer() / "protocol", Format("expected \"{}\" (the folder it is in), got \"{}\"",
                                                expected_protocol, s.protocol));
  }
  if (doc->contains("name") && s.name.empty() && (*doc)["name"].is_string()) {
    problems.Add(Pointer() / "name", "expected a non-empty string, got \"\"");
  }
  for (const char* key : {"input", "expect"}) {
    if (auto it = doc->find(key); it != doc->end()) {
      if (!it->is_object()) {
        problems.Add(Pointer() / key, Format("expected object, got {}", JsonTypeName(*it)));
      } else {
        (std::string_view(key) == "input" ? s.input : s.expect) = *it;
      }
    }
  }
  if (auto it = doc->find("features"); it != doc->end()) {
    // The client features the scenario exercises: the matrix's columns.
    bool strings = it->is_array();
    for (std::size_t i = 0; strings && i < it->size(); ++i)
      strings = (*it)[i].is_string() && !(*it)[i].get_ref<const std::string&>().empty();
    if (!strings) {
      problems.Add(Pointer() / "features",
                   "expected an array of non-empty strings "
                   "(client features, e.g. \"streamed-tool-calls\")");
    }
  }
  if (auto it = doc->find("provider"); it != doc->end() && !it->is_string()) {
    problems.Add(Pointer() / "provider", Format("expected string, got {}", JsonTypeName(*it)));
  }
  auto rules_it = doc->find("rules");
  if (rules_it == doc->end()) {
    problems.Add(Pointer() / "rules",
                 "expected the rule ids this scenario exercises, got nothing (the field is "
                 "required)");
  } else if (!rules_it->is_array() || rules_it->empty()) {
    problems.Add(
        Pointer() / "rules",
        Format("expected a non-empty array of rule ids, got {}",
               rules_it->is_array() ? std::string("[]") : std::string(JsonTypeName(*rules_it))));
  } else {
    for (std::size_t i = 0; i < rules_it->size(); ++i) {
      const Json& r = (*rules_it)[i];
      const Pointer at = Pointer() / "rules" / i;
      if (!r.is_string()) {
        problems.Add(at, Format("expected a rule id string, got {}", JsonTypeName(r)));
        continue;
      }
      const std::string id = r.get<std::string>();
      const bool known =
          std::any_of(rules.begin(), rules.end(), [&](const auto& info) { return info.id == id; });
      if (!known) {
        problems.Add(at, Format("unknown rule id \"{}\" (not in specs/{}/rules.json)", id,
                                expected_protocol));
        continue;
      }
      s.rules.push_back(id);
    }
  }
  if (!problems.empty()) return std::unexpected(problems.ToError());
  return s;
}

std::expected<SpecSet, Error> LoadSpecs(const std::filesystem::path& specs_dir,
                                        const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(specs_dir, ec)) {
    return std::unexpected(Error{Format(
        "{}: not a folder of specs (expected specs/<protocol>/rules.json; name the folder with "
        "--specs DIR)",
        specs_dir.string())});
  }
  const fs::path base = specs_dir.has_parent_path() ? specs_dir.parent_path() : fs::path(".");
  auto display = [&](const fs::path& p) { return p.lexically_relative(base).generic_string(); };
  SpecSet set;
  std::vector<std::string> errors;
  std::map<std::string, std::string> names;  // protocol/name → the file defining it
  std::vector<fs::path> protocol_dirs;
  for (const auto& entry : fs::directory_iterator(specs_dir, ec)) {
    // specs/oracle/ holds the oracle ops' JSON Schemas (harness/difftest/op_schema.h), no protocol.
    if (entry.is_directory() && entry.path().filename() != "oracle")
      protocol_dirs.push_back(entry.path());
  }
  std::sort(protocol_dirs.begin(), protocol_dirs.end());
  for (const auto& dir : protocol_dirs) {
    const std::string protocol = dir.filename().string();
    const fs::path rules_path = dir / "rules.json";
    if (!fs::exists(rules_path)) {
      errors.push_back(
          Format("{}: missing; every protocol folder has a rule catalogue", display(rules_path)));
      continue;
    }
    auto rules_text = ReadFile(rules_path);
    if (!rules_text) {
      errors.push_back(rules_text.error().message);
      continue;
    }
    auto catalog = ParseRuleCatalog(display(rules_path), *rules_text, protocol);
    if (!catalog) {
      errors.push_back(catalog.error().message);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      // Catalogues beside the scenarios: the rules, and wire's provider
      // deviations (specs/wire/dialects.json, read by `llmconform dialect`).
      const fs::path name = entry.path().filename();
      if (entry.is_regular_file() && entry.path().extension() == ".json" && name != "rules.json" &&
          name != "dialects.json") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto text = ReadFile(file);
      if (!text) {
        errors.push_back(text.error().message);
        continue;
      }
      auto scenario = ParseScenario(display(file), *text, protocol, *catalog);
      if (!scenario) {
        errors.push_back(scenario.error().message);
        continue;
      }
      // Checks that need the files around the scenario: its trace exists
      // and stays under fixtures/ once symlinks are resolved, and no other
      // scenario of the protocol has its name.
      Problems around(display(file), *text);
      if (!scenario->trace.empty()) {
        const fs::path& from = root.empty() ? base : root;
        const fs::path fixtures = fs::weakly_canonical(from / "fixtures", ec);
        const fs::path trace = fs::weakly_canonical(from / scenario->trace, ec);
        const auto rel = trace.lexically_relative(fixtures);
        if (!fs::is_regular_file(from / scenario->trace, ec)) {
          around.Add(Pointer() / "trace", Format("no trace file {} (paths are relative to {})",
                                                 scenario->trace, from.generic_string()));
        } else if (rel.empty() || *rel.begin() == "..") {
          around.Add(Pointer() / "trace",
                     Format("{} leads outside fixtures/ (through a symlink)", scenario->trace));
        } else if (auto trace = mockllm::LoadTraceFile(from / scenario->trace); !trace) {
          // Broken, it would fail every run of the scenario (exit 3).
          around.Add(Pointer() / "trace", trace.error().message);
        }
      }
      // The input as the protocol's suite reads it when it runs.
      if (const SuiteKind* kind = FindSuite(protocol)) {
        if (auto read = kind->make()->ReadInput(*scenario); !read) around.Add(read.error());
      }
      const std::string key = protocol + "/" + scenario->name;
      if (auto [it, fresh] = names.emplace(key, display(file)); !fresh) {
        around.Add(Pointer() / "name",
                   Format("the scenario {} is also defined in {}", key, it->second));
      }
      if (!around.empty()) {
        errors.push_back(around.ToError().message);
        continue;
      }
      scenario->file = file;
      set.scenarios.push_back(std::move(*scenario));
    }
    set.rules[protocol] = std::move(*catalog);
  }
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    return std::unexpected(Error{all});
  }
  return set;
}

}  // namespace llmconform::harness
