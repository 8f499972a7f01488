#include "mockllm/dialects_cli.h"

#include <iostream>

#include "base/exit_code.h"
#include "mockllm/dialect_rewrite.h"

namespace llmconform::mockllm {

void AddDialects(CLI::App& cmd, DialectsArgs& a) {
  cmd.add_flag("--json", a.json, R"(Print {"NAME": ["DIA-…", …], …})");
  cmd.add_option("--surface", a.surface,
                 "Only the dialects of this API surface (chat, responses, messages, gemini)")
      ->check(CLI::IsMember({"chat", "responses", "messages", "gemini"}));
  std::string footer = R"(
A dialect rewrites a canonical reply of its API surface (JSON or stream) into a
provider's wire shape: an ordered list of deviations of specs/wire/dialects.json,
each with parameters. Each dialect is of one surface and rewrites only replies of
that surface (another surface's are sent as recorded); each surface's canonical
dialect has no deviation: openai (chat), openai-responses, anthropic (messages),
gemini-api (gemini). Use one with `mockllm serve --dialect NAME`, or per request with the
header X-Mockllm-Dialect: NAME (one server serves every dialect). The list is
built into mockllm from specs/wire/dialects.json ("providers"); see
docs/dialects.md.

Deviations replay can produce (parameters, defaults in parentheses):
)";
  for (const RewritableDeviation& r : RewritableDeviations()) {
    footer += "  " + std::string(r.id) + "\n      " + std::string(r.what) + "\n";
    if (!r.params_doc.empty()) footer += "      params: " + std::string(r.params_doc) + "\n";
  }
  cmd.footer(footer);
}

int RunDialects(const DialectsArgs& a) {
  std::vector<const Dialect*> shown;
  for (const Dialect& d : BuiltinDialects())
    if (a.surface.empty() || wire::SurfaceName(d.surface) == a.surface) shown.push_back(&d);
  if (a.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const Dialect* d : shown) out[d->name] = d->Ids();
    std::cout << out.dump(1) << '\n';
    return kExitOk;
  }
  for (const Dialect* dp : shown) {
    const Dialect& d = *dp;
    std::cout << d.name << " [" << wire::SurfaceName(d.surface) << "]: ";
    const auto ids = d.Ids();
    if (ids.empty()) std::cout << "(canonical: replies as recorded)";
    for (std::size_t i = 0; i < ids.size(); ++i) {
      std::cout << (i ? ", " : "") << ids[i];
      if (!d.steps[i].params.empty()) std::cout << ' ' << d.steps[i].params.dump();
    }
    std::cout << "\n    " << d.about << '\n';
  }
  return kExitOk;
}

}  // namespace llmconform::mockllm
