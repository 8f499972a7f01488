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

void Count(std::optional<MatrixCell>& cell, Outcome o) {
  if (!cell) cell = MatrixCell{};
  cell->outcome = cell->Scenarios() == 0 ? o : Worse(cell->outcome, o);
  if (o == Outcome::kSkip) {
    ++cell->skipped;
  } else {
    ++cell->run;
    if (o == Outcome::kPass) ++cell->passed;
  }
}

}  // namespace

std::string MatrixCell::Label() const {
  if (run == 0) return std::string(OutcomeName(Outcome::kSkip));
  return Format("{} {}/{}", OutcomeName(outcome), passed, run);
}

Matrix BuildMatrix(const RunResult& run) {
  Matrix m;
  std::vector<std::string> tags;
  bool any_without_provider = false;
  for (const ScenarioResult& s : run.scenarios) {
    if (s.info.provider.empty()) {
      any_without_provider = true;
    } else if (IndexOf(m.providers, s.info.provider) == m.providers.size()) {
      m.providers.push_back(s.info.provider);
    }
    if (IndexOf(m.features, s.info.protocol) == m.features.size()) {
      m.features.push_back(s.info.protocol);
    }
    for (const std::string& tag : s.info.tags) {
      if (IndexOf(tags, "#" + tag) == tags.size()) tags.push_back("#" + tag);
    }
  }
  std::sort(m.providers.begin(), m.providers.end());
  if (any_without_provider) m.providers.emplace_back(kNoProvider);
  std::sort(tags.begin(), tags.end());
  m.features.insert(m.features.end(), tags.begin(), tags.end());

  m.cells.assign(m.providers.size(), std::vector<std::optional<MatrixCell>>(m.features.size()));
  for (const ScenarioResult& s : run.scenarios) {
    auto& row = m.cells[IndexOf(
        m.providers, s.info.provider.empty() ? std::string(kNoProvider) : s.info.provider)];
    const Outcome o = s.Overall();
    Count(row[IndexOf(m.features, s.info.protocol)], o);
    std::vector<std::string> seen;  // a tag listed twice counts once
    for (const std::string& tag : s.info.tags) {
      if (IndexOf(seen, tag) != seen.size()) continue;
      seen.push_back(tag);
      Count(row[IndexOf(m.features, "#" + tag)], o);
    }
  }
  return m;
}

std::string RenderMatrixMarkdown(const Matrix& m) {
  std::string out = "# Provider × feature matrix\n\n";
  if (m.providers.empty()) return out + "No scenarios ran.\n";
  std::vector<std::string> header = {"provider"};
  for (const std::string& f : m.features) header.push_back(MarkdownText(f));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t p = 0; p < m.providers.size(); ++p) {
    std::vector<std::string> row = {MarkdownText(m.providers[p])};
    for (const auto& cell : m.cells[p]) {
      row.push_back(cell ? Format("{} {}", OutcomeEmoji(cell->outcome), cell->Label()) : "—");
    }
    rows.push_back(std::move(row));
  }
  out += MarkdownTable(header, {}, rows);
  out +=
      "\nA cell: the worst scenario outcome, then scenarios passed / scenarios run (skipped ones "
      "not counted); — no scenario. Columns after the protocols are scenario tags.\n";
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
      row[m.features[f]] = {{"outcome", OutcomeName(cell->outcome)},
                            {"passed", cell->passed},
                            {"run", cell->run},
                            {"skipped", cell->skipped},
                            {"scenarios", cell->Scenarios()},
                            {"label", cell->Label()}};
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
