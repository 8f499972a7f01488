#include "protocols/thinkingml/xml_text.h"

#include "base/format.h"
#include "base/utf8.h"

namespace llmconform::thinkingml {

std::string Excerpt(std::string_view s, std::size_t max_code_points) {
  const std::size_t cut = OffsetOfCodePoint(s, max_code_points);
  std::string out = ToValidUtf8(s.substr(0, cut));
  if (cut < s.size()) out += "…";
  return out;
}

PhaseId ParsePhaseId(std::string_view a) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < a.size() && IsXmlSpace(a[i])) ++i;
  };
  auto fail = [&](std::string_view why) {
    return PhaseId{std::nullopt,
                   Format("<phase> must carry exactly the attribute id=\"N\" with N a positive "
                          "integer in double quotes; {} in \"<phase{}>\"",
                          why, Excerpt(a))};
  };
  if (Trim(a).empty()) return fail("the id is missing");
  if (a.empty() || !IsXmlSpace(a[0])) return fail("no space before the attribute");
  skip();
  if (a.substr(i, 2) != "id" || (i + 2 < a.size() && !IsXmlSpace(a[i + 2]) && a[i + 2] != '=')) {
    return fail("the attribute is not id");
  }
  i += 2;
  skip();
  if (i >= a.size() || a[i] != '=') return fail("'=' is missing after id");
  ++i;
  skip();
  if (i >= a.size() || a[i] != '"') return fail("the value is not in double quotes");
  ++i;
  const std::size_t digits_begin = i;
  while (i < a.size() && a[i] >= '0' && a[i] <= '9') ++i;
  const std::string_view digits = a.substr(digits_begin, i - digits_begin);
  if (i >= a.size() || a[i] != '"') return fail("the value is not a positive integer");
  if (digits.empty() || digits.size() > 18) return fail("the value is not a positive integer");
  ++i;
  skip();
  if (i != a.size()) return fail("there is more than the id attribute");
  std::int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return PhaseId{v, ""};
}

}  // namespace llmconform::thinkingml
