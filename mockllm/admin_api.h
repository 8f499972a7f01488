// mockllm's runtime control, the /__admin routes (docs/mockllm.md, "Admin API"):
//
//   GET    /__admin/health             {"status":"ok","traces":[ids],"requests":N,
//                                      "journal_dropped":N,"sessions":N,"sessions_evicted":N}
//   GET    /__admin/journal[?session=S&trace=T]   the journal, only entries of that
//                                      session and/or trace when asked
//   GET    /__admin/unmatched          journal entries nothing answered (no_match,
//                                      request_mismatch, trace_exhausted, unknown_trace),
//                                      each with "nearest" when one was found
//                                      (these two the server answers itself, streamed
//                                      page by page, with ?after=SEQ&limit=N)
//   GET    /__admin/sessions           cursor and unused exchanges per session
//   POST   /__admin/traces             load traces: a trace file's JSON Lines, or JSON: a
//                                      trace object {"id",…header fields,"exchanges":[…]},
//                                      a stub {"request","response"[,"fault"]}, or an
//                                      array of those; 201 {"loaded":[ids],"warnings":[…]}
//   DELETE /__admin/traces/{id}        unload a trace (id URL-encoded) and its sessions
//   POST   /__admin/reset              forget sessions and journal (the server also
//                                      hands the memory back)
// Errors use OpenAI's error form: 400 for a body that is no trace (located),
// 404 for an unknown route or trace, 409 for an id already loaded.
// Independent of the HTTP library: the server hands over the parts it parsed.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "mockllm/journal.h"
#include "mockllm/replay_book.h"

namespace llmconform::mockllm {

struct AdminRequest {
  std::string method;
  std::string path;                                // without the query
  std::multimap<std::string, std::string> params;  // the query, decoded
  std::string body;
};

struct AdminAnswer {
  int status = 200;
  nlohmann::json body;
};

AdminAnswer HandleAdmin(ReplayBook& book, Journal& journal, const AdminRequest& request);

// Whether a journal entry (JournalEntry::ToJson) is one nothing answered (GET
// /__admin/unmatched): a finding of a kind IsUnmatched.
bool Unmatched(const nlohmann::json& entry);

// The traces a POST /__admin/traces body holds (see above). `name` is used in
// errors. Stubs without an id get "stub-N".
std::expected<std::vector<Trace>, Error> TracesFromAdminBody(std::string_view body,
                                                             std::string_view name);

}  // namespace llmconform::mockllm
