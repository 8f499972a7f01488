// `llmconform ref` (harness/commands/command.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "harness/commands/command.h"
#include "harness/difftest/op_schema.h"
#include "harness/oracle.h"

namespace llmconform::harness {
namespace {

class RefCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("operation", op_, "the operation, e.g. multiturn.buildLLMMessages");
    app.add_flag("--list", list_, "print every operation with a one-line description");
    app.add_flag("--schema", schema_,
                 "print the operation's JSON Schemas of input and output, with its verdict "
                 "fields (\"compare\"), from specs/oracle/OP.json");
    app.add_option("--specs", specs_, "folder of specs/ (for --schema)")->capture_default_str();
    app.add_flag("--serve", serve_,
                 "answer JSON lines as a `llmconform check` SUT does ({\"id\",\"op\",\"input\"} "
                 "-> {\"id\",\"output\"|\"error\"}) until stdin ends");
    app.footer(
        "Reads one JSON document on stdin and writes the result on stdout.\n"
        "Exit 0 with a result (also when the input is invalid for the protocol: the result says "
        "so);\n"
        "exit 2 with {\"error\": \"stdin:LINE:COL: ...\"} on stderr for malformed JSON (also "
        "invalid\n"
        "UTF-8, a number beyond double's range, nesting deeper than 512), a missing or mistyped "
        "field,\n"
        "or an unknown operation.\n\n"
        "Example:\n"
        "  echo '{\"text\":\"介绍林默\"}' | llmconform ref multiturn.estimateMessageTokens\n"
        "  {\"tokens\":3}");
  }

  int Run() override {
    if (list_) {
      std::size_t width = 0;
      for (const auto& op : OracleOperations()) width = std::max(width, op.name.size());
      for (const auto& op : OracleOperations()) {
        std::cout << op.name << std::string(width + 2 - op.name.size(), ' ') << op.summary << '\n';
      }
      return kExitOk;
    }
    if (serve_) {
      std::ios::sync_with_stdio(false);
      return ServeOracle(std::cin, std::cout);
    }
    if (op_.empty()) {
      std::cerr << "llmconform ref: name an operation (see `llmconform ref --list`)\n";
      return kExitUsage;
    }
    if (schema_) {
      if (!FindOracleOperation(op_)) {
        std::cerr << "llmconform ref: unknown operation \"" << op_
                  << "\"; `llmconform ref --list` lists them\n";
        return kExitUsage;
      }
      auto schema = difftest::LoadOpSchema(specs_, op_);
      if (!schema) {
        std::cerr << "llmconform ref --schema: " << schema.error().message << '\n';
        return kExitUsage;
      }
      std::cout << schema->doc.dump(2) << '\n';
      return kExitOk;
    }
    return RunOracle(op_, std::cin, std::cout, std::cerr);
  }

 private:
  std::string op_;
  bool list_ = false;
  bool schema_ = false;
  bool serve_ = false;
  fs::path specs_ = "specs";
};

}  // namespace

std::unique_ptr<Command> MakeRefCommand() { return std::make_unique<RefCommand>(); }

}  // namespace llmconform::harness
