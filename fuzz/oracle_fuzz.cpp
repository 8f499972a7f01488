// The JSON oracle (`llmconform ref OP`, `ref --serve`): every operation's
// input readers. The first byte picks the operation, the rest is the stdin
// document; the whole input is also served as request lines. An answer must
// be one line of JSON, and an exit code 0 or 2 (3 is an internal error).
// Left out: toolcalls.toolhost, which runs file tools on the folders its
// input names (fuzzing it would write anywhere on the machine).
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "base/json_read.h"
#include "fuzz/fuzz_input.h"
#include "harness/oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  static const std::vector<std::string_view> ops = [] {
    std::vector<std::string_view> names;
    for (const auto& op : harness::OracleOperations()) {
      if (op.name != "toolcalls.toolhost") names.push_back(op.name);
    }
    return names;
  }();
  if (size == 0) return 0;
  const std::string_view name = ops[data[0] % ops.size()];
  const std::string_view input = fuzz::Text(data + 1, size - 1);

  std::istringstream in{std::string(input)};
  std::ostringstream out, err;
  const int code = harness::RunOracle(name, in, out, err);
  if (code != 0 && code != 2) std::abort();  // an operation threw
  const std::string& answer = code == 0 ? out.str() : err.str();
  if (answer.empty() || answer.back() != '\n' || answer.find('\n') != answer.size() - 1 ||
      !ReadJson("answer", answer))
    std::abort();  // not one line of JSON

  // Served: request lines, unless one asks for the file tool (read as
  // ServeOracle reads it).
  std::istringstream scan{std::string(input)};
  for (std::string line; std::getline(scan, line);) {
    try {
      const auto request = nlohmann::json::parse(line, nullptr, false);
      if (request.is_object() && request.contains("op") && request["op"] == "toolcalls.toolhost")
        return 0;
    } catch (const std::exception&) {
    }
  }
  std::istringstream lines{std::string(input)};
  std::ostringstream served;
  (void)harness::ServeOracle(lines, served);
  std::istringstream answers(served.str());
  for (std::string line; std::getline(answers, line);) {
    if (!ReadJson("served", line)) std::abort();
  }
  return 0;
}
