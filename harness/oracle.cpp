#include "harness/oracle.h"

#include <algorithm>
#include <istream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/exit_code.h"
#include "base/format.h"
#include "base/json_read.h"
#include "protocols/action/oracle_ops.h"
#include "protocols/multiturn/oracle_ops.h"
#include "protocols/skill/oracle_ops.h"
#include "protocols/thinkingml/oracle_ops.h"
#include "protocols/toolcalls/oracle_ops.h"
#include "protocols/wire/oracle_ops.h"

namespace llmconform::harness {
namespace {

std::vector<OracleOp> BuildTable() {
  std::vector<OracleOp> all;
  for (auto ops : {wire::OracleOps(), multiturn::OracleOps(), action::OracleOps(),
                   skill::OracleOps(), thinkingml::OracleOps(), toolcalls::OracleOps()}) {
    all.insert(all.end(), std::make_move_iterator(ops.begin()), std::make_move_iterator(ops.end()));
  }
  std::sort(all.begin(), all.end(),
            [](const OracleOp& a, const OracleOp& b) { return a.name < b.name; });
  return all;
}

// An operation's output as `ref` writes it (OracleOp::write).
std::string Written(const OracleOp& op, const nlohmann::json& output) {
  return op.write ? op.write(output) : DumpJson(output);
}

void WriteError(std::ostream& err, std::string_view message) {
  err << DumpJson(nlohmann::json{{"error", message}}) << '\n';
}

}  // namespace

std::span<const OracleOp> OracleOperations() {
  static const std::vector<OracleOp> table = BuildTable();
  return table;
}

const OracleOp* FindOracleOperation(std::string_view name) {
  return FindOracleOp(OracleOperations(), name);
}

int RunOracle(std::string_view op_name, std::istream& in, std::ostream& out, std::ostream& err) {
  const OracleOp* op = FindOracleOperation(op_name);
  if (!op) {
    WriteError(err,
               Format("unknown operation \"{}\"; `llmconform ref --list` lists them", op_name));
    return kExitUsage;
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto input = ReadJson("stdin", text);
  if (!input) {
    WriteError(err, input.error().message);
    return ExitCodeFor(input.error());
  }
  std::expected<nlohmann::json, Error> result;
  try {
    result = op->run(*input);
  } catch (const std::exception& e) {
    // Operations do not throw by contract; if one does, it is our bug, said plainly.
    WriteError(err, Format("{}: internal error: {}", op->name, e.what()));
    return kExitInternal;
  }
  if (!result) {
    WriteError(err, Format("{}: {}", op->name, result.error().message));
    return ExitCodeFor(result.error());
  }
  // Invalid UTF-8 in a result string is replaced rather than failing the call.
  out << Written(*op, *result) << '\n';
  return kExitOk;
}

int ServeOracle(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json answer;
    std::optional<std::string> written;  // the output, when its op writes it itself
    nlohmann::json request = ReadJsonOrDiscarded(line);
    if (request.is_discarded() || !request.is_object() || !request.contains("op") ||
        !request["op"].is_string()) {
      answer = {{"id", nullptr}, {"error", "expected a request {\"id\", \"op\", \"input\"}"}};
    } else {
      answer["id"] = request.value("id", nlohmann::json());
      const std::string& name = request["op"].get_ref<const std::string&>();
      const OracleOp* op = FindOracleOperation(name);
      if (!op) {
        answer["error"] = Format("unknown operation \"{}\"", name);
      } else {
        try {
          auto result = op->run(request.value("input", nlohmann::json()));
          if (result && op->write) {
            written = op->write(*result);
          } else if (result) {
            answer["output"] = std::move(*result);
          } else {
            answer["error"] = result.error().message;
          }
        } catch (const std::exception& e) {
          answer["error"] = Format("{}: internal error: {}", name, e.what());
        }
      }
    }
    if (written) {
      // {"id","output"}, in the order dump() gives them.
      out << "{\"id\":" << DumpJson(answer["id"]) << ",\"output\":" << *written << "}\n";
    } else {
      out << DumpJson(answer) << '\n';
    }
    if (in.rdbuf()->in_avail() <= 0) out.flush();
  }
  out.flush();
  return kExitOk;
}

}  // namespace llmconform::harness
