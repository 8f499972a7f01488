#include "protocols/toolcalls/oracle_ops.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/toolcalls/clock.h"
#include "protocols/toolcalls/conversation_check.h"
#include "protocols/toolcalls/posix_filesystem.h"
#include "protocols/toolcalls/prompts.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_schemas.h"
#include "protocols/wire/chat.h"

namespace llmconform::toolcalls {
namespace {

template <typename T>
std::unexpected<Error> Err(const std::expected<T, Error>& e) {
  return std::unexpected(e.error());
}

std::expected<std::string, Error> StringOr(const Json& in, std::string_view key,
                                           std::string fallback) {
  auto v = OptionalString(in, key);
  if (!v) return Err(v);
  return v->value_or(std::move(fallback));
}

std::expected<Json, Error> ToolHostOp(const Json& in) {
  if (auto o = RequireObjectInput(in); !o) return std::unexpected(o.error());
  auto mounts = RequireObject(in, "mounts");
  if (!mounts) return Err(mounts);
  MountRoots roots;
  for (auto [key, field] : {std::pair{"@project", &roots.project}, std::pair{"@pkg", &roots.pkg},
                            std::pair{"@state", &roots.state}}) {
    auto dir = OptionalString(*mounts, key);
    if (!dir) return std::unexpected(Error{"mounts." + dir.error().message});
    *field = dir->value_or("");
  }
  auto tool = RequireString(in, "tool");
  if (!tool) return Err(tool);
  auto id = StringOr(in, "toolCallId", "oracle");
  if (!id) return Err(id);
  auto limits = LimitsFromJson(in.contains("limits") ? in["limits"] : Json());
  if (!limits) return std::unexpected(limits.error().Under("/limits"));
  PosixFilesystem fs;
  Sandbox sandbox(fs, roots);
  SystemClock clock;
  ToolHost host(sandbox, clock, *limits);
  auto args = in.find("args");
  if (args == in.end())
    return std::unexpected(Error::AtPointer(
        "/args", "expected object or string, got nothing (the field is required)"));
  const ToolRun run =
      args->is_string()
          ? host.Run(*id, *tool, std::string_view(args->get_ref<const std::string&>()))
          : host.Run(*id, *tool, ToOrdered(*args));
  return Json{{"result", ToPlain(run.result)}, {"content", DumpJson(run.result)}};
}

std::expected<Json, Error> RunDirectiveOp(const Json& in) {
  if (auto o = RequireObjectInput(in); !o) return std::unexpected(o.error());
  RunDirective d;
  auto intent = RequireString(in, "intent");
  if (!intent) return Err(intent);
  if (*intent != "start" && *intent != "continue" && *intent != "resume") {
    return std::unexpected(Error::AtPointer(
        "/intent", Format("expected \"start\", \"continue\" or \"resume\", got \"{}\"", *intent)));
  }
  d.intent = *intent;
  for (auto [key, field] :
       {std::pair{"workflow", &d.workflow}, std::pair{"currentNodeId", &d.current_node_id},
        std::pair{"effectiveAgentId", &d.effective_agent_id}}) {
    auto v = RequireString(in, key);
    if (!v) return Err(v);
    *field = *v;
  }
  for (auto [key, field] :
       {std::pair{"runType", &d.run_type}, std::pair{"state", &d.state},
        std::pair{"graph", &d.graph}, std::pair{"artifactsRoot", &d.artifacts_root}}) {
    auto v = StringOr(in, key, *field);
    if (!v) return Err(v);
    *field = *v;
  }
  auto autopilot = OptionalBool(in, "autopilot");
  if (!autopilot) return Err(autopilot);
  d.autopilot = autopilot->value_or(true);
  return Json{{"text", ComposeRunDirective(d)}};
}

std::expected<Json, Error> NodeBriefOp(const Json& in) {
  if (auto o = RequireObjectInput(in); !o) return std::unexpected(o.error());
  NodeBrief b;
  auto node = RequireString(in, "currentNodeId");
  if (!node) return Err(node);
  b.current_node_id = *node;
  auto step = RequireString(in, "stepFile");
  if (!step) return Err(step);
  b.step_file = *step;
  const Json outputs = in.value("outputsMap", Json::array());
  if (!outputs.is_array())
    return std::unexpected(
        Error::AtPointer("/outputsMap", Format("expected array, got {}", JsonTypeName(outputs))));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Json& o = outputs[i];
    if (o.is_string()) {
      b.outputs_map.push_back({o.get<std::string>(), "@project/" + o.get<std::string>()});
      continue;
    }
    auto from = RequireString(o, "from");
    auto to = RequireString(o, "to");
    if (!from || !to)
      return std::unexpected(
          (!from ? from.error() : to.error()).Under(Format("/outputsMap/{}", i)));
    b.outputs_map.push_back({*from, *to});
  }
  const Json next = in.value("allowedNext", Json::array());
  if (!next.is_array())
    return std::unexpected(
        Error::AtPointer("/allowedNext", Format("expected array, got {}", JsonTypeName(next))));
  for (std::size_t i = 0; i < next.size(); ++i) {
    const Json& n = next[i];
    if (n.is_string()) {
      b.allowed_next.push_back({n.get<std::string>(), ""});
      continue;
    }
    auto id = RequireString(n, "nodeId");
    auto label = OptionalString(n, "label");
    if (!id || !label)
      return std::unexpected(
          (!id ? id.error() : label.error()).Under(Format("/allowedNext/{}", i)));
    b.allowed_next.push_back({*id, label->value_or("")});
  }
  return Json{{"text", ComposeNodeBrief(b)}};
}

std::expected<Json, Error> UserInputOp(const Json& in) {
  auto text = RequireString(in, "text");
  if (!text) return Err(text);
  auto node = OptionalString(in, "forNodeId");
  if (!node) return Err(node);
  return Json{{"text", ComposeUserInput(*text, *node)}};
}

std::expected<Json, Error> CheckConversationOp(const Json& in) {
  auto messages = RequireArray(in, "messages");
  if (!messages) return Err(messages);
  Json findings = Json::array();
  for (const auto& f : CheckConversation(*messages))
    findings.push_back({{"rule", f.rule}, {"message", f.message}});
  return Json{{"findings", std::move(findings)}};
}

// The input's "tools" (names, dotted or wire), all five when absent.
std::expected<std::vector<Tool>, Error> ToolsOf(const Json& in) {
  std::vector<Tool> tools(std::begin(kAllTools), std::end(kAllTools));
  if (in.is_object() && in.contains("tools")) {
    auto names = RequireArray(in, "tools");
    if (!names) return Err(names);
    tools.clear();
    for (std::size_t i = 0; i < names->size(); ++i) {
      const Json& n = (*names)[i];
      auto t = n.is_string() ? ToolFromName(n.get<std::string>()) : std::nullopt;
      if (!t)
        return std::unexpected(Error::AtPointer(
            Format("/tools/{}", i),
            Format("expected a tool name (fs.read, fs_read, …), got {}", n.dump())));
      tools.push_back(*t);
    }
  }
  return tools;
}

std::expected<Json, Error> FunctionToolsOp(const Json& in) {
  auto tools = ToolsOf(in);
  if (!tools) return Err(tools);
  return Json{{"tools", FunctionTools(*tools)}};
}

// The system messages that open every request (§3.1): runtime rules, tool
// policy and the agent's persona in mode=run; chat rules and tool policy in
// mode=chat.
std::expected<Json, Error> SystemMessagesOp(const Json& in) {
  if (auto o = RequireObjectInput(in); !o) return std::unexpected(o.error());
  auto mode = StringOr(in, "mode", "run");
  if (!mode) return Err(mode);
  if (*mode != "run" && *mode != "chat")
    return std::unexpected(
        Error::AtPointer("/mode", Format("expected \"run\" or \"chat\", got \"{}\"", *mode)));
  auto persona = StringOr(in, "persona", "");
  if (!persona) return Err(persona);
  auto tools = ToolsOf(in);
  if (!tools) return Err(tools);
  auto limits = LimitsFromJson(in.contains("limits") ? in["limits"] : Json());
  if (!limits) return std::unexpected(limits.error().Under("/limits"));
  Json messages = Json::array();
  for (std::string& text : SystemMessageTexts(*mode == "chat", *tools, *limits, *persona))
    messages.push_back({{"role", "system"}, {"content", std::move(text)}});
  return Json{{"messages", std::move(messages)}};
}

}  // namespace

std::vector<OracleOp> OracleOps() {
  return {
      {"toolcalls.toolhost",
       "run one fs.* tool on real folders: "
       "{\"mounts\":{\"@project\",\"@pkg\",\"@state\"},\"tool\",\"args\","
       "\"limits\"?,\"toolCallId\"?} -> {\"result\",\"content\"}",
       ToolHostOp},
      {"toolcalls.composeRunDirective",
       "the RUN_DIRECTIVE shell: "
       "{\"intent\",\"workflow\",\"currentNodeId\",\"effectiveAgentId\",\"autopilot\",…} -> "
       "{\"text\"}",
       RunDirectiveOp},
      {"toolcalls.composeNodeBrief",
       "the NODE_BRIEF shell: {\"currentNodeId\",\"stepFile\",\"outputsMap\",\"allowedNext\"} -> "
       "{\"text\"}",
       NodeBriefOp},
      {"toolcalls.composeUserInput",
       "the USER_INPUT shell: {\"text\",\"forNodeId\"?} -> {\"text\"}", UserInputOp},
      {"toolcalls.checkConversation",
       "back-fill rules on a message list: {\"messages\"} -> "
       "{\"findings\":[{\"rule\",\"message\"}]}",
       CheckConversationOp},
      {"toolcalls.functionTools",
       "the five tools as OpenAI function tools: {\"tools\"?} -> {\"tools\"}", FunctionToolsOp},
      {"toolcalls.composeSystemMessages",
       "the system messages a request opens with: "
       "{\"mode\"?,\"persona\"?,\"tools\"?,\"limits\"?} -> {\"messages\"}",
       SystemMessagesOp},
  };
}

}  // namespace llmconform::toolcalls
