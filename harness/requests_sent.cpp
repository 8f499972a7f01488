#include "harness/requests_sent.h"

#include "base/format.h"

namespace llmconform::harness {

const Json& SentRequest::messages() const {
  static const Json kNone;
  const Json& b = body();
  if (!b.is_object()) return kNone;
  const auto it = b.find("messages");
  return it != b.end() && it->is_array() ? *it : kNone;
}

bool SentRequest::IsAdmin() const {
  const std::string& path = entry().path;
  return path == "/__admin" || path.starts_with("/__admin/");
}

bool SentRequest::IsModelsList() const {
  return entry().method == "GET" && entry().path.ends_with("/models");
}

std::string SentRequest::Where(std::string_view rest) const {
  return Format("journal[{}]{}", index, rest);
}

std::string SentRequest::MessagesWhere() const { return Where("/request/body/messages"); }

std::vector<SentRequest> ReadRequestsSent(const Json& journal) {
  std::vector<SentRequest> out;
  if (!journal.is_array()) return out;
  out.reserve(journal.size());
  for (std::size_t i = 0; i < journal.size(); ++i) {
    SentRequest r{.index = i, .json = &journal[i], .read = {}, .problem = {}};
    if (auto read = mockllm::JournalRecordFromJson(journal[i], JsonPointer() / i))
      r.read = std::move(*read);
    else
      r.problem = std::move(read.error().message);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace llmconform::harness
