// Located JSON errors and JSON pointer locations: the document before the
// first NUL, the pointer after it.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "harness/json_location.h"
#include "base/json_locate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [doc, pointer] = fuzz::SplitAtNul(fuzz::Text(data, size));
  (void)harness::ParseJsonText("fuzz.json", doc);
  if (auto at = wire::LocateJsonPointer(doc, pointer); at && *at > doc.size()) std::abort();
  if (wire::LocateNearestJsonPointer(doc, pointer) > doc.size()) std::abort();
  (void)wire::LineColumnOf(doc, doc.size() / 2);
  return 0;
}
