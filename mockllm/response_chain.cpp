#include "mockllm/response_chain.h"

#include <set>

#include "base/format.h"
#include "base/utf8.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

bool IsResponses(std::string_view path) {
  return llmconform::wire::SurfaceOfPath(path) == llmconform::wire::Surface::kResponses;
}

// The string `key` of `j`, or "".
std::string StringAt(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string RecordedResponseId(const RecordedResponse& response) {
  if (!response.streamed) {
    return StringAt(Json::parse(response.BodyBytes(), nullptr, false), "id");
  }
  llmconform::wire::SseParser parser;
  std::string id;
  for (const Chunk& c : response.chunks) {
    parser.Feed(c.raw, [&](const llmconform::wire::SseEventView& ev) {
      if (!id.empty()) return;
      const Json data = Json::parse(ev.data, nullptr, false);
      if (data.is_object() && data.contains("response")) id = StringAt(data["response"], "id");
    });
    if (!id.empty()) break;
  }
  return id;
}

void NoteResponseChain(LoadedTrace& t) {
  std::set<std::string> carried;
  for (std::size_t x = 0; x < t.exchanges.size(); ++x) {
    const Exchange& ex = t.trace.exchanges[x];
    if (!IsResponses(ex.request.path)) continue;
    t.exchanges[x].response_id = RecordedResponseId(ex.response);
    if (!t.exchanges[x].response_id.empty()) carried.insert(t.exchanges[x].response_id);
  }
  for (const Exchange& ex : t.trace.exchanges) {
    if (!IsResponses(ex.request.path) || !ex.request.body) continue;
    const std::string named = StringAt(Json(*ex.request.body), "previous_response_id");
    if (!named.empty() && !carried.contains(named)) t.outside_ids.push_back(named);
  }
}

Json PreviousResponseNotFound(std::string_view id) {
  return llmconform::wire::MakeErrorJson(
      llmconform::Format("Previous response with id '{}' not found.", CapText(id, kMaxQuotedBytes)),
      "invalid_request_error", "previous_response_id", "previous_response_not_found");
}

std::optional<std::string> ReplayBook::UnknownPreviousResponse(std::string_view path,
                                                               const Json& body) const {
  if (!IsResponses(path)) return std::nullopt;
  const std::string id = StringAt(body, "previous_response_id");
  if (id.empty()) return std::nullopt;
  const auto catalog = Snapshot();
  {
    std::lock_guard lock(mu_);
    if (replayed_ids_.contains(id)) return std::nullopt;
  }
  for (const auto& t : catalog->traces) {
    for (const std::string& outside : t->outside_ids) {
      if (outside == id) return std::nullopt;
    }
  }
  return id;
}

void ReplayBook::NoteReplayed(const Verdict& v) {
  if (!v.plan || !v.keep || !v.exchange || v.plan->status < 200 || v.plan->status > 299) return;
  const std::string& id = v.keep->exchanges[*v.exchange].response_id;
  if (id.empty()) return;
  std::lock_guard lock(mu_);
  replayed_ids_.insert(id);
}

}  // namespace llmconform::mockllm
