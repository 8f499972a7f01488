#include "protocols/toolcalls/conversation_check.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/toolcalls/tool_schemas.h"
#include "protocols/wire/chat.h"

namespace llmconform::toolcalls {
namespace {

struct Call {
  std::string id;
  std::string where;  // "messages[2].tool_calls[0]"
};

// Checks one tool message's content (§4.1: a string holding the JSON result).
void CheckToolContent(const Json& m, const std::string& where, Findings& out) {
  auto c = m.find("content");
  if (c == m.end() || !c->is_string()) {
    out.push_back(
        {"TC-4.1-1", Format("{}.content: expected string, got {}", where,
                            c == m.end() ? std::string_view("nothing") : JsonTypeName(*c))});
    return;
  }
  const Json parsed = ReadJsonOrDiscarded(c->get<std::string>());
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("ok") ||
      !parsed["ok"].is_boolean()) {
    out.push_back(
        {"TC-4.1-2",
         Format("{}.content: expected a JSON-serialised ToolResult (an object with a boolean "
                "\"ok\"), got {}",
                where, c->get<std::string>().substr(0, 80))});
  }
}

// Checks the tool calls `tc` of the assistant message at `where` (§3.2: an
// id each, unique in the message; §4.1: a valid function name, arguments a
// JSON object in a string). Returns them in order; `ids` gets their ids.
std::vector<Call> CheckCalls(const Json& tc, const std::string& where, std::set<std::string>& ids,
                             Findings& out) {
  std::vector<Call> calls;
  for (std::size_t k = 0; k < tc.size(); ++k) {
    const Json& call = tc[k];
    const std::string cw = Format("{}.tool_calls[{}]", where, k);
    const std::string id = call.is_object() ? StringOf(call, "id") : "";
    if (id.empty()) out.push_back({"TC-3.2-2", Format("{}: has no id", cw)});
    if (!id.empty() && !ids.insert(id).second) {
      out.push_back({"TC-3.2-4", Format("{}: id \"{}\" is used twice in one message", cw, id)});
    }
    const Json fn = call.is_object() && call.contains("function") ? call["function"] : Json();
    const std::string name = fn.is_object() ? StringOf(fn, "name") : "";
    if (!IsValidFunctionName(name)) {
      out.push_back(
          {"TC-4.1-3",
           Format("{}.function.name \"{}\" does not match ^[a-zA-Z0-9_-]{{1,64}}$", cw, name)});
    }
    const Json args = fn.is_object() && fn.contains("arguments") ? fn["arguments"] : Json();
    if (!args.is_string()) {
      out.push_back({"TC-4.1-4", Format("{}.function.arguments: expected a JSON string, got {}", cw,
                                        JsonTypeName(args))});
    } else {
      const Json parsed = ReadJsonOrDiscarded(args.get<std::string>());
      if (parsed.is_discarded() || !parsed.is_object()) {
        out.push_back({"TC-4.1-4",
                       Format("{}.function.arguments: expected a JSON object in the string", cw)});
      }
    }
    calls.push_back({id, cw});
  }
  return calls;
}

}  // namespace

Findings CheckConversation(const Json& messages) {
  Findings out;
  if (!messages.is_array()) {
    out.push_back({"TC-3.1-1", Format("messages: expected array, got {}", JsonTypeName(messages))});
    return out;
  }
  static const std::set<std::string> kRoles = {"system", "user", "assistant", "tool"};
  std::size_t i = 0;
  while (i < messages.size()) {
    const Json& m = messages[i];
    const std::string where = Format("messages[{}]", i);
    if (!m.is_object()) {
      out.push_back({"TC-3.1-1", Format("{}: expected object, got {}", where, JsonTypeName(m))});
      ++i;
      continue;
    }
    const std::string role = StringOf(m, "role");
    if (!kRoles.count(role)) {
      out.push_back(
          {"TC-3.1-1",
           Format("{}.role: \"{}\" is not one of system, user, assistant, tool", where, role)});
    }
    if (m.contains("templateRef")) {
      out.push_back(
          {"TC-4.1-5", Format("{}: carries templateRef instead of expanded content", where)});
    }
    if (role == "tool") {
      out.push_back(
          {"TC-3.2-4",
           Format("{} (tool_call_id \"{}\") answers no tool call of the assistant message "
                  "before it",
                  where, StringOf(m, "tool_call_id"))});
      CheckToolContent(m, where, out);
      ++i;
      continue;
    }
    auto tc = m.find("tool_calls");
    if (role != "assistant" || tc == m.end() || !tc->is_array() || tc->empty()) {
      ++i;
      continue;
    }
    // The calls of this assistant message, then the tool messages after it.
    std::set<std::string> ids;
    const std::vector<Call> calls = CheckCalls(*tc, where, ids, out);
    std::size_t j = i + 1;
    std::vector<std::string> answered;
    while (j < messages.size() && messages[j].is_object() &&
           StringOf(messages[j], "role") == "tool") {
      const Json& t = messages[j];
      const std::string tw = Format("messages[{}]", j);
      const std::string id = StringOf(t, "tool_call_id");
      CheckToolContent(t, tw, out);
      if (id.empty()) {
        out.push_back({"TC-3.2-2", Format("{}: tool message without tool_call_id", tw)});
      } else if (!ids.count(id)) {
        out.push_back({"TC-3.2-4", Format("{} (tool_call_id \"{}\") answers no tool call of {}", tw,
                                          id, where)});
      } else if (std::find(answered.begin(), answered.end(), id) != answered.end()) {
        out.push_back({"TC-3.2-4", Format("{} answers tool call \"{}\" a second time", tw, id)});
      } else {
        answered.push_back(id);
      }
      ++j;
    }
    const std::string next =
        j < messages.size() ? Format("messages[{}] ({})", j, StringOf(messages[j], "role", "?"))
                            : "the end";
    std::vector<std::string> expected;
    for (const auto& c : calls) {
      if (c.id.empty()) continue;
      if (std::find(answered.begin(), answered.end(), c.id) == answered.end()) {
        out.push_back({"TC-3.2-3", Format("{} (id \"{}\") has no tool message before {}", c.where,
                                          c.id, next)});
      } else {
        expected.push_back(c.id);
      }
    }
    // The answers present must come in the order of the calls.
    std::vector<std::string> got;
    for (const auto& a : answered) {
      if (std::find(expected.begin(), expected.end(), a) != expected.end()) got.push_back(a);
    }
    if (got != expected) {
      std::string e, g;
      for (const auto& s : expected) e += (e.empty() ? "" : ", ") + s;
      for (const auto& s : got) g += (g.empty() ? "" : ", ") + s;
      out.push_back({"TC-3.2-1",
                     Format("tool messages after {} answer in the order [{}], the calls were [{}]",
                            where, g, e)});
    }
    i = j;
  }
  return out;
}

}  // namespace llmconform::toolcalls
