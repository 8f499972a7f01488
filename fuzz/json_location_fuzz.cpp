// Located JSON errors (ReadJson, PlacedInText) and JSON pointer locations: the document before the
// first NUL, the pointer after it. ReadJson (simdjson, converted) must read
// the document exactly as nlohmann's own parser does.
#include <cstdlib>

#include "base/json_locate.h"
#include "base/json_read.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [doc, pointer] = fuzz::SplitAtNul(fuzz::Text(data, size));
  if (auto read = ReadJson("fuzz.json", doc); !read && read.error().message.empty()) std::abort();
  const Error placed = PlacedInText(Error::AtPointer(std::string(pointer), "x"), "fuzz.json", doc);
  if (!placed.position || placed.position->line == 0) std::abort();
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
