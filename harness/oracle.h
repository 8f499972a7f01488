// The JSON oracle: every reference operation, callable as
// `llmconform ref OP` (one JSON document on stdin, one on stdout).
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

#include "protocols/wire/oracle_op.h"

namespace llmconform::harness {

// Every operation, in one table, sorted by name. Built once; lives for the
// whole program.
std::span<const OracleOp> OracleOperations();

// Nullptr when no operation has that name.
const OracleOp* FindOracleOperation(std::string_view name);

// Runs `op_name` on the JSON text read from `in`, writing the result to `out`
// (one line of JSON). Returns the exit code: 0 with a result; 2 for malformed
// JSON, input the operation cannot take, or an unknown operation — then `err`
// gets {"error": "..."} and nothing goes to `out`.
int RunOracle(std::string_view op_name, std::istream& in, std::ostream& out, std::ostream& err);

// The oracle as a `llmconform check` SUT (`llmconform ref --serve`): reads
// request lines {"id", "op", "input"} from `in` until its end and answers each
// with one line {"id", "output"} or {"id", "error"}, in order; output is
// flushed whenever no more input is buffered. A line that is not such a
// request is answered {"id": null, "error": …}. Returns 0.
int ServeOracle(std::istream& in, std::ostream& out);

}  // namespace llmconform::harness
