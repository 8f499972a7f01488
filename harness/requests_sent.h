// The requests a client sent, as mockllm's journal shows them: the one typed
// view of a journal in the harness. The suites' checks, the request gate,
// `judge` and the client profile read a journal through it, never its JSON
// members, and name a place in it in one notation (SentRequest::Where).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "mockllm/journal_entry.h"

namespace llmconform::harness {

// One entry of the journal, typed (mockllm/journal_entry.h).
struct SentRequest {
  std::size_t index = 0;        // its position in the journal read
  const Json* json = nullptr;   // the entry as journaled: borrowed from that journal, never null
  mockllm::JournalRecord read;  // the entry typed; all defaults when `problem` is set
  std::string problem;          // why the entry could not be read ("" when it could)

  const mockllm::JournalEntry& entry() const { return read.entry; }
  // The request body: parsed JSON, the text, or null.
  const Json& body() const { return read.entry.body; }
  // The body's "messages" when the body is an object with an array there, else null.
  const Json& messages() const;
  // The reply's exchange: its index in the replayed trace (and in a
  // scenario's expect.replies), when one answered or was compared.
  std::optional<std::size_t> exchange() const { return read.entry.exchange; }
  // A request to mockllm's admin API (/__admin…), not to the LLM.
  bool IsAdmin() const;
  // GET …/models: a client's look at the models, not a request of the conversation.
  bool IsModelsList() const;
  // Where something of this request is, for a finding's evidence: "journal[3]"
  // then `rest`, a JSON pointer into the entry ("/request/body/messages/2").
  std::string Where(std::string_view rest = "") const;
  // Where("/request/body/messages").
  std::string MessagesWhere() const;
};

// Every entry of `journal` (a JSON array of entries as mockllm writes them:
// mockllm::ParseJournal, Server::Journal), in order. An entry
// JournalRecordFromJson refuses is kept, with `problem` set and defaults (a
// journal made by hand or by another tool: the rules judge what they can read).
// Anything but an array is no entries. Never throws. The result borrows from
// `journal`, which must outlive it.
std::vector<SentRequest> ReadRequestsSent(const Json& journal);

}  // namespace llmconform::harness
