#include "harness/suites/toolcalls_journal.h"

#include <set>

#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/toolcalls/tool_schemas.h"

namespace llmconform::harness::toolcalls_suite {

namespace tc = toolcalls;

std::vector<SentRequest> Requests(const Observation& obs) {
  std::vector<SentRequest> out;
  for (SentRequest& r : ReadRequestsSent(obs.journal))
    if (r.messages().is_array()) out.push_back(std::move(r));
  return out;
}

std::vector<AnsweredCall> AnsweredCalls(const std::vector<SentRequest>& requests) {
  std::vector<AnsweredCall> out;
  std::set<std::string> seen;
  for (const auto& r : requests) {
    const Json& ms = r.messages();
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const Json& m = ms[i];
      if (StringOf(m, "role") != "assistant") continue;
      for (const auto& call : ArrayOf(m, "tool_calls")) {
        const std::string id = StringOf(call, "id");
        if (id.empty() || seen.count(id)) continue;
        AnsweredCall a;
        a.id = id;
        a.name = StringOf(MemberOf(call, "function"), "name");
        a.args = ReadJsonOrDiscarded(StringOf(MemberOf(call, "function"), "arguments"));
        if (a.args.is_discarded()) a.args = nullptr;
        for (std::size_t j = i + 1; j < ms.size() && StringOf(ms[j], "role") == "tool"; ++j) {
          if (StringOf(ms[j], "tool_call_id") == id && MemberOf(ms[j], "content").is_string()) {
            a.result = ReadJsonOrDiscarded(ms[j]["content"].get<std::string>());
            if (a.result.is_discarded()) a.result = nullptr;
            a.where = Format("{}/{}", r.MessagesWhere(), j);
          }
        }
        if (!a.result.is_null()) {
          seen.insert(id);
          out.push_back(std::move(a));
        }
      }
    }
  }
  return out;
}

std::string ToolOf(const AnsweredCall& c) {
  auto t = tc::ToolFromName(c.name);
  return t ? std::string(tc::ToolName(*t)) : c.name;
}

std::vector<std::pair<std::string, std::string>> UserTexts(const std::vector<SentRequest>& requests,
                                                           std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;  // (where, text)
  for (const auto& r : requests) {
    const Json& ms = r.messages();
    for (std::size_t i = 0; i < ms.size(); ++i) {
      if (StringOf(ms[i], "role") == "user" && MemberOf(ms[i], "content").is_string() &&
          ms[i]["content"].get<std::string>().starts_with(prefix)) {
        out.emplace_back(Format("{}/{}", r.MessagesWhere(), i),
                         ms[i]["content"].get<std::string>());
      }
    }
  }
  return out;
}

}  // namespace llmconform::harness::toolcalls_suite
