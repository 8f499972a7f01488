// Reading a journal (mockllm::ParseJournal: a JSON array, an object with
// "entries", or JSON Lines) and every harness reading of one: the view of the
// requests sent, the request gate, the turns and the judgeability check.
// Oracle: an entry that reads writes back (JournalEntry::ToJson) to JSON that
// reads to the same entry.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "harness/gate_checks.h"
#include "harness/requests_sent.h"
#include "harness/runner.h"
#include "mockllm/journal_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  auto journal = mockllm::ParseJournal("j.jsonl", fuzz::Text(data, size));
  if (!journal) return 0;
  for (const harness::SentRequest& r : harness::ReadRequestsSent(*journal)) {
    if (!r.problem.empty()) std::abort();  // ParseJournal accepted the entry
    const Json again = r.entry().ToJson(r.read.seq.value_or(0));
    auto back = mockllm::JournalRecordFromJson(again, JsonPointer());
    if (!back || !(back->entry == r.entry())) std::abort();
  }
  (void)harness::RequestGateChecks(*journal, 1);
  (void)harness::JournalTurns(*journal);
  (void)harness::UnjudgeableJournal(*journal);
  return 0;
}
