#include "reports/matrix_reporter.h"

#include <algorithm>

#include "base/format.h"
#include "reports/json_reporter.h"
#include "reports/markdown.h"

namespace llmconform::reports {
namespace {

std::size_t IndexOf(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

void Count(std::optional<MatrixCell>& cell, const ScenarioResult& s, std::size_t index) {
  if (!cell) cell = MatrixCell{};
  cell->Add(s, index);
}

// Column order of a feature matrix: kFeatureOrder, then the others sorted.
bool FeatureBefore(const std::string& a, const std::string& b) {
  const auto rank = [](const std::string& f) {
    const auto* it = std::find(std::begin(kFeatureOrder), std::end(kFeatureOrder), f);
    return static_cast<std::size_t>(it - std::begin(kFeatureOrder));
  };
  const std::size_t ra = rank(a), rb = rank(b);
  return ra != rb ? ra < rb : a < b;
}

}  // namespace

std::string MatrixFailure::ReportLink() const { return Format("report.html#s{}", index + 1); }

void MatrixCell::Add(const ScenarioResult& s, std::size_t index) {
  const Outcome o = s.Overall();
  if (o == Outcome::kFail || o == Outcome::kError)
    failures.push_back({s.info.Id(), index, s.info.deviations});
  outcome = Scenarios() == 0 ? o : Worse(outcome, o);
  if (o == Outcome::kSkip) {
    ++skipped;
  } else {
    ++run;
    if (o == Outcome::kPass) ++passed;
  }
}

std::vector<std::string> MatrixCell::Deviations() const {
  std::vector<std::string> out;
  for (const MatrixFailure& f : failures)
    for (const std::string& d : f.deviations)
      if (IndexOf(out, d) == out.size()) out.push_back(d);
  return out;
}

std::string MatrixCell::Label() const {
  if (run == 0) return std::string(OutcomeName(Outcome::kSkip));
  return Format("{} {}/{}", OutcomeName(outcome), passed, run);
}

namespace {
// The row: the dialect a scenario ran in (run --dialects), else its provider.
const std::string& RowOf(const ScenarioInfo& info) {
  return info.dialect.empty() ? info.provider : info.dialect;
}
}  // namespace

Matrix BuildMatrix(const RunResult& run) {
  Matrix m;
  std::vector<std::string> tags;
  bool any_without_provider = false;
  // A run --dialects matrix: rows are dialects, columns client features only.
  const bool by_feature =
      std::any_of(run.scenarios.begin(), run.scenarios.end(),
                  [](const ScenarioResult& s) { return !s.info.dialect.empty(); });
  if (by_feature) m.row_label = "dialect";
  for (const ScenarioResult& s : run.scenarios) {
    if (by_feature && s.info.dialect.empty()) continue;
    if (RowOf(s.info).empty()) {
      any_without_provider = true;
    } else if (IndexOf(m.providers, RowOf(s.info)) == m.providers.size()) {
      m.providers.push_back(RowOf(s.info));
    }
    if (!by_feature && IndexOf(m.features, s.info.protocol) == m.features.size()) {
      m.features.push_back(s.info.protocol);
    }
    const std::string prefix = by_feature ? "" : "#";
    for (const std::string& tag : s.info.tags) {
      if (IndexOf(tags, prefix + tag) == tags.size()) tags.push_back(prefix + tag);
    }
  }
  std::sort(m.providers.begin(), m.providers.end());
  if (any_without_provider) m.providers.emplace_back(kNoProvider);
  if (by_feature) {
    std::sort(tags.begin(), tags.end(), FeatureBefore);
  } else {
    std::sort(tags.begin(), tags.end());
  }
  m.features.insert(m.features.end(), tags.begin(), tags.end());

  m.cells.assign(m.providers.size(), std::vector<std::optional<MatrixCell>>(m.features.size()));
  for (std::size_t i = 0; i < run.scenarios.size(); ++i) {
    const ScenarioResult& s = run.scenarios[i];
    if (by_feature && s.info.dialect.empty()) continue;
    auto& row = m.cells[IndexOf(m.providers,
                                RowOf(s.info).empty() ? std::string(kNoProvider) : RowOf(s.info))];
    if (!by_feature) Count(row[IndexOf(m.features, s.info.protocol)], s, i);
    std::vector<std::string> seen;  // a tag listed twice counts once
    for (const std::string& tag : s.info.tags) {
      if (IndexOf(seen, tag) != seen.size()) continue;
      seen.push_back(tag);
      Count(row[IndexOf(m.features, (by_feature ? "" : "#") + tag)], s, i);
    }
  }
  return m;
}

std::string MatrixMarkdownTable(const Matrix& m) {
  std::vector<std::string> header = {m.row_label};
  for (const std::string& f : m.features) header.push_back(MarkdownText(f));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t p = 0; p < m.providers.size(); ++p) {
    std::vector<std::string> row = {MarkdownText(m.providers[p])};
    for (const auto& cell : m.cells[p]) {
      std::string text = cell ? Format("{} {}", OutcomeEmoji(cell->outcome), cell->Label()) : "—";
      if (cell) {
        std::string devs;
        for (const std::string& d : cell->Deviations()) devs += (devs.empty() ? "" : ", ") + d;
        if (!devs.empty()) text += Format(" ({})", devs);
      }
      row.push_back(std::move(text));
    }
    rows.push_back(std::move(row));
  }
  return MarkdownTable(header, {}, rows);
}

std::string RenderMatrixMarkdown(const Matrix& m) {
  std::string out = "# Provider × feature matrix\n\n";
  if (m.providers.empty()) return out + "No scenarios ran.\n";
  out += MatrixMarkdownTable(m);
  out +=
      "\nA cell: the worst scenario outcome, then scenarios passed / scenarios run (skipped ones "
      "not counted); — no scenario. ";
  out += m.row_label == "dialect"
             ? "Rows are the dialects the replies were rewritten into (`run --dialects`), columns "
               "the client features the scenarios name; a failed cell names the deviations of its "
               "dialect that changed the failed scenarios' replies.\n"
             : "Columns after the protocols are scenario tags.\n";
  return out;
}

nlohmann::json MatrixToJson(const Matrix& m) {
  nlohmann::json cells = nlohmann::json::object();
  for (std::size_t p = 0; p < m.providers.size(); ++p) {
    nlohmann::json& row = cells[m.providers[p]] = nlohmann::json::object();
    for (std::size_t f = 0; f < m.features.size(); ++f) {
      const auto& cell = m.cells[p][f];
      if (!cell) {
        row[m.features[f]] = nullptr;
        continue;
      }
      nlohmann::json failures = nlohmann::json::array();
      for (const MatrixFailure& fail : cell->failures) {
        failures.push_back({{"scenario", fail.scenario},
                            {"report", fail.ReportLink()},
                            {"deviations", fail.deviations}});
      }
      row[m.features[f]] = {{"outcome", OutcomeName(cell->outcome)},
                            {"passed", cell->passed},
                            {"run", cell->run},
                            {"skipped", cell->skipped},
                            {"scenarios", cell->Scenarios()},
                            {"label", cell->Label()}};
      if (!failures.empty()) {
        row[m.features[f]]["deviations"] = cell->Deviations();
        row[m.features[f]]["failures"] = std::move(failures);
      }
    }
  }
  return {{"format", kMatrixFormat},
          {"providers", m.providers},
          {"features", m.features},
          {"cells", cells}};
}

void MatrixReporter::OnRunEnd(const RunResult& run) {
  const Matrix m = BuildMatrix(run);
  if (markdown_) {
    *markdown_ << RenderMatrixMarkdown(m);
    markdown_->flush();
  }
  if (json_) {
    *json_ << DumpJson(MatrixToJson(m), 2) << '\n';
    json_->flush();
  }
}

}  // namespace llmconform::reports
