#include "mockllm/lint.h"

#include "base/json_locate.h"
#include "mockllm/canonical.h"
#include "mockllm/secrets.h"
#include "mockllm/trace.h"
#include "protocols/wire/format.h"

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
    ctx.Report(pointer, Format("holds a secret ({}); redact it", m.kind));
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
      if (IsSecretName(it.key()) && it->is_string() &&
          !IsRedactedValue(it->get_ref<const std::string&>())) {
        ctx.Report(at, Format("holds a secret (a value of \"{}\"); redact it", it.key()));
        continue;
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
  std::vector<std::string> problems;
  bool have_header = false;
  ForEachTraceLine(text, [&](std::string_view line, std::size_t line_no) {
    const LineContext ctx{line, name, line_no, problems};
    if (!have_header) {
      have_header = true;
      if (auto h = ParseTraceHeader(line, name, line_no); !h) problems.push_back(h.error().message);
    } else if (auto x = ParseExchange(line, name, line_no); !x) {
      problems.push_back(x.error().message);
    }
    const OJson j = llmconform::ReadOrderedJsonOrDiscarded(line);
    if (j.is_discarded()) {
      ScanText(line, "", ctx);  // unparseable: look at the text itself
    } else {
      ScanValue(j, "", ctx);
    }
  });
  if (!have_header) problems.push_back(EmptyTraceError(name).message);
  return problems;
}

}  // namespace mockllm
