#include "mockllm/lint.h"

#include "mockllm/canonical.h"
#include "mockllm/secrets.h"
#include "mockllm/trace.h"
#include "protocols/wire/format.h"
#include "protocols/wire/json_locate.h"

namespace mockllm {
namespace {

using llmconform::Format;

struct LineContext {
  std::string_view line;
  std::string_view name;
  std::size_t line_no;
  std::vector<std::string>& problems;

  void Report(const std::string& pointer, const std::string& message) const {
    const std::size_t column = llmconform::LocateNearestJsonPointer(line, pointer) + 1;
    problems.push_back(Format("{}:{}:{}: {}: {}", name, line_no, column,
                              pointer.empty() ? "/" : pointer, message));
  }
};

void ScanText(std::string_view text, const std::string& pointer, const LineContext& ctx) {
  for (const SecretMatch& m : FindSecretsInText(text)) {
    ctx.Report(pointer, Format("holds a secret ({}; rule {}); redact it", m.kind, m.rule));
  }
}

void ScanValue(const OJson& j, const std::string& pointer, const LineContext& ctx) {
  if (j.is_string()) {
    ScanText(j.get_ref<const std::string&>(), pointer, ctx);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) ScanValue(j[i], Format("{}/{}", pointer, i), ctx);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string at = PointerAppend(pointer, it.key());
      if (it->is_string() && !IsRedactedValue(it->get_ref<const std::string&>())) {
        if (const SecretRule* rule = SecretFieldRule(it.key(), it->get_ref<const std::string&>())) {
          ctx.Report(at, Format("holds a secret ({} \"{}\"; rule {}); redact it", rule->kind,
                                it.key(), rule->name));
          continue;
        }
      }
      if (it.key() == "raw_b64" && it->is_string()) {
        if (auto bytes = Base64Decode(it->get_ref<const std::string&>())) ScanText(*bytes, at, ctx);
        continue;
      }
      ScanValue(*it, at, ctx);
    }
  }
}

}  // namespace

std::vector<std::string> LintTrace(std::string_view text, std::string_view name) {
  return LintTraceReport(text, name).problems;
}

LintReport LintTraceReport(std::string_view text, std::string_view name) {
  LintReport report;
  std::vector<std::string>& problems = report.problems;
  bool have_header = false;
  ForEachTraceLine(text, [&](std::string_view line, std::size_t line_no) {
    const LineContext ctx{line, name, line_no, problems};
    if (!have_header) {
      have_header = true;
      if (auto h = ParseTraceHeader(line, name, line_no); !h) {
        problems.push_back(h.error().message);
        ++report.format_errors;
      } else {
        report.id = (*h)["id"].get<std::string>();
        report.id_line = line_no;
      }
    } else if (auto x = ParseExchange(line, name, line_no); !x) {
      problems.push_back(x.error().message);
      ++report.format_errors;
    }
    const OJson j = JsonNestingDepth(line) > kMaxJsonDepth ? OJson(OJson::value_t::discarded)
                                                           : OJson::parse(line, nullptr, false);
    if (j.is_discarded()) {
      ScanText(line, "", ctx);  // unparseable: look at the text itself
    } else {
      ScanValue(j, "", ctx);
    }
  });
  if (!have_header) {
    problems.push_back(EmptyTraceError(name).message);
    ++report.format_errors;
  }
  return report;
}

}  // namespace mockllm
