// Located JSON errors and JSON pointer locations: the document before the
// first NUL, the pointer after it. ReadJson (simdjson, converted) must read
// the document exactly as nlohmann's own parser does.
#include <cstdlib>

#include "base/json_locate.h"
#include "base/json_read.h"
#include "fuzz/fuzz_input.h"
#include "harness/json_location.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [doc, pointer] = fuzz::SplitAtNul(fuzz::Text(data, size));
  (void)harness::ParseJsonText("fuzz.json", doc);
  if (auto at = LocateJsonPointer(doc, pointer); at && *at > doc.size()) std::abort();
  if (LocateNearestJsonPointer(doc, pointer) > doc.size()) std::abort();
  (void)LineColumnOf(doc, doc.size() / 2);
  if (!PrescanJsonText(doc)) {  // nlohmann itself is then safe to run on it
    const auto ours = ReadOrderedJsonOrDiscarded(doc);
    const auto theirs = nlohmann::ordered_json::parse(doc, nullptr, false);
    if (ours.is_discarded() != theirs.is_discarded()) std::abort();
    if (!ours.is_discarded() && (ours.dump() != theirs.dump() || ours.type() != theirs.type()))
      std::abort();
  }
  return 0;
}
