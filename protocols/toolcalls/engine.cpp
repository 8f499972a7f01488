#include "protocols/toolcalls/engine.h"

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/toolcalls/frontmatter.h"
#include "protocols/toolcalls/prompts.h"
#include "protocols/toolcalls/tool_schemas.h"
#include "protocols/toolcalls/workflow_graph.h"
#include "protocols/toolcalls/workflow_state.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::toolcalls {
namespace {

constexpr std::uint64_t kMaxInternalRead = 4 * 1024 * 1024;

Json TextMessage(const char* role, std::string content) {
  return {{"role", role}, {"content", std::move(content)}};
}

// Reads a whole file through the sandbox (the runtime's own reads, which
// are not tool calls and not audited). nullopt when it does not exist.
std::expected<std::optional<std::string>, std::string> ReadMount(Sandbox& sandbox,
                                                                 const MountPath& path) {
  auto file = sandbox.OpenFile(path);
  if (!file) {
    if (file.error().kind == SandboxErrorKind::kNotFound) return std::optional<std::string>{};
    return std::unexpected(file.error().message);
  }
  std::string out;
  char buf[64 * 1024];
  for (;;) {
    auto n = (*file)->ReadAt(out.size(), buf);
    if (!n) return std::unexpected(Format("{}: {}", path.Display(), n.error().message));
    if (*n == 0) return std::optional<std::string>{std::move(out)};
    if (out.size() + *n > kMaxInternalRead)
      return std::unexpected(Format("{} is too large", path.Display()));
    out.append(buf, *n);
  }
}

// The assistant message as it is sent back: everything the provider sent
// (reasoning_content, extra fields on tool calls) except stream indexes and
// empty placeholders OpenAI does not take in requests.
Json EchoAssistant(wire::ChatMessage m) {
  for (auto& tc : m.tool_calls) tc.index.reset();
  if (m.extra.contains("refusal") && m.extra["refusal"].is_null()) m.extra.erase("refusal");
  if (m.extra.contains("annotations") && m.extra["annotations"].empty())
    m.extra.erase("annotations");
  return wire::ToJson(m);
}

}  // namespace

std::string_view RunPhaseName(RunPhase p) {
  switch (p) {
    case RunPhase::kRunning:
      return "Running";
    case RunPhase::kWaitingUser:
      return "WaitingUser";
    case RunPhase::kCompleted:
      return "Completed";
    case RunPhase::kFailed:
      break;
  }
  return "Failed";
}

Json EngineTurn::ToJson() const {
  Json runs = Json::array();
  for (const auto& r : tool_runs) {
    runs.push_back({{"toolCallId", r.tool_call_id},
                    {"toolName", r.tool},
                    {"args", ToPlain(r.args)},
                    {"result", ToPlain(r.result)},
                    {"durationMs", r.duration_ms}});
  }
  Json response = {{"assistant", assistant}};
  if (!raw_response.is_null()) response["raw"] = raw_response;
  if (!stream_findings.empty()) {
    Json f = Json::array();
    for (const auto& x : stream_findings) f.push_back({{"rule", x.rule}, {"message", x.message}});
    response["streamFindings"] = std::move(f);
  }
  Json ui = {{"phase", RunPhaseName(phase_after)}};
  if (!stop_reason.empty()) ui["stopReason"] = stop_reason;
  return {{"id", id},
          {"phaseBefore", RunPhaseName(phase_before)},
          {"request", {{"messages", request_messages}, {"tools", request_tools}}},
          {"response", std::move(response)},
          {"toolRuns", std::move(runs)},
          {"uiAfter", std::move(ui)}};
}

struct ExecutionEngine::NodeView {
  WorkflowGraph graph;
  OJson state;
  std::string node_id;
  std::string agent_id;
  std::string persona;  // "" when the package has none for the agent
  std::string workflow_id;
};

ExecutionEngine::ExecutionEngine(wire::ChatTransport& transport, ToolHost& tools, Clock& clock,
                                 EngineOptions options)
    : transport_(transport), tools_(tools), clock_(clock), options_(std::move(options)) {
  tools_.SetEnabledTools(options_.tools);
}

std::expected<ExecutionEngine::NodeView, std::string> ExecutionEngine::LoadNode() {
  Sandbox& sandbox = tools_.sandbox();
  auto graph_text = ReadMount(sandbox, {Mount::kPkg, {"workflow.graph.json"}});
  if (!graph_text) return std::unexpected(graph_text.error());
  if (!*graph_text) return std::unexpected(std::string("@pkg/workflow.graph.json does not exist"));
  auto graph = ParseWorkflowGraph(**graph_text);
  if (!graph) return std::unexpected("@pkg/" + graph.error().message);
  auto state_text = ReadMount(sandbox, {Mount::kState, {"workflow.md"}});
  if (!state_text) return std::unexpected(state_text.error());
  if (!*state_text) return std::unexpected(std::string("@state/workflow.md does not exist"));
  const FrontmatterSplit split = SplitFrontmatter(**state_text);
  if (!split.present) return std::unexpected(std::string("@state/workflow.md has no front matter"));
  auto state = ParseYamlMapping(split.yaml);
  if (!state) return std::unexpected("@state/workflow.md front matter: " + state.error().message);
  if (auto e = ValidateStateSchema(*state)) return std::unexpected(e->message);
  NodeView v;
  v.node_id = state->value("currentNodeId", graph->entry_node_id);
  const GraphNode* node = graph->Find(v.node_id);
  if (!node)
    return std::unexpected(
        Format("@state/workflow.md: currentNodeId \"{}\" is not a node of the graph", v.node_id));
  v.agent_id = node->agent_id.empty() ? options_.active_agent_id : node->agent_id;
  v.workflow_id = !graph->workflow_id.empty() ? graph->workflow_id
                                              : state->value("workflowType", std::string());
  auto agents_text = ReadMount(sandbox, {Mount::kPkg, {"agents.json"}});
  if (agents_text && *agents_text) {
    const Json agents = ReadJsonOrDiscarded(**agents_text);
    if (agents.is_object() && agents.contains("agents") && agents["agents"].is_array()) {
      for (const auto& a : agents["agents"]) {
        if (a.is_object() && StringOf(a, "id") == v.agent_id) v.persona = StringOf(a, "persona");
      }
    }
  }
  v.graph = std::move(*graph);
  v.state = std::move(*state);
  return v;
}

std::expected<void, std::string> ExecutionEngine::OpenWindow(std::string_view intent) {
  auto node = LoadNode();
  if (!node) return std::unexpected(node.error());
  const GraphNode& n = *node->graph.Find(node->node_id);
  RunDirective d;
  d.intent = std::string(intent);
  d.workflow = node->workflow_id;
  d.current_node_id = node->node_id;
  d.effective_agent_id = node->agent_id;
  d.autopilot = options_.autopilot;
  NodeBrief b;
  b.current_node_id = n.id;
  b.step_file = n.file.empty() ? "" : "@pkg/" + n.file;
  for (const auto& o : n.outputs) b.outputs_map.push_back({o, "@project/" + o});
  for (const auto* e : node->graph.EdgesFrom(n.id)) b.allowed_next.push_back({e->to, e->label});
  window_.push_back(TextMessage("user", ComposeRunDirective(d)));
  window_.push_back(TextMessage("user", ComposeNodeBrief(b)));
  return {};
}

Json ExecutionEngine::Compose(const std::optional<NodeView>& node) const {
  Json messages = Json::array();
  for (std::string& text : SystemMessageTexts(options_.mode == "chat", options_.tools,
                                              tools_.limits(), node ? node->persona : ""))
    messages.push_back(TextMessage("system", std::move(text)));
  for (const auto& m : window_) messages.push_back(m);
  return messages;
}

RunOutcome ExecutionEngine::Start() {
  window_ = Json::array();
  if (options_.mode == "chat")
    return Fail(nullptr, "Start() is for mode=run; in mode=chat send user input");
  Sandbox& sandbox = tools_.sandbox();
  const MountPath state_path{Mount::kState, {"workflow.md"}};
  auto state = ReadMount(sandbox, state_path);
  if (!state) return Fail(nullptr, state.error());
  if (!*state) {
    auto tmpl = ReadMount(sandbox, {Mount::kPkg, {"workflow.md"}});
    if (!tmpl) return Fail(nullptr, tmpl.error());
    std::string initial;
    if (*tmpl) {
      initial = **tmpl;
    } else {
      auto graph_text = ReadMount(sandbox, {Mount::kPkg, {"workflow.graph.json"}});
      if (!graph_text || !*graph_text)
        return Fail(nullptr, "@pkg/workflow.graph.json does not exist");
      auto graph = ParseWorkflowGraph(**graph_text);
      if (!graph) return Fail(nullptr, "@pkg/" + graph.error().message);
      initial = ComposeFrontmatter(OJson{{"schemaVersion", "1.1"},
                                         {"workflowType", graph->workflow_id},
                                         {"currentNodeId", graph->entry_node_id},
                                         {"stepsCompleted", OJson::array()},
                                         {"variables", OJson::object()},
                                         {"decisionLog", OJson::array()},
                                         {"artifacts", OJson::array()}},
                                   "");
    }
    auto where = sandbox.Resolve(state_path, true);
    if (!where || !where->parent)
      return Fail(nullptr, where ? "@state/workflow.md is a folder" : where.error().message);
    if (auto w = where->parent->ReplaceFile(where->name, initial); !w)
      return Fail(nullptr, w.error().message);
  }
  if (auto w = OpenWindow("start"); !w) return Fail(nullptr, w.error());
  return Loop();
}

RunOutcome ExecutionEngine::Resume() {
  window_ = Json::array();
  if (options_.mode == "chat") return Fail(nullptr, "Resume() is for mode=run");
  if (auto w = OpenWindow("resume"); !w) return Fail(nullptr, w.error());
  return Loop();
}

RunOutcome ExecutionEngine::SubmitUserInput(std::string_view text) {
  std::optional<std::string> node_id;
  if (options_.mode != "chat") {
    if (phase_ != RunPhase::kWaitingUser) {
      return Fail(nullptr, Format("user input arrived while the run is {}", RunPhaseName(phase_)));
    }
    auto node = LoadNode();
    if (!node) return Fail(nullptr, node.error());
    node_id = node->node_id;
  }
  window_.push_back(TextMessage("user", ComposeUserInput(ToValidUtf8(text), node_id)));
  return Loop();
}

RunOutcome ExecutionEngine::Fail(EngineTurn* turn, std::string error) {
  phase_ = RunPhase::kFailed;
  if (turn) {
    turn->phase_after = RunPhase::kFailed;
    turn->stop_reason = "error: " + error;
    Record(std::move(*turn));
  }
  return RunOutcome{RunPhase::kFailed, "error", "", std::move(error)};
}

void ExecutionEngine::Record(EngineTurn turn) {
  Sandbox& sandbox = tools_.sandbox();
  auto where = sandbox.Resolve({Mount::kState, {"logs", "engine-turns.jsonl"}}, true);
  if (where && where->parent) {
    (void)where->parent->Append(where->name, DumpJson(turn.ToJson()) + "\n");
  }
  turns_.push_back(std::move(turn));
}

RunOutcome ExecutionEngine::Loop() {
  phase_ = RunPhase::kRunning;
  const bool run_mode = options_.mode != "chat";
  const Json tools = FunctionTools(options_.tools);
  for (int call = 0; call < options_.max_llm_calls; ++call) {
    std::optional<NodeView> node;
    if (run_mode) {
      auto n = LoadNode();
      if (!n) return Fail(nullptr, n.error());
      node = std::move(*n);
    }
    EngineTurn turn;
    turn.id = Format("C{}{}", turns_.size() + 1 < 10 ? "0" : "", turns_.size() + 1);
    turn.phase_before = RunPhase::kRunning;
    turn.request_messages = Compose(node);
    turn.request_tools = tools;
    Json body = {{"model", options_.model}, {"messages", turn.request_messages}};
    if (!tools.empty()) body["tools"] = tools;
    if (options_.temperature) body["temperature"] = *options_.temperature;
    if (options_.stream) body["stream"] = true;

    auto response = transport_.PostJson("/chat/completions", DumpJson(body), options_.timeout);
    if (!response) return Fail(&turn, response.error().message);
    if (response->status != 200) {
      const Json err = ReadJsonOrDiscarded(response->body);
      auto eb = err.is_discarded() ? std::nullopt : wire::ErrorBodyFromJson(err);
      return Fail(&turn, Format("HTTP {}: {}", response->status,
                                eb ? eb->message : response->body.substr(0, 200)));
    }
    wire::ChatMessage message;
    if (options_.stream) {
      wire::AccumulatedStream acc = wire::AccumulateStream(response->body);
      turn.stream_findings = acc.findings;
      if (acc.error) return Fail(&turn, "error in the stream: " + acc.error->message);
      if (acc.chunks == 0) return Fail(&turn, "the stream held no chunks");
      message = std::move(acc.message);
    } else {
      const Json parsed = ReadJsonOrDiscarded(response->body);
      if (parsed.is_discarded()) return Fail(&turn, "the response body is not JSON");
      turn.raw_response = parsed;
      auto r = wire::ResponseFromJson(parsed);
      if (!r) return Fail(&turn, r.error().message);
      if (r->choices.empty()) return Fail(&turn, "the response has no choices");
      message = std::move(r->choices[0].message);
    }
    message.role = "assistant";
    // A provider's inline reasoning, and thinking blocks of an array content,
    // go back as reasoning_content, not as the answer (docs/protocols.md,
    // "Inline reasoning", "Mistral").
    wire::MoveInlineThink(message);
    wire::MoveContentThinking(message);
    const Json echoed = EchoAssistant(message);
    turn.assistant = echoed;
    window_.push_back(echoed);

    if (message.tool_calls.empty()) {
      const bool complete = run_mode && [&] {
        auto after = LoadNode();
        return after && IsWorkflowComplete(after->state, after->graph);
      }();
      phase_ = complete ? RunPhase::kCompleted : RunPhase::kWaitingUser;
      turn.phase_after = phase_;
      turn.stop_reason = complete ? "assistant_no_toolCalls_and_complete"
                                  : "assistant_no_toolCalls_and_not_complete";
      RunOutcome out{phase_, turn.stop_reason, message.Text(), ""};
      Record(std::move(turn));
      return out;
    }
    // Run every call in order; answer each with a tool message.
    Json answers = Json::array();
    for (const auto& tc : message.tool_calls) {
      ToolRun run = tools_.Run(tc.id, tc.function.name, std::string_view(tc.function.arguments));
      answers.push_back(
          {{"role", "tool"}, {"tool_call_id", tc.id}, {"content", DumpJson(run.result)}});
      turn.tool_runs.push_back(std::move(run));
    }
    for (const auto& a : answers) window_.push_back(a);
    if (run_mode) {
      auto after = LoadNode();
      if (after && after->node_id != node->node_id) {
        // A new node: the state carries the run; keep the last exchange.
        window_ = Json::array({echoed});
        for (const auto& a : answers) window_.push_back(a);
        if (auto w = OpenWindow("continue"); !w) return Fail(&turn, w.error());
      }
    }
    turn.phase_after = RunPhase::kRunning;
    Record(std::move(turn));
  }
  return Fail(nullptr, Format("no end after {} LLM calls", options_.max_llm_calls));
}

}  // namespace llmconform::toolcalls
