#include "reports/registry.h"

#include "base/format.h"
#include "reports/html_reporter.h"
#include "reports/json_lines_reporter.h"
#include "reports/json_reporter.h"
#include "reports/junit_reporter.h"
#include "reports/markdown_reporter.h"
#include "reports/matrix_html_reporter.h"
#include "reports/matrix_reporter.h"

namespace llmconform::reports {
namespace {

template <typename R>
std::unique_ptr<Reporter> Make(const ReporterOutputs& o) {
  return std::make_unique<R>(*o.out);
}

const ReporterKind kReporterKinds[] = {
    {"console", "", "progress and failures on the terminal, a summary table at the end",
     [](const ReporterOutputs& o) -> std::unique_ptr<Reporter> {
       return std::make_unique<ConsoleReporter>(*o.out, o.console);
     }},
    {"json", "report.json", "the canonical report (llmconform-report/1), for tools and baselines",
     Make<JsonReporter>},
    {"jsonl", "events.jsonl", "one JSON object per event, written as the run goes",
     Make<JsonLinesReporter>},
    {"junit", "junit.xml", "JUnit XML for CI (Jenkins, GitLab)", Make<JUnitReporter>},
    {"markdown", "report.md", "summary, a table per protocol and every failure with its evidence",
     Make<MarkdownReporter>},
    {"html", "report.html", "one self-contained page with every result and its evidence",
     Make<HtmlReporter>},
    {"matrix", "matrix.md", "provider × feature matrix in Markdown, and in JSON (json=FILE)",
     [](const ReporterOutputs& o) -> std::unique_ptr<Reporter> {
       return std::make_unique<MatrixReporter>(o.out, o.companion);
     },
     "matrix.json"},
    {"matrix-html", "matrix.html", "provider × feature matrix as one self-contained HTML page",
     Make<MatrixHtmlReporter>},
};

std::string KindNames() {
  std::string names;
  for (const ReporterKind& k : kReporterKinds)
    names += Format("{}{}", names.empty() ? "" : ", ", k.name);
  return names;
}

std::unexpected<Error> Bad(std::string_view spec, std::string_view what) {
  return std::unexpected(Error{Format("--report '{}': {}", spec, what)});
}

}  // namespace

std::span<const ReporterKind> ReporterKinds() { return kReporterKinds; }

const ReporterKind* FindReporterKind(std::string_view name) {
  for (const ReporterKind& k : kReporterKinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::expected<ReportRequest, Error> ParseReportSpec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  ReportRequest request{FindReporterKind(name), "", "", std::string(spec)};
  if (name.empty()) {
    return Bad(spec, Format("missing reporter name; expected one of {}", KindNames()));
  }
  if (!request.kind) return Bad(spec, Format("unknown reporter; expected one of {}", KindNames()));
  const bool has_companion = !request.kind->companion_file.empty();
  const std::string expected = has_companion ? "out=FILE or json=FILE" : "out=FILE";
  bool seen_out = false, seen_json = false;
  if (colon != std::string_view::npos) {
    std::string_view rest = spec.substr(colon + 1);
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view option = rest.substr(0, comma);
      const std::size_t eq = option.find('=');
      const std::string_view key = option.substr(0, eq);
      if (option.empty()) return Bad(spec, Format("empty option; expected {}", expected));
      const bool is_out = key == "out", is_json = key == "json" && has_companion;
      if (!is_out && !is_json) {
        return Bad(spec, Format("unknown option '{}'; expected {}", key, expected));
      }
      if (eq == std::string_view::npos || eq + 1 == option.size()) {
        return Bad(spec, Format("option '{}' needs a value: {}=FILE", key, key));
      }
      bool& seen = is_out ? seen_out : seen_json;
      if (seen) return Bad(spec, Format("option '{}' given twice", key));
      seen = true;
      (is_out ? request.out : request.companion) = std::string(option.substr(eq + 1));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  if (!seen_out) request.out = std::string(request.kind->default_file);
  if (!seen_json) request.companion = std::string(request.kind->companion_file);
  return request;
}

std::expected<std::vector<ReportRequest>, Error> ParseReportSpecs(
    std::span<const std::string> specs) {
  std::vector<ReportRequest> requests;
  // Each file (or "" for the terminal) and the request that writes it.
  std::vector<std::pair<std::string, const ReportRequest*>> written;
  for (const std::string& spec : specs) {
    auto request = ParseReportSpec(spec);
    if (!request) return std::unexpected(request.error());
    requests.push_back(std::move(*request));
  }
  for (const ReportRequest& r : requests) {
    for (const std::string* file : {&r.out, &r.companion}) {
      if (file == &r.companion && file->empty()) continue;
      for (const auto& [other_file, other] : written) {
        if (other_file != *file) continue;
        const std::string what = file->empty() ? "the terminal" : *file;
        return Bad(r.spec, Format("{} is also written by --report '{}'", what, other->spec));
      }
      written.emplace_back(*file, &r);
    }
  }
  return requests;
}

}  // namespace llmconform::reports
