// Located JSON errors and JSON pointer locations: the document before the
// first NUL, the pointer after it.
#include <cstdlib>

#include "base/json_locate.h"
#include "fuzz/fuzz_input.h"
#include "harness/json_location.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [doc, pointer] = fuzz::SplitAtNul(fuzz::Text(data, size));
  (void)harness::ParseJsonText("fuzz.json", doc);
  if (auto at = LocateJsonPointer(doc, pointer); at && *at > doc.size()) std::abort();
  if (LocateNearestJsonPointer(doc, pointer) > doc.size()) std::abort();
  (void)LineColumnOf(doc, doc.size() / 2);
  return 0;
}
