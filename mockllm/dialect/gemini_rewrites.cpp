// The Gemini API's rewrites (DIA-GEM-*, mockllm/dialect/rewrites.h): each
// touches only the responses (or the body member) its deviation is about.
#include "mockllm/dialect/rewrites.h"

namespace llmconform::mockllm::dialect {
namespace {

bool IsResponse(const StreamEvent& e) { return e.is_json && e.json.is_object(); }

// The index of the last JSON event, or evs.size() when there is none.
std::size_t LastResponse(const std::vector<StreamEvent>& evs) {
  for (std::size_t i = evs.size(); i > 0; --i)
    if (IsResponse(evs[i - 1])) return i - 1;
  return evs.size();
}

void GemUsageLastOnly(std::vector<StreamEvent>& evs, const OJson&) {
  const std::size_t last = LastResponse(evs);
  for (std::size_t i = 0; i < last; ++i)
    if (IsResponse(evs[i]) && evs[i].json.erase("usageMetadata") > 0) evs[i].changed = true;
}

// Vertex's fields on one GenerateContentResponse: createTime after
// modelVersion (where Vertex puts it), trafficType in usageMetadata.
bool AddVertexFields(OJson& r, const OJson& p) {
  if (!r.is_object() || !r.contains("candidates")) return false;
  bool changed = false;
  if (!r.contains("createTime")) {
    r = WithKeyAfter(r, "modelVersion", "createTime", p["create_time"]);
    changed = true;
  }
  auto u = r.find("usageMetadata");
  if (u != r.end() && u->is_object() && !u->contains("trafficType")) {
    *u = WithKeyAfter(*u, "totalTokenCount", "trafficType", p["traffic_type"]);
    changed = true;
  }
  return changed;
}

void GemVertexFields(std::vector<StreamEvent>& evs, const OJson& p) {
  for (StreamEvent& e : evs)
    if (IsResponse(e) && AddVertexFields(e.json, p)) e.changed = true;
}

void BodyGemVertexFields(BodyView& b, const OJson& p, bool) {
  if (b.r.status >= 400) return;
  if (AddVertexFields(b.json, p)) b.changed = true;
}

// The stream as Google frames it without alt=sse: "[" first response
// "\n,\r\n" next … "]"; what is no response (comments, a tail) has no place
// in an array and is left out.
void GemStreamJsonArray(std::vector<StreamEvent>& evs, const OJson&) {
  std::vector<StreamEvent> out;
  for (StreamEvent& e : evs) {
    if (!IsResponse(e)) continue;
    e.raw = (out.empty() ? "[" : "\n,\r\n") + Dump(e.json);
    e.field_lines.clear();
    e.changed = false;  // written as raw
    out.push_back(std::move(e));
  }
  if (out.empty()) return;
  StreamEvent close;
  close.raw = "\n]";
  close.t_ms = out.back().t_ms;
  out.push_back(std::move(close));
  evs = std::move(out);
}

// A streamed request's error answer {"error":{…}} as [{"error":{…}}].
void BodyGemErrorArray(BodyView& b, const OJson&, bool stream_requested) {
  if (!stream_requested || b.r.status < 400 || !b.json.is_object() || !b.json.contains("error"))
    return;
  b.json = OJson::array({std::move(b.json)});
  b.changed = true;
}

}  // namespace

void AddGeminiRows(std::vector<Rewrite>& t) {
  const OJson none = OJson::object();
  t.push_back({{"DIA-GEM-USAGE-LAST-ONLY",
                "`usageMetadata` left out of every stream chunk but the last", ""},
               none,
               GemUsageLastOnly,
               nullptr});
  t.push_back({{"DIA-GEM-VERTEX-FIELDS",
                "Vertex's `createTime` (CREATE_TIME) on every response and "
                "`usageMetadata.trafficType` (TRAFFIC_TYPE), streamed and not",
                "create_time (\"2025-06-27T08:48:21.154666Z\"), traffic_type (\"ON_DEMAND\")"},
               {{"create_time", "2025-06-27T08:48:21.154666Z"}, {"traffic_type", "ON_DEMAND"}},
               GemVertexFields,
               BodyGemVertexFields});
  t.push_back({{"DIA-GEM-STREAM-JSON-ARRAY",
                "the stream as one JSON array of its responses ([{…}\\n,\\r\\n{…}\\n]), "
                "served as application/json",
                ""},
               none,
               GemStreamJsonArray,
               nullptr});
  t.push_back({{"DIA-GEM-ERROR-ARRAY",
                "a streamed request's error body {\"error\":…} as [{\"error\":…}]", ""},
               none,
               nullptr,
               BodyGemErrorArray});
}

}  // namespace llmconform::mockllm::dialect
