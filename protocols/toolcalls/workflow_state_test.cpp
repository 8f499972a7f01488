#include "protocols/toolcalls/workflow_state.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

namespace llmconform::toolcalls {
namespace {

// start -> plan -> (build | skip) -> done; `done` is an end node, `skip` has no
// way out (an end node too).
WorkflowGraph Graph() {
  auto g = ParseWorkflowGraph(R"({"entryNodeId": "start",
    "nodes": [{"id": "start"}, {"id": "plan"}, {"id": "build"}, {"id": "skip"},
              {"id": "done", "type": "end"}],
    "edges": [{"from": "start", "to": "plan"}, {"from": "plan", "to": "build"},
              {"from": "plan", "to": "skip"}, {"from": "build", "to": "done"}]})");
  EXPECT_TRUE(g) << g.error().message;
  return g ? *g : WorkflowGraph{};
}

std::string State(std::string_view yaml) { return "---\n" + std::string(yaml) + "---\n# Notes\n"; }

std::string Code(const std::optional<ToolError>& e) {
  return e ? std::string(ToolErrorCodeName(e->code)) : "ok";
}

template <typename T>
std::string Code(const std::expected<T, ToolError>& e) {
  return e ? "ok" : std::string(ToolErrorCodeName(e.error().code));
}

TEST(WorkflowState, SchemaChecksTheKnownFieldsOnly) {
  EXPECT_FALSE(ValidateStateSchema(OJson::object()));
  EXPECT_FALSE(ValidateStateSchema({{"currentNodeId", "a"},
                                    {"stepsCompleted", {"a", "b"}},
                                    {"variables", {{"k", 1}}},
                                    {"decisionLog", {{{"at", "a"}}}},
                                    {"artifacts", OJson::array()},
                                    {"updatedAt", "2026-01-01"},
                                    {"schemaVersion", "1"},
                                    {"workflowType", "w"},
                                    {"mine", {1, "x", nullptr}}}));
  const auto e = ValidateStateSchema({{"currentNodeId", "a"}, {"stepsCompleted", {"a", 2}}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, ToolErrorCode::kSchemaValidation);
  EXPECT_EQ(e->message, "front matter field stepsCompleted: expected array of strings, got array");
  EXPECT_EQ(
      e->details,
      (OJson{{"field", "stepsCompleted"}, {"expected", "array of strings"}, {"got", "array"}}));
  for (const char* field : {"currentNodeId", "updatedAt", "schemaVersion", "workflowType"}) {
    EXPECT_EQ(Code(ValidateStateSchema({{field, 1}})), "E_SCHEMA_VALIDATION") << field;
  }
  EXPECT_EQ(Code(ValidateStateSchema({{"variables", OJson::array()}})), "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Code(ValidateStateSchema({{"decisionLog", {"x"}}})), "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Code(ValidateStateSchema({{"artifacts", "a"}})), "E_SCHEMA_VALIDATION");
}

TEST(WorkflowState, UpdateAppliesEachOperation) {
  const OJson before = {{"currentNodeId", "plan"},
                        {"stepsCompleted", {"start"}},
                        {"variables", {{"a", 1}, {"b", 2}}},
                        {"decisionLog", {{{"n", 1}}}},
                        {"mine", "kept"}};
  auto after =
      ApplyFrontmatterUpdate(before, {{"stepsCompleted", {{"append", {"start", "plan", "plan"}}}},
                                      {"artifacts", {{"append", {"x.md", "x.md"}}}},
                                      {"variables", {{"set", {{"b", 3}, {"c", {{"deep", true}}}}}}},
                                      {"decisionLog", {{"append", {{{"n", 1}}, {{"n", 2}}}}}},
                                      {"currentNodeId", {{"set", "build"}}},
                                      {"updatedAt", {{"set", "2026-11-23T00:00:00Z"}}}});
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(*after, (OJson{{"currentNodeId", "build"},
                           {"stepsCompleted", {"start", "plan"}},  // no entry twice
                           {"variables", {{"a", 1}, {"b", 3}, {"c", {{"deep", true}}}}},
                           {"decisionLog", {{{"n", 1}}, {{"n", 1}}, {{"n", 2}}}},  // appended as is
                           {"mine", "kept"},
                           {"artifacts", {"x.md"}},
                           {"updatedAt", "2026-11-23T00:00:00Z"}}));
  EXPECT_FALSE(ValidateStateSchema(*after));

  // An empty update changes nothing; a null field is filled.
  EXPECT_EQ(ApplyFrontmatterUpdate(before, OJson::object()), before);
  EXPECT_EQ(ApplyFrontmatterUpdate({{"artifacts", nullptr}}, {{"artifacts", {{"append", {"a"}}}}}),
            (OJson{{"artifacts", {"a"}}}));
}

TEST(WorkflowState, BadUpdatesChangeNothingAndNameTheField) {
  const OJson fm = {{"currentNodeId", "plan"}, {"stepsCompleted", {"start"}}};
  auto error_of = [&](const OJson& front, const OJson& update) {
    auto r = ApplyFrontmatterUpdate(front, update);
    EXPECT_FALSE(r) << update.dump();
    return r ? ToolError{} : r.error();
  };
  const ToolError unknown = error_of(fm, {{"stepsCompleted", {{"append", {"x"}}}}, {"nope", 1}});
  EXPECT_EQ(unknown.code, ToolErrorCode::kSchemaValidation);
  EXPECT_TRUE(
      unknown.message.starts_with("update.nope: unknown field; expected one of "
                                  "stepsCompleted, variables,"))
      << unknown.message;
  EXPECT_EQ(unknown.details, (OJson{{"field", "update.nope"}}));

  const ToolError wrong_op = error_of(fm, {{"stepsCompleted", {{"set", {"x"}}}}});
  EXPECT_EQ(wrong_op.message, R"(update.stepsCompleted: expected {"append": array of strings})");
  EXPECT_EQ(error_of(fm, {{"currentNodeId", {{"set", "a"}, {"append", "b"}}}}).details["field"],
            "update.currentNodeId");
  EXPECT_EQ(error_of(fm, {{"currentNodeId", "a"}}).details["expected"], "set");

  const ToolError operand = error_of(fm, {{"currentNodeId", {{"set", 3}}}});
  EXPECT_EQ(operand.message, "argument update.currentNodeId.set: expected string, got number");
  EXPECT_EQ(error_of(fm, {{"decisionLog", {{"append", {"x"}}}}}).details["field"],
            "update.decisionLog.append");
  EXPECT_EQ(error_of(fm, {{"variables", {{"set", {1}}}}}).details["expected"], "object");

  // The front matter field the update changes has the wrong type.
  const ToolError state = error_of({{"artifacts", "a.md"}}, {{"artifacts", {{"append", {"b"}}}}});
  EXPECT_EQ(state.message, "front matter field artifacts: expected array of strings, got string");

  EXPECT_EQ(error_of(fm, OJson::array()).message, "argument update: expected object, got array");
  // A front matter that is not a mapping at all.
  EXPECT_EQ(error_of(OJson::array({1}), {{"artifacts", {{"append", {"b"}}}}}).message,
            "front matter: expected object, got array");
  EXPECT_EQ(Code(ApplyFrontmatterUpdate("text", {{"currentNodeId", {{"set", "b"}}}})),
            "E_SCHEMA_VALIDATION");
}

TEST(WorkflowState, TransitionsFollowTheGraphsEdges) {
  const WorkflowGraph g = Graph();
  const std::string at_plan = State("currentNodeId: plan\nstepsCompleted: [start]\n");
  // The first state (no file yet) may name any node of the graph.
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, at_plan, &g)), "ok");
  // Staying, or following an edge.
  EXPECT_EQ(Code(CheckStateChange(at_plan, at_plan, &g)), "ok");
  EXPECT_EQ(Code(CheckStateChange(
                at_plan, State("currentNodeId: build\nstepsCompleted: [start, plan]\n"), &g)),
            "ok");
  // Skipping a node is not an edge.
  const auto jump = CheckStateChange(at_plan, State("currentNodeId: done\n"), &g);
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->code, ToolErrorCode::kInvalidTransition);
  EXPECT_EQ(jump->message,
            "transition plan -> done is not an edge of @pkg/workflow.graph.json; "
            "allowed next: build, skip");
  EXPECT_EQ(jump->details,
            (OJson{{"from", "plan"}, {"to", "done"}, {"allowedNext", {"build", "skip"}}}));
  // From a node with no way out.
  const auto stuck =
      CheckStateChange(State("currentNodeId: skip\n"), State("currentNodeId: plan\n"), &g);
  ASSERT_TRUE(stuck);
  EXPECT_NE(stuck->message.find("allowed next: (none)"), std::string::npos);
  // A node the graph does not have.
  const auto unknown = CheckStateChange(std::nullopt, State("currentNodeId: nowhere\n"), &g);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->code, ToolErrorCode::kInvalidTransition);
  EXPECT_EQ(unknown->details,
            (OJson{{"from", nullptr}, {"to", "nowhere"}, {"allowedNext", OJson::array()}}));
  // Without a graph only the schema counts.
  EXPECT_EQ(Code(CheckStateChange(
                at_plan, State("currentNodeId: nowhere\nstepsCompleted: [start]\n"), nullptr)),
            "ok");
}

TEST(WorkflowState, StepsCompletedOnlyGrows) {
  const WorkflowGraph g = Graph();
  const std::string old = State("currentNodeId: build\nstepsCompleted: [start, plan]\n");
  EXPECT_EQ(Code(CheckStateChange(
                old, State("currentNodeId: build\nstepsCompleted: [start, plan, build]\n"), &g)),
            "ok");
  const auto dropped =
      CheckStateChange(old, State("currentNodeId: build\nstepsCompleted: [plan]\n"), &g);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->code, ToolErrorCode::kInvalidTransition);
  EXPECT_EQ(dropped->details, (OJson{{"field", "stepsCompleted"}, {"removed", {"start"}}}));
  // Reordered: nothing removed, but the order is not kept.
  const auto reordered =
      CheckStateChange(old, State("currentNodeId: build\nstepsCompleted: [plan, start]\n"), &g);
  ASSERT_TRUE(reordered);
  EXPECT_EQ(reordered->details["removed"], OJson::array());
  // Left out altogether: every old entry removed.
  const auto gone = CheckStateChange(old, State("currentNodeId: build\n"), nullptr);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->details["removed"], (OJson{"start", "plan"}));
}

TEST(WorkflowState, TheNewStateMustParseAndHaveANode) {
  const WorkflowGraph g = Graph();
  const auto none = CheckStateChange(std::nullopt, "currentNodeId: plan\n", &g);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->code, ToolErrorCode::kInvalidFrontmatter);
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, "---\ncurrentNodeId: plan\n", &g)),
            "E_INVALID_FRONTMATTER");  // never closed
  const auto broken = CheckStateChange(std::nullopt, State("a: [1\n"), &g);
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->code, ToolErrorCode::kInvalidFrontmatter);
  EXPECT_TRUE(broken->message.starts_with("@state/workflow.md front matter: line "))
      << broken->message;
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, State("- a\n- b\n"), &g)), "E_INVALID_FRONTMATTER");
  const auto missing = CheckStateChange(std::nullopt, State("stepsCompleted: []\n"), &g);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->code, ToolErrorCode::kSchemaValidation);
  EXPECT_EQ(missing->details["got"], "nothing");
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, State("currentNodeId: 3\n"), &g)),
            "E_SCHEMA_VALIDATION");
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, State("currentNodeId: [plan]\n"), &g)),
            "E_SCHEMA_VALIDATION");
}

TEST(WorkflowState, AnOldStateThatDoesNotParseConstrainsNothing) {
  const WorkflowGraph g = Graph();
  const std::string next = State("currentNodeId: done\n");
  for (const std::string& old : {std::string("no front matter"), State("a: [1\n"),
                                 State("currentNodeId: 5\nstepsCompleted: [a]\n"),
                                 State("stepsCompleted: x\n"), std::string("\xff\xfe---\n")}) {
    EXPECT_EQ(Code(CheckStateChange(old, next, &g)), "ok") << old;
  }
  // An old state without a node constrains the steps but not the transition.
  EXPECT_EQ(Code(CheckStateChange(State("stepsCompleted: [a]\n"), next, &g)),
            "E_INVALID_TRANSITION");
}

TEST(WorkflowState, HostileStateFilesAreErrorsNotCrashes) {
  const WorkflowGraph g = Graph();
  const std::string deep = State("a: " + std::string(10000, '[') + "\n");
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, deep, &g)), "E_INVALID_FRONTMATTER");
  EXPECT_EQ(Code(CheckStateChange(deep, State("currentNodeId: plan\n"), &g)), "ok");
  EXPECT_NE(Code(CheckStateChange(std::nullopt, State("currentNodeId: \"\xff\xfe\"\n"), &g)),
            "ok");  // not valid UTF-8, and no node has that id anyway
  EXPECT_EQ(
      Code(CheckStateChange(std::nullopt, State("currentNodeId: plan\ncurrentNodeId: b\n"), &g)),
      "E_INVALID_FRONTMATTER");  // a duplicate key
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, State("? [a]\n: b\n"), &g)),
            "E_INVALID_FRONTMATTER");  // a non-scalar key
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, State("currentNodeId: plan\nx: *nope\n"), &g)),
            "E_INVALID_FRONTMATTER");  // an unknown alias
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, std::string(1 << 20, '-'), &g)),
            "E_INVALID_FRONTMATTER");
  EXPECT_EQ(Code(CheckStateChange(std::nullopt, "", &g)), "E_INVALID_FRONTMATTER");
}

TEST(WorkflowState, CompleteAtAnEndNodeThatIsAlsoAStepDone) {
  const WorkflowGraph g = Graph();
  EXPECT_TRUE(
      IsWorkflowComplete({{"currentNodeId", "done"}, {"stepsCompleted", {"build", "done"}}}, g));
  EXPECT_TRUE(IsWorkflowComplete({{"currentNodeId", "skip"}, {"stepsCompleted", {"skip"}}}, g));
  EXPECT_FALSE(IsWorkflowComplete({{"currentNodeId", "done"}, {"stepsCompleted", {"build"}}}, g));
  EXPECT_FALSE(IsWorkflowComplete({{"currentNodeId", "build"}, {"stepsCompleted", {"build"}}}, g));
  EXPECT_FALSE(IsWorkflowComplete({{"currentNodeId", "done"}}, g));
  EXPECT_FALSE(IsWorkflowComplete({{"currentNodeId", 1}, {"stepsCompleted", {"done"}}}, g));
  EXPECT_FALSE(IsWorkflowComplete({{"currentNodeId", "done"}, {"stepsCompleted", "done"}}, g));
  EXPECT_FALSE(IsWorkflowComplete(OJson::object(), g));
  EXPECT_FALSE(IsWorkflowComplete(nullptr, g));
}

// Any state text, old or new: an answer, never a crash; a state the check
// accepts has a string currentNodeId naming a node of the graph.
RC_GTEST_PROP(WorkflowStateProperty, AnyStateTextGetsAnAnswer, ()) {
  static const WorkflowGraph g = Graph();
  const auto piece = rc::gen::oneOf(
      rc::gen::arbitrary<std::string>(),
      rc::gen::element<std::string>("currentNodeId: ", "plan", "build", "done",
                                    "stepsCompleted: ", "[start, plan]", "\n", "---\n", "{", "[",
                                    ": ", "- ", "&a ", "*a", "\"", "\xff"));
  auto text = [&] {
    std::string out;
    for (const auto& p : *rc::gen::container<std::vector<std::string>>(piece)) out += p;
    return out;
  };
  const std::string new_text = *rc::gen::element(0, 1) == 0 ? "---\n" + text() + "\n---\n" : text();
  const std::optional<std::string> old_text =
      *rc::gen::element(0, 1) == 0 ? std::nullopt : std::optional(text());
  const auto e = CheckStateChange(old_text, new_text, &g);
  if (!e) RC_ASSERT(new_text.starts_with("---"));
}

}  // namespace
}  // namespace llmconform::toolcalls
